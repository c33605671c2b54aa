import Foundation
import Testing

@testable import Bindery

/// `insert(contentsOf:)` binds numbers to its statement while it encodes them, as long as records
/// keep the same non-NULL columns. Each test changes the shape of the records on the way and checks
/// that every row holds its own record's values, not a neighbour's.
@Suite struct BulkInsertBindingTests {
    struct Reading: Record, Equatable {
        static let tableName = "readings"
        var id: Int64?
        var sensor: String
        var value: Double?
        var count: Int?
        var raw: Data?
    }

    /// Encodes `n` twice under the same key, and leaves `note` out when it is empty.
    struct Quirky: Record, Equatable {
        static let tableName = "quirky"
        var id: Int
        var n: Int
        var note: String

        enum CodingKeys: String, CodingKey { case id, n, note }

        init(id: Int, n: Int, note: String) {
            (self.id, self.n, self.note) = (id, n, note)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            n = try container.decode(Int.self, forKey: .n)
            note = try container.decodeIfPresent(String.self, forKey: .note) ?? ""
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            if id % 3 == 0 {
                try container.encode(-1, forKey: .n)  // overwritten just below
            }
            try container.encode(n, forKey: .n)
            if !note.isEmpty {
                try container.encode(note, forKey: .note)
            }
        }
    }

    private func readings() -> [Reading] {
        (1...200).map { i in
            Reading(
                id: Int64(i), sensor: "s\(i % 7)",
                value: i % 5 == 0 ? nil : Double(i) / 4,
                count: i % 11 == 0 ? nil : i * 3,
                raw: i % 13 == 0 ? Data([UInt8(i % 256), 0, 1]) : nil)
        }
    }

    @Test func recordsWhoseNullColumnsComeAndGoKeepTheirOwnValues() throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Reading.self)
        let records = readings()
        #expect(try conn.insert(contentsOf: records) == records.count)
        #expect(try conn.fetchAll(Reading.self, orderBy: "id") == records)
    }

    @Test func aKeyEncodedTwiceOrLeftOutIsStoredAsTheRecordSaysIt() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: "CREATE TABLE quirky (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, note TEXT NOT NULL DEFAULT '')")
        let records = (1...60).map { Quirky(id: $0, n: $0 * 10, note: $0 % 4 == 0 ? "" : "note \($0)") }
        #expect(try conn.insert(contentsOf: records) == records.count)
        #expect(try conn.fetchAll(Quirky.self, orderBy: "id") == records)
    }

    @Test func aFailedBulkInsertLeavesNothingAndTheNextInsertsAreRight() throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Reading.self)
        var records = readings()
        records[150].id = 3  // a duplicate key, after 150 rows were bound and run
        #expect(throws: SQLiteError.self) { try conn.insert(contentsOf: records) }
        #expect(try conn.count(Reading.self) == 0)
        // The encoder must not bind into the statement of the failed insert any more.
        let single = Reading(id: 1000, sensor: "one", value: 1.5, count: 2, raw: nil)
        try conn.insert(single)
        records[150].id = 151
        #expect(try conn.insert(contentsOf: records) == records.count)
        #expect(try conn.fetchAll(Reading.self, orderBy: "id") == records + [single])
    }
}
