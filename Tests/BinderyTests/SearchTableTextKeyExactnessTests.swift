import Foundation
import Testing

@testable import Bindery

/// A search table kept by triggers over a table with a TEXT key, meeting keys that differ only by
/// Unicode normalization (BINARY key) or by case (NOCASE key), through inserts, updates of the key,
/// upserts, REPLACE and deletes: after each step every word finds exactly the rows a LIKE scan
/// finds, and FTS5's integrity check passes.
@Suite struct SearchTableTextKeyExactnessTests {
    struct Entry: Record, Equatable {
        static let tableName = "entries"
        static let primaryKey = ["key"]
        var key: String
        var body: String
    }

    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"
    static let words = ["alpha", "bravo", "charlie", "delta"]

    private static func connection(collation: String) throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            "CREATE TABLE entries(key TEXT PRIMARY KEY NOT NULL COLLATE \(raw: collation), body TEXT NOT NULL)")
        try conn.create(searchTable: "entries_fts", on: "entries", columns: ["body"])
        return conn
    }

    private static func check(_ conn: Connection, _ step: String) throws {
        for word in words {
            let pattern = try #require(SearchPattern.all(word))
            let matched = try conn.fetchAll(Entry.all().matching(pattern, in: "entries_fts", ranked: false))
                .map { $0.key.utf8.map { String(format: "%02X", $0) }.joined() }.sorted()
            let like = "%" + word + "%"
            let scanned = try conn.fetchAll(
                String.self, sql: "SELECT hex(key) FROM entries WHERE body LIKE \(like) ORDER BY 1")
            #expect(matched == scanned, "\(word) after \(step)")
        }
        #expect(throws: Never.self, "integrity after \(step)") { try conn.checkIntegrity(searchTable: "entries_fts") }
    }

    @Test func keysDifferingByNormalizationAreTwoRows() throws {
        let conn = try Self.connection(collation: "BINARY")
        try conn.insert(contentsOf: [
            Entry(key: Self.composed, body: "alpha bravo"), Entry(key: Self.decomposed, body: "charlie"),
        ])
        try Self.check(conn, "insert")
        try conn.upsert(contentsOf: [Entry(key: Self.decomposed, body: "delta"), Entry(key: "x", body: "alpha")])
        try Self.check(conn, "upsert")
        try conn.execute("UPDATE entries SET key = \("y") WHERE key = \(Self.composed)")
        try Self.check(conn, "key update")
        try conn.insert(Entry(key: Self.composed, body: "bravo delta"), onConflict: .replace)
        try conn.insert(Entry(key: Self.decomposed, body: "charlie"), onConflict: .replace)
        try Self.check(conn, "replace")
        #expect(try conn.delete(Entry.self, id: Self.decomposed))
        try Self.check(conn, "delete")
        #expect(try conn.fetchCount(Entry.all()) == 3)
    }

    @Test func keysDifferingByCaseOnANocaseKeyAreOneRow() throws {
        let conn = try Self.connection(collation: "NOCASE")
        try conn.insert(contentsOf: [Entry(key: "Key", body: "alpha"), Entry(key: "other", body: "bravo")])
        try conn.insert(Entry(key: "KEY", body: "charlie"), onConflict: .replace)
        try Self.check(conn, "replace by another case")
        try conn.upsert(contentsOf: [Entry(key: "key", body: "delta"), Entry(key: "OTHER", body: "alpha")])
        try Self.check(conn, "upsert by another case")
        try conn.execute("UPDATE entries SET key = \("Other2") WHERE key = \("other")")
        try Self.check(conn, "key update")
        #expect(try conn.delete(Entry.self, id: "kEY"))
        try Self.check(conn, "delete by another case")
        #expect(try conn.fetchAll(String.self, sql: "SELECT key FROM entries") == ["Other2"])
    }
}
