import Foundation
import Testing

@testable import Bindery

/// `filter(keys:)` with more composite keys than a chain of ORs can hold (SQLite refuses an expression
/// tree more than 1,000 deep, and more parameters than its limit): fetches, counts, `exists`,
/// `deleteAll` and `updateAll` find the rows plain SQL finds, the keys bound as one JSON array past 400
/// keys; a key value JSON cannot carry (a BLOB) then throws an error naming the column.
@Suite struct CompositeKeyFilterManyKeysTests {
    struct Pair: Record, Equatable {
        static let tableName = "pairs"
        static let primaryKey = ["a", "b"]
        var a: Int64
        var b: String
        var v: Int
    }

    struct Blobbed: Record {
        static let tableName = "blobbed"
        static let primaryKey = ["a", "b"]
        var a: Int64
        var b: Data
    }

    private static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE pairs(a INTEGER NOT NULL, b TEXT NOT NULL, v INTEGER NOT NULL, PRIMARY KEY (a, b))
                    WITHOUT ROWID;
                CREATE TABLE blobbed(a INTEGER NOT NULL, b BLOB NOT NULL, PRIMARY KEY (a, b));
                """)
        try conn.insert(contentsOf: (0..<30_000).map { Pair(a: Int64($0 % 100), b: "k\($0) \"é\"", v: $0) })
        return conn
    }

    /// Keys of `count` rows (every third row, from the first) and as many keys of no row, each twice.
    private static func keys(_ count: Int) -> [[String: any Encodable & Sendable]] {
        let present = (0..<count).map { i -> [String: any Encodable & Sendable] in
            ["a": Int64((i * 3) % 100), "b": "k\(i * 3) \"é\""]
        }
        let absent = (0..<count).map { i -> [String: any Encodable & Sendable] in
            ["a": Int64((i * 3 + 1) % 100), "b": "k\(i * 3) \"é\""]
        }
        return present + absent + present
    }

    /// 3 × `count` keys: a chain of ORs up to 400 keys, JSON past them.
    @Test(arguments: [133, 134, 300, 9_000])
    func manyCompositeKeysFindTheirRows(count: Int) throws {
        let conn = try Self.connection()
        let request = Pair.all().filter(keys: Self.keys(count))
        let expected = (0..<count).map { $0 * 3 }
        #expect(try conn.fetchAll(request.order("v")).map(\.v) == expected)
        #expect(try conn.fetchCount(request) == count)
        #expect(try conn.exists(request))
        let last = try conn.fetchAll(request.order("v DESC").limit(2)).map(\.v)
        #expect(last == [expected[count - 1], expected[count - 2]])
        #expect(try conn.updateAll(request, set: "v = -v") == count)
        #expect(try conn.fetchCount(Pair.all().filter("v < 0")) == count - 1)
        #expect(try conn.deleteAll(request.order("v").limit(10)) == 10)
        #expect(try conn.deleteAll(request) == count - 10)
        #expect(try conn.fetchCount(Pair.all()) == 30_000 - count)
    }

    @Test func aBlobKeyValuePastTheLimitIsNamed() throws {
        let conn = try Self.connection()
        try conn.execute("INSERT INTO blobbed VALUES (7, x'0102'), (8, x'0103')")
        let keys = (0..<5_000).map { i -> [String: any Encodable & Sendable] in ["a": Int64(i), "b": Data([1, 2])] }
        #expect(try conn.fetchCount(Blobbed.all().filter(keys: Array(keys.prefix(400)))) == 1)
        do {
            _ = try conn.fetchCount(Blobbed.all().filter(keys: keys))
            Issue.record("no error")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.contains("blobbed.b"))
            #expect(context.debugDescription.contains("BLOB"))
        }
    }
}
