import Foundation
import Testing

@testable import Bindery

/// The schema probe (`createTable(for:)`, type-following tables) tells coding keys apart by their bytes,
/// as the row encoder does and SQLite does for column names: two keys that differ only by Unicode
/// normalization are two columns, each NOT NULL or not by its own property.
@Suite struct SchemaProbeKeyNormalizationTests {
    struct Pair: Record, Equatable {
        static let tableName = "pairs"
        var id: Int64
        var composed: String?
        var decomposed: String

        enum CodingKeys: String, CodingKey {
            case id
            case composed = "caf\u{E9}"
            case decomposed = "cafe\u{301}"
        }
    }

    @Test func twoKeysDifferingByNormalizationAreTwoColumns() throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Pair.self)
        // As SQLite holds them: the names' bytes, and whether each is NOT NULL.
        let columns = try conn.rows(
            "SELECT hex(name), \"notnull\" FROM pragma_table_info('pairs') WHERE name <> 'id' ORDER BY cid",
            arguments: [])
        #expect(
            columns.map(\.values) == [
                [.text("636166C3A9"), .integer(0)],
                [.text("63616665CC81"), .integer(1)],
            ])
        try conn.insert(Pair(id: 1, composed: nil, decomposed: "two"))
        #expect(try conn.fetchAll(Pair.all()) == [Pair(id: 1, composed: nil, decomposed: "two")])
    }
}
