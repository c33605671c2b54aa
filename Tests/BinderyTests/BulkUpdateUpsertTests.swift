import Foundation
import Testing

@testable import Bindery

/// `update(contentsOf:)` and `upsert(contentsOf:)` against the same records written one at a time with
/// `update(_:)` and `upsert(_:)`: the same rows, the same errors, all or nothing.
@Suite struct BulkUpdateUpsertTests {
    typealias Item = BatchInsertTests.Item

    /// An item whose `encode(to:)` leaves `note` out entirely when `skipsNote` (the column is then
    /// left as it is by an upsert's update), and encodes nil as NULL otherwise.
    struct Sparse: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var code: String
        var qty: Int
        var note: String?
        var skipsNote: Bool

        enum CodingKeys: String, CodingKey { case id, code, qty, note }

        init(id: Int64?, code: String, qty: Int, note: String?, skipsNote: Bool) {
            (self.id, self.code, self.qty, self.note, self.skipsNote) = (id, code, qty, note, skipsNote)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int64?.self, forKey: .id)
            code = try container.decode(String.self, forKey: .code)
            qty = try container.decode(Int.self, forKey: .qty)
            note = try container.decode(String?.self, forKey: .note)
            skipsNote = false
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(code, forKey: .code)
            try container.encode(qty, forKey: .qty)
            if !skipsNote {
                try container.encode(note, forKey: .note)
            }
        }
    }

    static func connection() throws -> Connection {
        let conn = try BatchInsertTests.connection()
        try conn.insert(contentsOf: (0..<300).map { Item(id: Int64(1_000 + $0), code: "k\($0)", qty: $0, note: "n") })
        return conn
    }

    static func table(_ conn: Connection) throws -> [Item] {
        try BatchInsertTests.table(conn)
    }

    /// Edits of the 300 rows, with a run of nil notes in the middle.
    static func edits() -> [Item] {
        (0..<300).map { n in
            Item(id: Int64(1_000 + n), code: "e\(n)", qty: n * 2, note: (140..<160).contains(n) ? nil : "edit \(n)")
        }
    }

    @Test func updateContentsOfWritesWhatUpdatesOneByOneWrite() throws {
        let reference = try Self.connection()
        try reference.transaction { conn in
            for record in Self.edits() { try conn.update(record) }
        }
        let conn = try Self.connection()
        try conn.update(contentsOf: Self.edits())
        #expect(try Self.table(conn) == Self.table(reference))
        let viaSequence = try Self.connection()
        try viaSequence.update(contentsOf: Self.edits().lazy.map { $0 })
        #expect(try Self.table(viaSequence) == Self.table(reference))
    }

    @Test func updateContentsOfIsAllOrNothing() throws {
        let conn = try Self.connection()
        let before = try Self.table(conn)
        var missing = Self.edits()
        missing[180].id = 99_999
        #expect(throws: RecordError.notFound(table: "items", key: ["id": .integer(99_999)])) {
            try conn.update(contentsOf: missing)
        }
        #expect(try Self.table(conn) == before)
        var refused = Self.edits()
        refused[200].qty = -1
        do {
            try conn.update(contentsOf: refused)
            Issue.record("the update did not fail")
        } catch let error as SQLiteError {
            #expect(error.code == .constraint)
            #expect(error.recordIndex == 200)
        }
        #expect(try Self.table(conn) == before)
        #expect(!conn.isInTransaction)
    }

    /// Half the records update rows, half insert, some twice within one batch (the later wins), with
    /// a run of nil notes (set NULL) right before a run of notes left out (kept), which a batch must not mix.
    static func upserts() -> [Sparse] {
        (0..<400).map { n in
            let id = n % 2 == 0 ? Int64(1_000 + n / 2) : Int64(5_000 + n % 150)
            return Sparse(
                id: id, code: "u\(n)", qty: n, note: (200..<230).contains(n) ? nil : "up \(n)",
                skipsNote: (230..<270).contains(n))
        }
    }

    @Test func upsertContentsOfWritesWhatUpsertsOneByOneWrite() throws {
        let reference = try Self.connection()
        try reference.transaction { conn in
            for record in Self.upserts() { try conn.upsert(record) }
        }
        let expected = try Self.table(reference)
        #expect(expected.count == 302 + 75)
        let conn = try Self.connection()
        let mark = conn.recordContext.batchedRecordCount
        try conn.upsert(contentsOf: Self.upserts())
        #expect(try Self.table(conn) == expected)
        #expect(conn.recordContext.batchedRecordCount - mark >= 200)
        let viaSequence = try Self.connection()
        try viaSequence.upsert(contentsOf: AnySequence(Self.upserts()))
        #expect(try Self.table(viaSequence) == expected)
    }

    @Test func upsertContentsOfNamesTheRecordThatFailsAndStoresNothing() throws {
        let conn = try Self.connection()
        let before = try Self.table(conn)
        var records = Self.upserts()
        records[170].qty = -1
        do {
            try conn.upsert(contentsOf: records)
            Issue.record("the upsert did not fail")
        } catch let error as SQLiteError {
            #expect(error.code == .constraint)
            #expect(error.recordIndex == 170)
        }
        #expect(try Self.table(conn) == before)
    }

    /// The `Database` actor's forms run the same calls in one write.
    @Test func theActorUpdatesAndUpsertsManyRecords() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in
            try conn.execute(script: BatchInsertTests.schema)
            try conn.insert(
                contentsOf: (0..<150).map { Item(id: Int64(1_000 + $0), code: "k\($0)", qty: $0, note: "n") })
        }
        let edited = (0..<150).map { Item(id: Int64(1_000 + $0), code: "e\($0)", qty: $0 + 1, note: nil) }
        try await db.update(contentsOf: edited)
        let upserted = (100..<250).map { Item(id: Int64(1_000 + $0), code: "u\($0)", qty: $0, note: "u") }
        try await db.upsert(contentsOf: upserted)
        let table = try await db.read { try Self.table($0) }
        #expect(Array(table.dropFirst(2)) == Array(edited.prefix(100)) + upserted)
        await #expect(throws: RecordError.self) {
            try await db.update(contentsOf: [Item(id: 9, code: "none", qty: 1, note: nil)])
        }
    }
}
