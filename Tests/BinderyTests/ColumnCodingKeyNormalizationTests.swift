import Foundation
import Testing

@testable import Bindery

/// The check of hand-written columns (`encodeColumns(to:)`, `init(columns:)`) against `Codable`, on a
/// type's first records, tells columns apart by their names' bytes, as the row encoder and decoder do:
/// two coding keys that differ only by Unicode normalization are two columns, each compared with its
/// own value, never refused as a mismatch. The stored values are read back with SQL.
@Suite struct ColumnCodingKeyNormalizationTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    struct Written: Record, ColumnEncodable {
        static let tableName = "pairs"
        var id: Int64
        var composed: String
        var decomposed: String

        enum CodingKeys: String, CodingKey {
            case id
            case composed = "caf\u{E9}"
            case decomposed = "cafe\u{301}"
        }

        func encodeColumns(to columns: inout ColumnWriter) throws {
            try columns.encode(id, forKey: "id")
            try columns.encode(composed, forKey: ColumnCodingKeyNormalizationTests.composed)
            try columns.encode(decomposed, forKey: ColumnCodingKeyNormalizationTests.decomposed)
        }
    }

    struct Read: Record, Equatable, ColumnDecodable {
        static let tableName = "pairs"
        var id: Int64
        var composed: String
        var decomposed: String

        enum CodingKeys: String, CodingKey {
            case id
            case composed = "caf\u{E9}"
            case decomposed = "cafe\u{301}"
        }

        init(id: Int64, composed: String, decomposed: String) {
            self.id = id
            self.composed = composed
            self.decomposed = decomposed
        }

        init(columns: ColumnReader) throws {
            id = try columns.decode(Int64.self, forKey: "id")
            composed = try columns.decode(String.self, forKey: ColumnCodingKeyNormalizationTests.composed)
            decomposed = try columns.decode(String.self, forKey: ColumnCodingKeyNormalizationTests.decomposed)
        }
    }

    private func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: "CREATE TABLE pairs(id INTEGER PRIMARY KEY, \"\(Self.composed)\" TEXT, \"\(Self.decomposed)\" TEXT)"
        )
        return conn
    }

    private func stored(_ conn: Connection) throws -> [String] {
        try conn.fetchAll(
            String.self,
            sql: SQL(
                stringLiteral: "SELECT \"\(Self.composed)\" || ' ' || \"\(Self.decomposed)\" FROM pairs ORDER BY id"))
    }

    @Test func handWrittenColumnsOfTwoSpellingsAreChecked() throws {
        let conn = try connection()
        try conn.insert(Written(id: 1, composed: "one", decomposed: "two"))
        try conn.insert(contentsOf: [Written(id: 2, composed: "three", decomposed: "four")])
        #expect(try stored(conn) == ["one two", "three four"])
    }

    @Test func handReadColumnsOfTwoSpellingsAreChecked() throws {
        let conn = try connection()
        try conn.execute(
            script: "INSERT INTO pairs VALUES (1, 'one', 'two'), (2, 'three', 'four')")
        #expect(
            try conn.fetchAll(Read.all().order("id")) == [
                Read(id: 1, composed: "one", decomposed: "two"), Read(id: 2, composed: "three", decomposed: "four"),
            ])
    }
}
