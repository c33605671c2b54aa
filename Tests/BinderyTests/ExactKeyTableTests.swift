import Foundation
import Testing

@testable import Bindery

/// ``ExactKeyTable`` finds a row's key among INTEGER and TEXT keys as SQLite's `BINARY` comparison
/// would, by storage class and bytes, and makes no table for keys it cannot hold.
@Suite struct ExactKeyTableTests {
    /// The group the table gives each value, read back from a one-column row.
    static func groups(_ table: ExactKeyTable, of values: [SQLiteValue], on conn: Connection) throws -> [Int?] {
        try values.map { value in
            try conn.withStatement("SELECT ?") { statement in
                try statement.bind(arguments: [value])
                #expect(try statement.step())
                return table.group(ofColumn: 0, of: statement.handle)
            }
        }
    }

    @Test func findsIntegerAndTextKeysByStorageClassAndBytes() throws {
        let conn = try Connection(path: ":memory:")
        let keys: [SQLiteValue] = [
            1, "1", "", "caf\u{E9}", "cafe\u{301}", "exactly8", "nine bytes", .integer(Int64.min), "sixteen bytes!!!",
        ]
        let table = try #require(ExactKeyTable(keys: keys))
        #expect(try Self.groups(table, of: keys, on: conn) == Array(0..<keys.count))
        let absent: [SQLiteValue] = [2, "2", " ", "cafe", "exactly9", "nine byte", 1.0, .null, .blob(Data("1".utf8))]
        #expect(try Self.groups(table, of: absent, on: conn) == Array(repeating: nil, count: absent.count))
    }

    @Test func findsEachOfManyKeys() throws {
        let conn = try Connection(path: ":memory:")
        let keys =
            (0..<5_000).map { SQLiteValue.text("key \($0)") } + (0..<5_000).map { SQLiteValue.integer(Int64($0) * 7) }
        let table = try #require(ExactKeyTable(keys: keys))
        let probes = [keys[0], keys[4_999], keys[5_000], keys[9_999], "key 5000", .integer(5_000 * 7)]
        #expect(try Self.groups(table, of: probes, on: conn) == [0, 4_999, 5_000, 9_999, nil, nil])
    }

    @Test func makesNoTableForKeysItCannotHold() {
        #expect(ExactKeyTable(keys: [1, 2.5]) == nil)
        #expect(ExactKeyTable(keys: ["a", .null]) == nil)
        #expect(ExactKeyTable(keys: [.blob(Data([1]))]) == nil)
        #expect(ExactKeyTable(keys: ["a", "b", "a"]) == nil)
        #expect(ExactKeyTable(keys: [3, 3]) == nil)
        #expect(ExactKeyTable(keys: []) != nil)
    }
}
