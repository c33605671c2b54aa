import Foundation
import Testing

@testable import Bindery

/// `upsert`, `insertAndFetch`, `insertOrIgnoreAndFetch` and `update` of records whose TEXT key differs
/// from the stored row's only by case (NOCASE key, with and without a trigger that reads the row back)
/// or by Unicode normalization (BINARY key): each returns the row as stored, which plain SQL reads.
@Suite struct UpsertTextKeyTests {
    struct Tag: Record, Equatable {
        static let tableName = "tags"
        static let primaryKey = ["name"]
        var name: String
        var n: Int
    }

    private static func connection(trigger: Bool) throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE tags(name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, n INTEGER NOT NULL);
                CREATE TABLE log(what TEXT);
                INSERT INTO tags VALUES ('Swift', 1), ('caf\u{E9}', 1);
                """)
        if trigger {
            try conn.execute(
                "CREATE TRIGGER tags_au AFTER UPDATE ON tags BEGIN INSERT INTO log VALUES (new.name); END")
        }
        return conn
    }

    private static func stored(_ conn: Connection) throws -> [Tag] {
        try conn.rows("SELECT name, n FROM tags ORDER BY name COLLATE BINARY").map {
            Tag(name: try $0[0], n: try $0[1])
        }
    }

    @Test(arguments: [false, true])
    func theRowAsStoredComesBack(trigger: Bool) throws {
        let conn = try Self.connection(trigger: trigger)
        let upserted = try conn.upsert(Tag(name: "SWIFT", n: 2))
        let row = try #require(try Self.stored(conn).first { $0.name.lowercased() == "swift" })
        #expect(upserted == row)
        let decomposed = try conn.upsert(Tag(name: "cafe\u{301}", n: 3))
        #expect(try Self.stored(conn).contains(decomposed))
        #expect(try Self.stored(conn).count == 3)
        let ignored = try conn.insertOrIgnoreAndFetch(contentsOf: [Tag(name: "swift", n: 9)])
        #expect(ignored == [nil])
        let replaced = try conn.insertAndFetch(contentsOf: [Tag(name: "sWIFT", n: 5)], onConflict: .replace)
        #expect(try replaced == Self.stored(conn).filter { $0.n == 5 })
        try conn.update(Tag(name: "SWIFT", n: 6))
        #expect(try conn.find(Tag.self, id: "swift")?.n == 6)
    }
}
