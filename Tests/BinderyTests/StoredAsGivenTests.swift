import Foundation
import Testing

@testable import Bindery

/// A ``StoredAsGiven`` record comes back from `insert` as given, with the rowid set by `didInsert`,
/// when the plain INSERT stored it as given; wherever the database fills more (a default, a trigger, a
/// converted value, a schema changed elsewhere), it is read back and decoded as any record is. The
/// records here have a transient property that `didInsert` sets, so each test can tell which way the
/// result was made.
@Suite struct StoredAsGivenTests {
    struct Item: Record, StoredAsGiven, Equatable {
        static let tableName = "item"
        var id: Int64?
        var name: String
        var count: Int?
        /// Transient: true only on a record `didInsert` was called on (decoding leaves it false).
        var assigned = false

        enum CodingKeys: String, CodingKey { case id, name, count }

        mutating func didInsert(rowID: Int64) {
            id = rowID
            assigned = true
        }
    }

    /// The same columns, not ``StoredAsGiven``: `insert` decodes the stored row.
    struct PlainItem: Record, Equatable {
        static let tableName = "item"
        var id: Int64?
        var name: String
        var count: Int?
        var assigned = false

        enum CodingKeys: String, CodingKey { case id, name, count }
    }

    /// An item whose `encode(to:)` throws `fails` after encoding its first two fields: its own error, or
    /// an `SQLiteError` with code `SQLITE_SCHEMA`, the code on which a statement is prepared again and run
    /// again.
    struct FailingItem: Record, StoredAsGiven {
        static let tableName = "item"
        struct Refused: Error {}
        enum Failure: Sendable { case refused, schema }
        var id: Int64?
        var name: String
        var count: Int?
        var fails: Failure?

        enum CodingKeys: String, CodingKey { case id, name, count }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(name, forKey: .name)
            switch fails {
            case .refused: throw Refused()
            case .schema: throw SQLiteError(code: .schema, message: "thrown by encode(to:)")
            case nil: try container.encodeIfPresent(count, forKey: .count)
            }
        }

