import Foundation
import Testing

@testable import Bindery

/// `filter(keys:)` and `filter(key:)` with TEXT keys that differ only by Unicode normalization or by
/// case, on BINARY and NOCASE key columns, single and composite: fetches, counts, deletes, updates,
/// and `find`/`delete(_:id:)` must touch exactly the rows SQL's `IN` (or `=`) matches.
@Suite struct KeyFilterTextExactnessTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    struct Word: Record, Equatable {
        static let tableName = "words"
        static let primaryKey = ["word"]
        var word: String
        var n: Int
    }

    struct Tag: Record, Equatable {
        static let tableName = "tags"
        static let primaryKey = ["name"]
        var name: String
        var n: Int
    }

    struct Pair: Record, Equatable {
        static let tableName = "pairs"
        static let primaryKey = ["a", "b"]
        var a: String
        var b: String
        var n: Int
    }

    static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE words(word TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL);
                CREATE TABLE tags(name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, n INTEGER NOT NULL);
                CREATE TABLE pairs(a TEXT NOT NULL, b TEXT NOT NULL COLLATE NOCASE, n INTEGER NOT NULL,
                    PRIMARY KEY (a, b)) WITHOUT ROWID;
                """)
        try conn.insert(contentsOf: [
            Word(word: composed, n: 1), Word(word: decomposed, n: 2), Word(word: "Cafe", n: 3),
            Word(word: "cafe", n: 4),
        ])
        try conn.insert(contentsOf: [
            Tag(name: "Swift", n: 1), Tag(name: composed, n: 2), Tag(name: "\u{C9}t\u{E9}", n: 3),
        ])
        try conn.insert(contentsOf: [
            Pair(a: composed, b: "X", n: 1), Pair(a: decomposed, b: "x2", n: 2), Pair(a: "A", b: "y", n: 3),
        ])
        return conn
    }

    private static func ints(_ conn: Connection, _ sql: SQL) throws -> [Int] {
        try conn.fetchAll(Int.self, sql: sql)
    }

    @Test func singleTextKeysMatchWhatInMatches() throws {
        let conn = try Self.connection()
        let keys = [Self.composed, "CAFE", "cafe", Self.composed]
        let found = try conn.fetchAll(Word.all().filter(keys: keys).order("n")).map(\.n)
        #expect(found == (try Self.ints(conn, "SELECT n FROM words WHERE word IN \(list: keys) ORDER BY n")))
        #expect(found == [1, 4])
        #expect(try conn.fetchCount(Word.all().filter(keys: keys)) == 2)
        #expect(try conn.find(Word.self, id: Self.decomposed)?.n == 2)
        #expect(try conn.find(Word.self, id: Self.composed)?.n == 1)
        // NOCASE: "swift" is "Swift"; "ÉTÉ" is not "Été" (NOCASE folds ASCII only); é decomposed is not é.
        let tagKeys = ["swift", "\u{C9}T\u{C9}", Self.decomposed, "\u{C9}t\u{E9}"]
        let tags = try conn.fetchAll(Tag.all().filter(keys: tagKeys).order("n")).map(\.n)
        #expect(tags == (try Self.ints(conn, "SELECT n FROM tags WHERE name IN \(list: tagKeys) ORDER BY n")))
        #expect(tags == [1, 3])
        #expect(try conn.find(Tag.self, id: "SWIFT")?.n == 1)
        #expect(try conn.find(Tag.self, id: Self.decomposed) == nil)
    }

    @Test func compositeTextKeysMatchWhatSQLMatches() throws {
        let conn = try Self.connection()
        let keys: [[String: any Encodable & Sendable]] = [
            ["a": Self.decomposed, "b": "x"], ["a": Self.composed, "b": "x"], ["a": "a", "b": "Y"],
            ["a": Self.decomposed, "b": "X2"],
        ]
        let found = try conn.fetchAll(Pair.all().filter(keys: keys).order("n")).map(\.n)
        let expected = try Self.ints(
            conn,
            """
            SELECT n FROM pairs WHERE (a, b) IN (VALUES (\(Self.decomposed), 'x'), (\(Self.composed), 'x'), ('a', 'Y'),
                (\(Self.decomposed), 'X2')) ORDER BY n
            """)
        #expect(found == expected)
        #expect(found == [1, 2])
    }

    @Test func deletesAndUpdatesByKeysTouchTheRowsSQLMatches() throws {
        let conn = try Self.connection()
        #expect(try conn.updateAll(Word.all().filter(keys: [Self.decomposed, "CAFE"]), set: "n = n + \(10)") == 1)
        #expect(try conn.deleteAll(Tag.all().filter(keys: ["SWIFT", Self.decomposed])) == 1)
        #expect(try conn.delete(Word.self, id: Self.composed))
        #expect(try Self.ints(conn, "SELECT n FROM words ORDER BY n") == [3, 4, 12])
        #expect(try Self.ints(conn, "SELECT n FROM tags ORDER BY n") == [2, 3])
    }
}
