import Foundation
import Testing

@testable import Bindery

/// `insertAndFetch(contentsOf:)` and `insertOrIgnoreAndFetch(contentsOf:)` return each record's row as
/// its own INSERT stored it, triggers included, as `insert` returns one, whether the record went in a
/// multi-row batch or one by one: a later record of the same batch that replaces its row (same key,
/// ``ConflictPolicy/replace``), or whose trigger changes it, does not change what comes back for it.
/// Each call is compared with `insert` of each record on a second connection, and with the same call
/// on a table without the trigger.
@Suite struct BatchReturningAfterTriggersTests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64
        var name: String
        var n: Int
    }

    static let table = "CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, n INTEGER NOT NULL);"
    /// A trigger that writes another table only.
    static let logging = """
        CREATE TABLE log(id INTEGER PRIMARY KEY, what TEXT NOT NULL);
        CREATE TRIGGER items_log AFTER INSERT ON items BEGIN INSERT INTO log(what) VALUES (new.name); END;
        """
    /// A trigger that changes the row inserted before this one.
    static let bumping = """
        CREATE TRIGGER items_bump AFTER INSERT ON items BEGIN UPDATE items SET n = n + 1000 WHERE id = new.id - 1; END;
        """

    private static func connection(_ schema: String) throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: schema)
        return conn
    }

    /// 150 records (a batch of 100 and 50 one by one), the 21st with the 5th's key.
    private static let replacing: [Item] = (1...150).map { i in
        i == 21 ? Item(id: 5, name: "again", n: 999) : Item(id: Int64(i), name: "r\(i)", n: i)
    }

    @Test func aRecordReplacedByALaterOneOfItsBatchComesBackAsItsInsertStoredIt() throws {
        let logged = try Self.connection(Self.table + Self.logging)
        let stored = try logged.insertAndFetch(contentsOf: Self.replacing, onConflict: .replace)
        let plain = try Self.connection(Self.table + Self.logging)
        let oneByOne = try Self.replacing.map { try plain.insert($0, onConflict: .replace) }
        let withoutTrigger = try Self.connection(Self.table).insertAndFetch(
            contentsOf: Self.replacing, onConflict: .replace)
        #expect(stored[4] == Item(id: 5, name: "r5", n: 5))
        #expect(stored[20] == Item(id: 5, name: "again", n: 999))
        #expect(stored == oneByOne)
        #expect(stored == withoutTrigger)
        #expect(try logged.fetchCount(Item.all()) == 149)
    }

    @Test func aRecordWhoseRowALaterRecordsTriggerChangesComesBackAsItsInsertStoredIt() throws {
        let records = (1...150).map { Item(id: Int64($0), name: "r\($0)", n: $0) }
        let bumped = try Self.connection(Self.table + Self.bumping)
        let stored = try bumped.insertAndFetch(contentsOf: records)
        let plain = try Self.connection(Self.table + Self.bumping)
        let oneByOne = try records.map { try plain.insert($0) }
        #expect(stored == records)
        #expect(stored == oneByOne)
        // The table holds every row but the last bumped once, on both connections.
        let rows = try bumped.fetchAll(Item.all().order("id"))
        #expect(rows == (try plain.fetchAll(Item.all().order("id"))))
        #expect(rows.map(\.n) == (1...150).map { $0 == 150 ? 150 : $0 + 1000 })
    }

    @Test func insertOrIgnoreAndFetchReturnsEachRowAsItsInsertStoredIt() throws {
        let records = (1...150).map { Item(id: Int64($0), name: "r\($0)", n: $0) }
        let bumped = try Self.connection(Self.table + Self.bumping)
        let stored = try bumped.insertOrIgnoreAndFetch(contentsOf: records)
        #expect(stored == records.map { Optional($0) })
    }

    @Test func rowsATriggerLeftAsReturnedStayInBatches() throws {
        // The trigger writes another table only: each row read back is as `RETURNING` gave it.
        let records = (1...250).map { Item(id: Int64($0), name: "r\($0)", n: $0) }
        let logged = try Self.connection(Self.table + Self.logging)
        #expect(try logged.insertAndFetch(contentsOf: records, onConflict: .replace) == records)
        #expect(logged.recordContext.batchedRecordCount == 200)
        #expect(try logged.fetchOne(Int.self, sql: "SELECT count(*) FROM log") == 250)
    }

    @Test func throughTheDatabase() async throws {
        let db = try Database.inMemory()
        try await db.write { try $0.execute(script: Self.table + Self.logging) }
        let stored = try await db.insertAndFetch(contentsOf: Self.replacing, onConflict: .replace)
        let withoutTrigger = try Self.connection(Self.table).insertAndFetch(
            contentsOf: Self.replacing, onConflict: .replace)
        #expect(stored == withoutTrigger)
    }
}
