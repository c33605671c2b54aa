import Foundation
import Testing

@testable import Bindery

/// `insertAndFetch(contentsOf:)` inserts like `insert(contentsOf:)` and returns every record as stored
/// (ids assigned, defaults filled), in order, under each conflict policy, on `Connection` and `Database`.
@Suite struct InsertAndFetchTests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var name: String
        var score: Int?
        var added: String?
    }

    static let schema = """
        CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER DEFAULT 7,
                            added TEXT NOT NULL DEFAULT 'today')
        """

    static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: schema)
        return conn
    }

    @Test func returnsEveryRecordAsStoredInOrder() throws {
        let conn = try Self.connection()
        let items = [
            Item(id: nil, name: "a", score: nil, added: nil),
            Item(id: 10, name: "b", score: 1, added: nil),
            Item(id: nil, name: "c", score: nil, added: "yesterday"),
            Item(id: nil, name: "d", score: 2, added: "then"),
        ]
        let saved = try conn.insertAndFetch(contentsOf: items)
        #expect(
            saved == [
                Item(id: 1, name: "a", score: 7, added: "today"),
                Item(id: 10, name: "b", score: 1, added: "today"),
                Item(id: 11, name: "c", score: 7, added: "yesterday"),
                Item(id: 12, name: "d", score: 2, added: "then"),
            ])
        #expect(try conn.fetchAll(Item.self, orderBy: "id") == saved)
        #expect(try conn.insertAndFetch(contentsOf: [Item]()) == [])
    }

    @Test func anySequenceNotOnlyArrays() throws {
        let conn = try Self.connection()
        let names = ["x", "y", "z"]
        let saved = try conn.insertAndFetch(
            contentsOf: names.lazy.map { Item(id: nil, name: $0, score: nil, added: nil) })
        #expect(saved.map(\.id) == [1, 2, 3])
        #expect(saved.map(\.score) == [7, 7, 7])
        #expect(saved.map(\.name) == names)
    }

    @Test func manyRecordsMatchWhatIsStored() throws {
        let conn = try Self.connection()
        let items = (0..<5_000).map { Item(id: nil, name: "n\($0)", score: $0 % 3 == 0 ? nil : $0, added: nil) }
        let saved = try conn.insertAndFetch(contentsOf: items)
        #expect(saved.count == items.count)
        #expect(saved == (try conn.fetchAll(Item.self, orderBy: "id")))
        #expect(saved.map(\.id) == (1...5_000).map { Int64($0) })
    }

    @Test func ignoredRowsComeBackAsGiven() throws {
        let conn = try Self.connection()
        try conn.insert(Item(id: nil, name: "taken", score: 1, added: nil))
        let items = [
            Item(id: nil, name: "new", score: nil, added: nil),
            Item(id: nil, name: "taken", score: 99, added: nil),
            Item(id: nil, name: "later", score: 3, added: nil),
        ]
        let saved = try conn.insertAndFetch(contentsOf: items, onConflict: .ignore)
        #expect(
            saved == [
                Item(id: 2, name: "new", score: 7, added: "today"),
                items[1],
                Item(id: 3, name: "later", score: 3, added: "today"),
            ])
        #expect(try conn.fetchOne(Item.self, where: "name = 'taken'")?.score == 1)
    }

    @Test func replacedRowsComeBackAsNowStored() throws {
        let conn = try Self.connection()
        try conn.insert(Item(id: nil, name: "taken", score: 1, added: "old"))
        let saved = try conn.insertAndFetch(
            contentsOf: [Item(id: nil, name: "taken", score: 2, added: nil)], onConflict: .replace)
        #expect(saved == [Item(id: 2, name: "taken", score: 2, added: "today")])
        #expect(try conn.fetchAll(Item.self) == saved)
    }

    @Test func aConflictThrowsAndInsertsNothing() throws {
        let conn = try Self.connection()
        let items = [
            Item(id: nil, name: "a", score: nil, added: nil),
            Item(id: nil, name: "a", score: nil, added: nil),
        ]
        let error = try #require(throws: SQLiteError.self) { try conn.insertAndFetch(contentsOf: items) }
        #expect(error.code == .constraint)
        #expect(try conn.count(Item.self) == 0)
        // Inside a transaction, only the bulk insert's own savepoint is rolled back.
        try conn.transaction { conn in
            try conn.insert(Item(id: nil, name: "kept", score: nil, added: nil))
            #expect(throws: SQLiteError.self) { try conn.insertAndFetch(contentsOf: items) }
        }
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM items") == ["kept"])
    }

    @Test func aRowThatCannotBeReadBackThrowsAndInsertsNothing() throws {
        let conn = try Connection.inMemory()
        // The default is text, which `score: Int?` cannot hold.
        try conn.execute(script: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, score DEFAULT 'many', added)")
        #expect(throws: DecodingError.self) {
            try conn.insertAndFetch(contentsOf: [Item(id: nil, name: "a", score: nil, added: nil)])
        }
        #expect(try conn.count(Item.self) == 0)
    }

    @Test func databaseReturnsTheRecordsAsStored() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in try conn.execute(script: Self.schema) }
        let saved = try await db.insertAndFetch(
            contentsOf: [
                Item(id: nil, name: "a", score: nil, added: nil), Item(id: nil, name: "b", score: 4, added: nil),
            ])
        #expect(
            saved == [
                Item(id: 1, name: "a", score: 7, added: "today"), Item(id: 2, name: "b", score: 4, added: "today"),
            ])
        #expect(try await db.fetchAll(Item.self, orderBy: "id") == saved)
    }

    // MARK: Telling which rows were skipped

    @Test func insertOrIgnoreAndFetchReturnsNilForSkippedRows() throws {
        let conn = try Self.connection()
        try conn.insert(Item(id: nil, name: "taken", score: 1, added: nil))
        let items = [
            Item(id: nil, name: "new", score: nil, added: nil),
            Item(id: nil, name: "taken", score: 99, added: nil),
            // Its own id, stored as given: the result tells it from the skipped one with an id below.
            Item(id: 10, name: "ten", score: 3, added: "then"),
            Item(id: 1, name: "other", score: 5, added: nil),
        ]
        let saved = try conn.insertOrIgnoreAndFetch(contentsOf: items)
        #expect(
            saved == [
                Item(id: 2, name: "new", score: 7, added: "today"), nil, items[2], nil,
            ])
        #expect(try conn.count(Item.self) == 3)
        #expect(try conn.fetchOne(Item.self, where: "id = 1")?.name == "taken")
        #expect(try conn.insertOrIgnoreAndFetch(contentsOf: [Item]()) == [])
    }

    @Test func insertOrIgnoreAndFetchTakesAnySequence() throws {
        let conn = try Self.connection()
        let saved = try conn.insertOrIgnoreAndFetch(
            contentsOf: ["a", "b", "a"].lazy.map { Item(id: nil, name: $0, score: nil, added: nil) })
        #expect(saved.map { $0?.id } == [1, 2, nil])
        #expect(saved.map { $0?.name } == ["a", "b", nil])
    }

    /// What the documentation of `insertAndFetch(contentsOf:onConflict: .ignore)` says: `changes`
    /// reports only the last record, `totalChanges` before and after counts the rows inserted.
    @Test func totalChangesCountsTheRowsInsertedUnderIgnore() throws {
        let conn = try Self.connection()
        try conn.insert(Item(id: nil, name: "taken", score: 1, added: nil))
        let before = conn.totalChanges
        let items = ["a", "b", "taken"].map { Item(id: nil, name: $0, score: nil, added: nil) }
        let saved = try conn.insertAndFetch(contentsOf: items, onConflict: .ignore)
        #expect(saved[2] == items[2])
        #expect(conn.changes == 0)
        #expect(conn.totalChanges - before == 2)
    }

    @Test func databaseInsertOrIgnoreAndFetch() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in try conn.execute(script: Self.schema) }
        let saved = try await db.insertOrIgnoreAndFetch(
            contentsOf: [
                Item(id: nil, name: "a", score: nil, added: nil), Item(id: nil, name: "a", score: 4, added: nil),
            ])
        #expect(saved == [Item(id: 1, name: "a", score: 7, added: "today"), nil])
        #expect(try await db.count(Item.self) == 1)
    }
}
