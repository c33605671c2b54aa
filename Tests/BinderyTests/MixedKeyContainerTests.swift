import Foundation
import Testing

@testable import Bindery

/// A custom `init(from:)` or `encode(to:)` that opens a container keyed by a struct first and one keyed
/// by a `CodingKeys` enum second: only the first container is kept from row to row, and the second must
/// still find its columns, row after row.
@Suite struct MixedKeyContainerTests {
    struct NamedKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    struct Mixed: Codable, Equatable {
        var a: Int
        var b: String
        var c: Int

        enum CodingKeys: String, CodingKey { case a, b }

        init(a: Int, b: String, c: Int) {
            (self.a, self.b, self.c) = (a, b, c)
        }

        init(from decoder: any Decoder) throws {
            c = try decoder.container(keyedBy: NamedKey.self).decode(Int.self, forKey: NamedKey("c"))
            let keyed = try decoder.container(keyedBy: CodingKeys.self)
            a = try keyed.decode(Int.self, forKey: .a)
            b = try keyed.decode(String.self, forKey: .b)
        }

        func encode(to encoder: any Encoder) throws {
            var named = encoder.container(keyedBy: NamedKey.self)
            try named.encode(c, forKey: NamedKey("c"))
            var keyed = encoder.container(keyedBy: CodingKeys.self)
            try keyed.encode(a, forKey: .a)
            try keyed.encode(b, forKey: .b)
        }
    }

    private static let count = 5000
    private var expected: [Mixed] { (1...Self.count).map { Mixed(a: $0, b: "row \($0)", c: -$0) } }

    @Test func everyRowDecodesFromItsOwnColumns() throws {
        let conn = try Connection.inMemory()
        let rows = try conn.fetchAll(
            Mixed.self,
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.count))
                SELECT i AS a, 'row ' || i AS b, -i AS c FROM n
                """)
        #expect(rows == expected)
    }

    @Test func everyRecordEncodesEachKeyToItsOwnColumn() throws {
        #expect(try RowEncoder().encode(Mixed(a: 1, b: "x", c: 2)).map(\.column) == ["c", "a", "b"])
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE mixed (a INTEGER PRIMARY KEY, b TEXT NOT NULL, c INTEGER NOT NULL)")
        for record in expected {
            try conn.execute("INSERT INTO mixed (a, b, c) VALUES (\(record.a), \(record.b), \(record.c))")
        }
        // Many values through one encoder: the statement's record encoder, used by every insert.
        struct Row: Record, Equatable {
            static let tableName = "mixed"
            static let primaryKey = ["a"]
            var mixed: Mixed
            init(_ mixed: Mixed) { self.mixed = mixed }
            init(from decoder: any Decoder) throws { mixed = try Mixed(from: decoder) }
            func encode(to encoder: any Encoder) throws { try mixed.encode(to: encoder) }
        }
        try conn.execute(script: "DELETE FROM mixed")
        #expect(try conn.insert(contentsOf: expected.map(Row.init)) == Self.count)
        #expect(try conn.fetchAll(Row.self, orderBy: "a").map(\.mixed) == expected)
    }
}
