import Foundation
import Testing

@testable import Bindery

/// `filter(keys:)` on composite keys (duplicates, a NOCASE key column, values that match no row)
/// meeting to-many includes keyed by the composite key, counts, deletes, views and a collation's index
/// after `reindex`; each answer checked against plain SQL.
@Suite struct CombinationKeyFilterTests {
    struct Shelf: Record, Equatable {
        static let tableName = "shelf"
        static let primaryKey = ["room", "number"]
        var room: String
        var number: Int
        var label: String
        static let slots = hasMany(Slot.self, using: ForeignKey(["room", "number"], to: ["room", "number"]))
    }

    struct Slot: Record, Equatable {
        static let tableName = "slot"
        var id: Int64
        var room: String
        var number: Int
        var item: String
    }

    struct ShelfSlots: Decodable, Equatable {
        var shelf: Shelf
        var slots: [Slot]
    }

    static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE shelf(room TEXT NOT NULL COLLATE NOCASE, number INTEGER NOT NULL, label TEXT NOT NULL,
                    PRIMARY KEY(room, number)) WITHOUT ROWID;
                CREATE TABLE slot(id INTEGER PRIMARY KEY, room TEXT NOT NULL COLLATE NOCASE, number INTEGER NOT NULL,
                    item TEXT NOT NULL, FOREIGN KEY(room, number) REFERENCES shelf(room, number));
                INSERT INTO shelf VALUES ('Hall', 1, 'coats'), ('Hall', 2, 'hats'), ('Den', 1, 'books');
                INSERT INTO slot VALUES (1, 'hall', 1, 'red coat'), (2, 'Hall', 1, 'blue coat'), (3, 'den', 1, 'atlas'),
                    (4, 'HALL', 2, 'cap');
                CREATE VIEW hall_slots AS SELECT slot.* FROM slot WHERE room = 'Hall';
                """)
        return conn
    }

    @Test func compositeKeyFiltersWithDuplicatesAndAnotherCaseIncludeEveryRecordOnce() throws {
        let conn = try Self.connection()
        let keys: [[String: any Encodable & Sendable]] = [
            ["room": "HALL", "number": 1], ["room": "hall", "number": 1], ["number": 1, "room": "Den"],
            ["room": "Attic", "number": 9],
        ]
        let request = Shelf.all().filter(keys: keys)
            .including(all: Shelf.slots.order("\(Shelf.slots.column("id"))"))
            .order("room, number")
        let shelves = try conn.fetchAll(ShelfSlots.self, request)
        #expect(shelves.map(\.shelf.label) == ["books", "coats"])
        #expect(shelves.map { $0.slots.map(\.id) } == [[3], [1, 2]])
        #expect(try conn.fetchCount(request) == 2)
        #expect(try conn.fetchCount(request.distinct()) == 2)
        #expect(try conn.fetchAll(ShelfSlots.self, request.reversed().limit(1)).map(\.shelf.label) == ["coats"])
        // Deletes the shelves only (foreign keys off): the slots, and the view over them, stay.
        try conn.execute("PRAGMA foreign_keys = OFF")
        #expect(try conn.deleteAll(request) == 2)
        #expect(try conn.fetchAll(String.self, sql: "SELECT label FROM shelf") == ["hats"])
        #expect(try conn.fetchAll(Int64.self, sql: "SELECT count(*) FROM hall_slots") == [3])
    }

    @Test func aKeyFilterWithAKeyOfTheWrongShapeThrowsBeforeAnyWrite() throws {
        let conn = try Self.connection()
        #expect(throws: RecordError.self) { try conn.deleteAll(Shelf.all().filter(keys: [["room": "Hall"]])) }
        #expect(throws: RecordError.self) { try conn.deleteAll(Shelf.all().filter(key: "Hall")) }
        #expect(throws: RecordError.self) {
            try conn.updateAll(Shelf.all().filter(keys: [["room": "Hall", "number": "x"]]), set: "label = 'x'")
        }
        #expect(
            try conn.fetchAll(String.self, sql: "SELECT label FROM shelf ORDER BY label") == ["books", "coats", "hats"])
    }
}
