import Foundation
import Testing

@testable import Bindery

@Suite("Sync capture")
struct SyncCaptureTests {
    static func outbox(_ db: Database) async throws -> [SyncState.Pending] {
        try await db.read { try SyncState.pending(on: $0) }
    }

    static func syncedDatabase(path: String? = nil, tables: [SyncTable]? = nil) throws -> Database {
        var options = Database.Options()
        options.sync = SyncConfiguration(tables: tables ?? [SyncTable(SyncTodo.self)])
        if let path {
            return try Database(path: path, options: options)
        }
        return try Database.inMemory(options: options)
    }

    static let schema = """
        CREATE TABLE todos(id TEXT PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL, rank INTEGER NOT NULL);
        CREATE TABLE local_notes(id INTEGER PRIMARY KEY, body TEXT);
        """

    @Test func eachCommittedTransactionIsOneChangesetInTheOutbox() async throws {
        let db = try Self.syncedDatabase()
        try await db.write { try $0.execute(script: Self.schema) }
        #expect(try await Self.outbox(db).isEmpty)
        try await db.write { conn in
            try conn.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
            try conn.insert(SyncTodo(id: "2", title: "bread", done: false, rank: 2))
            try conn.execute("UPDATE todos SET done = 1 WHERE id = '1'", arguments: [])
        }
        let outbox = try await Self.outbox(db)
        #expect(outbox.count == 1)
        let changeset = try Changeset(parsing: try #require(outbox.first).changeset)
        #expect(changeset.tables.map(\.name) == ["todos"])
        // The insert then update of row 1 is one insert of the row as committed.
        #expect(changeset.tables[0].changes.map(\.operation) == [.insert, .insert])
        let first = try #require(changeset.tables[0].changes.first { $0.new[0] == .text("1") })
        #expect(first.new[2] == .integer(1))
    }

    @Test func rolledBackAndUnsyncedWritesRecordNothing() async throws {
        let db = try Self.syncedDatabase()
        try await db.write { try $0.execute(script: Self.schema) }
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await db.write { conn in
                try conn.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
                throw Stop()
            }
        }
        try await db.write { try $0.execute("INSERT INTO local_notes(body) VALUES ('x')", arguments: []) }
        // A savepoint rolled back inside a committed transaction leaves nothing either.
        try await db.write { conn in
            _ = try? conn.transaction { conn in
                try conn.insert(SyncTodo(id: "2", title: "bread", done: false, rank: 1))
                throw Stop()
            }
        }
        #expect(try await Self.outbox(db).isEmpty)
        // The next transaction records only its own change.
        try await db.insert(SyncTodo(id: "3", title: "eggs", done: false, rank: 1))
        let outbox = try await Self.outbox(db)
        #expect(outbox.count == 1)
        let changes = try Changeset(parsing: outbox[0].changeset).tables[0].changes
        #expect(changes.count == 1)
        #expect(changes[0].new[0] == .text("3"))
    }

    @Test func updatesAreRecordedWithTheWholeRow() async throws {
        let db = try Self.syncedDatabase()
        try await db.write { try $0.execute(script: Self.schema) }
        try await db.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await db.write { try $0.execute("UPDATE todos SET done = 1 WHERE id = '1'", arguments: []) }
        let outbox = try await Self.outbox(db)
        let update = try Changeset(parsing: outbox[1].changeset).tables[0].changes[0]
        #expect(update.operation == .update)
        #expect(update.old == [.text("1"), .text("milk"), .integer(0), .integer(1)])
        #expect(update.new == [.text("1"), .text("milk"), .integer(1), .integer(1)])
    }