        mutating func didInsert(rowID: Int64) { id = rowID }
    }

    /// An item that encodes a NULL `note` only when it has one to leave out: its row learns the slot late.
    struct LateSlotItem: Record, StoredAsGiven {
        static let tableName = "item"
        var id: Int64?
        var name: String
        var count: Int?
        var mentionsNote = false

        enum CodingKeys: String, CodingKey { case id, name, count, note }

        init(id: Int64?, name: String, count: Int?, mentionsNote: Bool = false) {
            (self.id, self.name, self.count, self.mentionsNote) = (id, name, count, mentionsNote)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            count = try container.decodeIfPresent(Int.self, forKey: .count)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(count, forKey: .count)
            if mentionsNote { try container.encodeNil(forKey: .note) }
        }

        mutating func didInsert(rowID: Int64) { id = rowID }
    }

    static let table = "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, count INTEGER)"

    /// The rows of `item` as (id, name, count).
    static func rows(_ conn: Connection) throws -> [[SQLiteValue]] {
        try conn.rows("SELECT id, name, count FROM item ORDER BY id", arguments: []).map(\.values)
    }

    @Test func aRecordStoredAsGivenComesBackAsGivenWithItsRowID() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.table)
        let first = try conn.insert(Item(id: nil, name: "a", count: 1))
        #expect(first == Item(id: 1, name: "a", count: 1, assigned: true))
        // Shapes change from one insert to the next: an id given, a nil count, text only.
        let second = try conn.insert(Item(id: 7, name: "b", count: nil))
        #expect(second == Item(id: 7, name: "b", count: nil, assigned: true))
        let third = try conn.insert(Item(id: nil, name: "c", count: 3))
        #expect(third == Item(id: 8, name: "c", count: 3, assigned: true))
        #expect(conn.recordContext.plainInsertCount == 3)
        #expect(
            try Self.rows(conn) == [
                [.integer(1), .text("a"), .integer(1)], [.integer(7), .text("b"), .null],
                [.integer(8), .text("c"), .integer(3)],
            ])
        // Read back, the transient property has its default: what a plain record's insert returns.
        #expect(try conn.find(Item.self, id: 8) == Item(id: 8, name: "c", count: 3, assigned: false))
        let plain = try conn.insert(PlainItem(id: nil, name: "d", count: 4, assigned: true))
        #expect(plain == PlainItem(id: 9, name: "d", count: 4, assigned: false))
    }

    @Test func aDefaultATriggerOrAConvertedValueIsReadBackAndDecoded() throws {
        let schemas = [
            "CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, count INTEGER DEFAULT 5)",
            Self.table + "; CREATE TRIGGER t AFTER INSERT ON item BEGIN SELECT 1; END",
        ]
        for schema in schemas {
            let conn = try Connection.inMemory()
            try conn.execute(script: schema)
            let stored = try conn.insert(Item(id: nil, name: "a", count: nil))
            #expect(stored.assigned == false, "\(schema)")
            #expect(stored.id == 1)
            #expect(stored.count == (schema.contains("DEFAULT 5") ? 5 : nil))
            #expect(conn.recordContext.plainInsertCount == 0)
        }
        // A TEXT column converts the number given: the row is read back.
        struct Labelled: Record, StoredAsGiven {
            static let tableName = "labelled"
            var id: Int64?
            var label: String?
            var number: Double
            var assigned = false
            enum CodingKeys: String, CodingKey { case id, label, number }
            mutating func didInsert(rowID: Int64) {
                id = rowID
                assigned = true
            }
        }
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE labelled (id INTEGER PRIMARY KEY, label TEXT, number INTEGER)")
        let whole = try conn.insert(Labelled(id: nil, label: "x", number: 2))
        #expect(whole.assigned == false && whole.id == 1 && whole.number == 2)
        let fraction = try conn.insert(Labelled(id: nil, label: "y", number: 2.5))
        #expect(fraction.assigned == false && fraction.id == 2 && fraction.number == 2.5)
    }

    /// A record with a value whose stored form may decode to another one.
    struct Inexact: Record, StoredAsGiven, Equatable {
        static let tableName = "inexact"
        var id: Int64?
        var at: Date?
        var link: URL?
        var amount: Decimal?
        var tags: [String]?
        var assigned = false
        enum CodingKeys: String, CodingKey { case id, at, link, amount, tags }
        mutating func didInsert(rowID: Int64) {
            id = rowID
            assigned = true
        }
    }

    @Test func aDateAURLADecimalOrJSONIsDecodedAsStored() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE inexact (id INTEGER PRIMARY KEY, at TEXT, link TEXT, amount TEXT, tags)")
        let precise = Date(timeIntervalSince1970: 1_700_000_000.123_456)
        let dated = try conn.insert(Inexact(id: nil, at: precise))
        #expect(!dated.assigned)
        #expect(dated.at == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(try conn.find(Inexact.self, id: dated.id ?? 0) == dated)
        let base = URL(string: "https://example.com/a/")
        let linked = try conn.insert(Inexact(id: nil, link: URL(string: "b", relativeTo: base)))
        #expect(!linked.assigned && linked.link == URL(string: "https://example.com/a/b"))
        let priced = try conn.insert(Inexact(id: nil, amount: Decimal(string: "1.50")))
        #expect(!priced.assigned && priced.id == 3)
        let tagged = try conn.insert(Inexact(id: nil, tags: ["a"]))
        #expect(!tagged.assigned && tagged.tags == ["a"])
        // With none of them, the record comes back as given.
        let plain = try conn.insert(Inexact(id: nil))
        #expect(plain == Inexact(id: 5, assigned: true))
    }

    @Test func aRowSkippedByIgnoreComesBackAsGivenWithoutADidInsert() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.table)
        try conn.insert(Item(id: 1, name: "a", count: 1))
        let skipped = try conn.insert(Item(id: 1, name: "b", count: 2), onConflict: .ignore)
        #expect(skipped == Item(id: 1, name: "b", count: 2, assigned: false))
        #expect(try Self.rows(conn) == [[.integer(1), .text("a"), .integer(1)]])
        let replaced = try conn.insert(Item(id: 1, name: "c", count: nil), onConflict: .replace)
        #expect(replaced == Item(id: 1, name: "c", count: nil, assigned: true))
        #expect(try Self.rows(conn) == [[.integer(1), .text("c"), .null]])
    }

    @Test func anEncodingThatFailsHalfwayBindsNothingTheNextInsertKeeps() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.table)
        try conn.insert(FailingItem(id: nil, name: "a", count: 1))
        #expect(throws: FailingItem.Refused.self) {
            try conn.insert(FailingItem(id: 50, name: "half", count: 99, fails: .refused))
        }
        let next = try conn.insert(FailingItem(id: nil, name: "b", count: nil))
        #expect(next.id == 2)
        try conn.insert(FailingItem(id: nil, name: "c", count: 3))
        #expect(
            try Self.rows(conn) == [
                [.integer(1), .text("a"), .integer(1)], [.integer(2), .text("b"), .null],
                [.integer(3), .text("c"), .integer(3)],
            ])
    }

    @Test func anSQLiteSchemaErrorThrownWhileEncodingIsThrownNotRetried() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.table)
        try conn.insert(FailingItem(id: nil, name: "a", count: 1))
        #expect(throws: SQLiteError.self) {
            try conn.insert(FailingItem(id: 2, name: "half", count: 9, fails: .schema))
        }
        try conn.insert(FailingItem(id: nil, name: "b", count: 2))
        let expected: [[SQLiteValue]] = [
            [.integer(1), .text("a"), .integer(1)], [.integer(2), .text("b"), .integer(2)],
        ]
        #expect(try Self.rows(conn) == expected)
    }

    @Test func aSlotLearnedLateIsAnotherShapeAndAFailedInsertAfterItThrows() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: Self.table + "; ALTER TABLE item ADD COLUMN note TEXT; CREATE UNIQUE INDEX names ON item (name)")
        try conn.insert(LateSlotItem(id: nil, name: "a", count: 1))
        let late = try conn.insert(LateSlotItem(id: nil, name: "b", count: 2, mentionsNote: true))
        #expect(late.id == 2)
        // The same shape as the last record, failing on the unique name: the error names the values.
        do {
            try conn.insert(LateSlotItem(id: nil, name: "a", count: 3, mentionsNote: true))
            Issue.record("a duplicate name was inserted")
        } catch let error as SQLiteError {
            #expect(error.code == .constraint)
            #expect(error.debugDescription.contains("with arguments 'a', 3"))
        }
        let next = try conn.insert(LateSlotItem(id: nil, name: "e", count: nil, mentionsNote: true))
        #expect(next.id == 3)
        #expect(
            try Self.rows(conn) == [
                [.integer(1), .text("a"), .integer(1)], [.integer(2), .text("b"), .integer(2)],
                [.integer(3), .text("e"), .null],
            ])
    }

    @Test func aKeyThatIsNotTheRowIDIsNotSetFromTheRowID() throws {
        let conn = try Connection.inMemory()
        // `INT PRIMARY KEY` is not the rowid: a nil id is stored as NULL, and comes back nil.
        try conn.execute(script: "CREATE TABLE item (id INT PRIMARY KEY, name TEXT NOT NULL, count INTEGER)")
        let stored = try conn.insert(Item(id: nil, name: "a", count: 1))
        #expect(stored == Item(id: nil, name: "a", count: 1, assigned: false))
        let given = try conn.insert(Item(id: 40, name: "b", count: 2))
        #expect(given == Item(id: 40, name: "b", count: 2, assigned: false))
    }

    @Test func aSchemaChangedByAnotherConnectionIsSeenAndTheRowReadBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stored-as-given-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        let conn = try Connection(path: path)
        try conn.execute(script: Self.table)
        #expect(try conn.insert(Item(id: nil, name: "a", count: 1)).assigned)
        #expect(try conn.insert(Item(id: nil, name: "b", count: 2)).assigned)
        let other = try Connection(path: path)
        try other.execute(script: "ALTER TABLE item ADD COLUMN added INTEGER DEFAULT 7")
        // The INSERT was planned before the column (and its default) came: SQLite re-prepares it as it
        // steps, and the row is read back, decoded.
        let third = try conn.insert(Item(id: nil, name: "c", count: 3))
        #expect(third == Item(id: 3, name: "c", count: 3, assigned: false))
        #expect(try conn.rows("SELECT added FROM item WHERE id = 3", arguments: []).map(\.values) == [[.integer(7)]])
        // The new column is not one of the record's: the next insert is planned again, plain.
        let fourth = try conn.insert(Item(id: nil, name: "d", count: 4))
        #expect(fourth == Item(id: 4, name: "d", count: 4, assigned: true))
        // A default for a column the record leaves out, made elsewhere: seen when SQLite re-prepares.
        try other.execute(
            script: """
                CREATE TABLE copy (id INTEGER PRIMARY KEY, name TEXT NOT NULL, count INTEGER DEFAULT 5);
                INSERT INTO copy SELECT id, name, count FROM item; DROP TABLE item; ALTER TABLE copy RENAME TO item
                """)
        let fifth = try conn.insert(Item(id: nil, name: "e", count: nil))
        #expect(fifth == Item(id: 5, name: "e", count: 5, assigned: false))
        let sixth = try conn.insert(Item(id: nil, name: "f", count: nil))
        #expect(sixth == Item(id: 6, name: "f", count: 5, assigned: false))
        other.close()
        conn.close()
    }
}
