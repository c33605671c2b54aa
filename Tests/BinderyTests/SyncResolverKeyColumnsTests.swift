import Foundation
import Testing

@testable import Bindery

/// A resolver's merged record on a table whose composite key has two columns that differ only by
/// non-ASCII case ("É" and "é": two columns to SQLite, which folds ASCII case only): the check that the merged record keeps the row's key must tell them apart
/// (it trapped on a duplicate dictionary key), and the merge must reach both copies.
@Suite struct SyncResolverKeyColumnsTests {
    struct Accent: Record, Equatable {
        static let tableName = "accents"
        static let primaryKey = ["\u{C9}", "\u{E9}"]
        var upper: String
        var lower: String
        var v: String

        enum CodingKeys: String, CodingKey {
            case upper = "\u{C9}"
            case lower = "\u{E9}"
            case v
        }
    }

    @Test func aMergedRecordIsCheckedByEachKeyColumn() async throws {
        let policy = SyncPolicy.resolve(Accent.self) { conflict in
            guard let local = conflict.local, let remote = conflict.remote else { return .keepRemote }
            var merged = local
            merged.v = [local.v, remote.v].sorted().joined(separator: "+")
            return .merged(merged)
        }
        let fixture = try await SyncFixture.make(
            extraSchema: """
                CREATE TABLE accents("\u{C9}" TEXT NOT NULL, "\u{E9}" TEXT NOT NULL, v TEXT NOT NULL,
                    PRIMARY KEY ("\u{C9}", "\u{E9}"));
                """,
            tables: [SyncTable(SyncTodo.self), SyncTable(Accent.self, policy: policy)])
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(Accent(upper: "x", lower: "y", v: "base"))
        try await fixture.settle()
        try await a.database.update(Accent(upper: "x", lower: "y", v: "A"))
        try await b.database.update(Accent(upper: "x", lower: "y", v: "B"))
        try await a.push()
        try await fixture.settle()
        let expected = [Accent(upper: "x", lower: "y", v: "A+B")]
        #expect(try await a.database.fetchAll(Accent.all()) == expected)
        #expect(try await b.database.fetchAll(Accent.all()) == expected)
    }
}

/// Coding keys that differ only by Unicode normalization name two columns to SQLite, and the row
/// encoder gives them two slots (Swift's `String` equality would make them one).
@Suite struct CodingKeyNormalizationTests {
    struct Pair: Record, Equatable {
        static let tableName = "pairs"
        var id: Int64
        var composed: String
        var decomposed: String

        enum CodingKeys: String, CodingKey {
            case id
            case composed = "caf\u{E9}"
            case decomposed = "cafe\u{301}"
        }
    }

    @Test func twoKeysDifferingByNormalizationAreTwoColumns() throws {
        let conn = try Connection.inMemory()
        try conn.execute("CREATE TABLE pairs(id INTEGER PRIMARY KEY, \"caf\u{E9}\" TEXT, \"cafe\u{301}\" TEXT)")
        try conn.insert(Pair(id: 1, composed: "one", decomposed: "two"))
        try conn.insert(contentsOf: [Pair(id: 2, composed: "three", decomposed: "four")])
        let stored = try conn.fetchAll(
            String.self, sql: "SELECT ifnull(\"caf\u{E9}\", '-') || ' ' || ifnull(\"cafe\u{301}\", '-') FROM pairs")
        #expect(stored == ["one two", "three four"])
        #expect(try conn.fetchAll(Pair.all().order("id")).map(\.decomposed) == ["two", "four"])
    }
}