    @Test func aWriteOutsideATransactionIsRefusedNotLost() async throws {
        let db = try Self.syncedDatabase()
        try await db.write { try $0.execute(script: Self.schema) }
        await #expect(throws: SQLiteError.self) {
            try await db.writeWithoutTransaction { conn in
                try conn.execute("INSERT INTO todos VALUES ('1', 'milk', 0, 1)", arguments: [])
            }
        }
        #expect(try await db.count(SyncTodo.self) == 0)
        // Unsynced tables are written as before.
        try await db.writeWithoutTransaction { conn in
            try conn.execute("INSERT INTO local_notes(body) VALUES ('x')", arguments: [])
        }
        try await db.insert(SyncTodo(id: "2", title: "bread", done: false, rank: 1))
        #expect(try await Self.outbox(db).count == 1)
    }

    @Test func aRefusedWriteDoesNotRefuseTheNextWritesOfOtherTables() async throws {
        // A file database: reads go to reader connections, so no transaction runs on the writer between
        // the refused write and the next one.
        let path = Self.crashPath("refused-\(UUID().uuidString)")
        defer { Self.removeDatabase(path) }
        let db = try Self.syncedDatabase(path: path)
        try await db.write { try $0.execute(script: Self.schema) }
        for _ in 0..<2 {
            await #expect(throws: SQLiteError.self) {
                try await db.writeWithoutTransaction { conn in
                    try conn.execute("INSERT INTO todos VALUES ('1', 'milk', 0, 1)", arguments: [])
                }
            }
            try await db.writeWithoutTransaction { conn in
                try conn.execute("INSERT INTO local_notes(body) VALUES ('x')", arguments: [])
            }
        }
        #expect(try await db.count(SyncTodo.self) == 0)
        #expect(try await db.read { try $0.rows("SELECT * FROM local_notes", arguments: []) }.count == 2)
        #expect(try await Self.outbox(db).isEmpty)
        try await db.close()
    }

    @Test func columnsChangedAfterRowsInOneTransactionAreRefused() async throws {
        // One column dropped and one added keep the count: the row changed before cannot be told in
        // the columns as they are.
        let db = try Self.syncedDatabase()
        try await db.write { try $0.execute(script: Self.schema) }
        try await db.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        do {
            try await db.write { conn in
                try conn.execute("UPDATE todos SET title = 'bread' WHERE id = '1'", arguments: [])
                try conn.execute(script: "ALTER TABLE todos DROP COLUMN rank; ALTER TABLE todos ADD COLUMN due TEXT")
            }
            Issue.record("a row changed before its table's columns changed was recorded")
        } catch let error as SQLiteError {
            #expect(error.code == .schema)
            #expect(error.message.contains("the columns of table todos changed"))
        }
        // Nothing of it was committed; the same migration alone, and then a change, are recorded.
        #expect(try await Self.outbox(db).count == 1)
        try await db.write { conn in
            try conn.execute(script: "ALTER TABLE todos DROP COLUMN rank; ALTER TABLE todos ADD COLUMN due TEXT")
            try conn.execute("UPDATE todos SET title = 'bread' WHERE id = '1'", arguments: [])
        }
        let last = try #require(try await Self.outbox(db).last)
        let change = try #require(try Changeset(parsing: last.changeset).tables.first?.changes.first)
        #expect(change.old == [.text("1"), .text("milk"), .integer(0), .null])
        #expect(change.new == [.text("1"), .text("bread"), .integer(0), .null])
    }

    @Test func virtualGeneratedColumnsAreRefusedAndStoredOnesSynced() async throws {
        let db = try Self.syncedDatabase(tables: [SyncTable("shapes"), SyncTable("boxes")])
        do {
            try await db.write {
                try $0.execute(script: "CREATE TABLE shapes(id TEXT PRIMARY KEY, w INTEGER, area INTEGER AS (w * w))")
            }
            Issue.record("a VIRTUAL generated column was accepted")
        } catch SyncError.unsupportedColumn(let table, let column, let reason) {
            #expect(table == "shapes" && column == "area")
            #expect(reason.contains("STORED"))
        }
        try await db.write {
            try $0.execute(
                script: """
                    CREATE TABLE boxes(id TEXT PRIMARY KEY, w INTEGER, area INTEGER AS (w * w) STORED, label TEXT);
                    INSERT INTO boxes(id, w, label) VALUES ('b', 3, 'box');
                    """)
        }
        try await db.write { try $0.execute(script: "UPDATE boxes SET w = 4 WHERE id = 'b'") }
        let last = try #require(try await Self.outbox(db).last)
        let change = try #require(try Changeset(parsing: last.changeset).tables.first?.changes.first)
        #expect(change.old == [.text("b"), .integer(3), .text("box")])
        #expect(change.new == [.text("b"), .integer(4), .text("box")])
    }

    @Test func integerPrimaryKeysAndTablesWithoutKeyAreRefused() async throws {
        // Creating a synced table with a rowid key, or without a key, fails and rolls back.
        let db = try Self.syncedDatabase(tables: [SyncTable("counters"), SyncTable("loose")])
        do {
            try await db.write { try $0.execute(script: "CREATE TABLE counters(id INTEGER PRIMARY KEY, n INTEGER)") }
            Issue.record("an INTEGER PRIMARY KEY was accepted")
        } catch SyncError.unsafeKey(let table, let reason) {
            #expect(table == "counters")
            #expect(reason.contains("UUID"))
        }
        await #expect(throws: SyncError.self) {
            try await db.write { try $0.execute(script: "CREATE TABLE loose(a TEXT, b TEXT)") }
        }
        let tables = try await db.read {
            try $0.rows("SELECT name FROM sqlite_schema WHERE name IN ('counters', 'loose')", arguments: [])
        }
        #expect(tables.isEmpty)

        // A table made before sync was turned on is refused when a copy opens, and its writes fail.
        let path = Self.crashPath("keys-\(UUID().uuidString)")
        defer { Self.removeDatabase(path) }
        let plain = try Database(path: path)
        try await plain.write { try $0.execute(script: "CREATE TABLE counters(id INTEGER PRIMARY KEY, n INTEGER)") }
        try await plain.close()
        let synced = try Self.syncedDatabase(path: path, tables: [SyncTable("counters")])
        let hub = try await SyncHub.inMemory()
        do {
            _ = try await SyncCopy(database: synced, transport: InProcessSyncTransport(hub: hub))
            Issue.record("a copy opened over a table with a rowid key")
        } catch SyncError.unsafeKey(let table, _) {
            #expect(table == "counters")
        }
        await #expect(throws: SyncError.self) {
            try await synced.write { try $0.execute("INSERT INTO counters(n) VALUES (1)", arguments: []) }
        }
        #expect(try await synced.read { try $0.rows("SELECT * FROM counters", arguments: []) }.isEmpty)

        // A WITHOUT ROWID table with an INTEGER key is the app's own numbering: allowed.
        let other = try Self.syncedDatabase(tables: [SyncTable("days")])
        try await other.write { conn in
            try conn.execute(script: "CREATE TABLE days(day INTEGER PRIMARY KEY, note TEXT) WITHOUT ROWID")
            try conn.execute("INSERT INTO days VALUES (1, 'x')", arguments: [])
        }
        #expect(try await Self.outbox(other).count == 1)
    }

    @Test func aSQLiteWithoutSessionsIsNamed() throws {
        let connection = try Connection.inMemory()
        #expect(throws: SyncError.sessionExtensionUnavailable(missingOption: "SQLITE_ENABLE_SESSION")) {
            _ = try SyncCapture(
                configuration: SyncConfiguration(tables: []), connection: connection,
                missingOption: "SQLITE_ENABLE_SESSION")
        }
        #expect(ChangeRecorder.missingCompileOption == nil)
    }

    @Test func aDatabaseOpenedWithoutSyncIsRefusedByACopy() async throws {
        let db = try Database.inMemory()
        await #expect(throws: SyncError.notSynced) {
            _ = try await SyncCopy(database: db, transport: InProcessSyncTransport(hub: try await SyncHub.inMemory()))
        }
    }

    @Test func pulledChangesAreNotCapturedAgainAndObservationSeesThem() async throws {
        let fixture = try await SyncFixture.make()
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        var counts = b.database.observe { try $0.count(SyncTodo.self) }.makeAsyncIterator()
        #expect(try await counts.next() == 0)
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await a.push()
        #expect(try await b.pull() == 1)
        #expect(try await counts.next() == 1)
        #expect(try await Self.outbox(b.database).isEmpty)
        #expect(try await b.status().pendingChangesets == 0)
    }

    // MARK: Crashes

    static func crashPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bindery-sync-crash-\(name).sqlite").path
    }

    static func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// Killed inside a write transaction: neither the row nor an outbox entry survives.
    @Test func killedBeforeCommitLeavesNeitherRowNorChangeset() async throws {
        let path = Self.crashPath("before-\(UUID().uuidString)")
        defer { Self.removeDatabase(path) }
        let db = try Self.syncedDatabase(path: path)
        try await db.write { try $0.execute(script: Self.schema) }
        try await db.insert(SyncTodo(id: "0", title: "kept", done: false, rank: 0))
        try await db.close()
        await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String] in
            let db = try SyncCaptureTests.syncedDatabase(path: path)
            try await db.write { conn in
                try conn.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
                kill(getpid(), SIGKILL)
            }
        }
        let reopened = try Self.syncedDatabase(path: path)
        #expect(try await reopened.fetchAll(SyncTodo.self).map(\.id) == ["0"])
        #expect(try await Self.outbox(reopened).count == 1)
    }

    /// Killed right after a commit: the row and its changeset both survive.
    @Test func killedAfterCommitKeepsRowAndChangeset() async throws {
        let path = Self.crashPath("after-\(UUID().uuidString)")
        defer { Self.removeDatabase(path) }
        let db = try Self.syncedDatabase(path: path)
        try await db.write { try $0.execute(script: Self.schema) }
        try await db.close()
        await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String] in
            let db = try SyncCaptureTests.syncedDatabase(path: path)
            try await db.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
            kill(getpid(), SIGKILL)
        }
        let reopened = try Self.syncedDatabase(path: path)
        #expect(try await reopened.fetchAll(SyncTodo.self).map(\.id) == ["1"])
        let outbox = try await Self.outbox(reopened)
        #expect(outbox.count == 1)
        #expect(try Changeset(parsing: outbox[0].changeset).changeCount == 1)
    }
}
