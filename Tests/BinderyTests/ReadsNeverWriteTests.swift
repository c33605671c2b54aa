import Dispatch
import Foundation
import Testing

@testable import Bindery

/// `Database.read` never writes, also where it runs on the writer connection (an in-memory database,
/// `readerCount` 0, a journal mode other than WAL): a write throws `SQLITE_READONLY`, as on a WAL
/// reader, and changes nothing; the next write works.
@Suite struct ReadsNeverWriteTests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var n: Int
    }

    enum Kind: String, CaseIterable, Sendable {
        case inMemory, noReaders, deleteJournal, walReaders
    }

    /// Runs `body` with a database of the given kind holding `items` with one row.
    private func withDatabase(_ kind: Kind, _ body: (Database) async throws -> Void) async throws {
        let prepare: (Database) async throws -> Void = { db in
            try await db.createTable(for: Item.self)
            try await db.insert(Item(id: nil, n: 1))
        }
        switch kind {
        case .inMemory:
            let db = try Database.inMemory()
            try await prepare(db)
            try await body(db)
            try await db.close()
        case .noReaders, .deleteJournal, .walReaders:
            var options = Database.Options(readerCount: kind == .walReaders ? 2 : 0)
            if kind == .deleteJournal {
                options.journalMode = .delete
            }
            try await DatabaseTestSupport.withDatabase(options: options) { db in
                #expect(db.hasReaders == (kind == .walReaders))
                try await prepare(db)
                try await body(db)
            }
        }
    }

    private func expectReadOnly(_ result: Result<some Any, any Error>, _ what: String) {
        guard case .failure(let error) = result else {
            Issue.record("\(what) wrote in a read")
            return
        }
        #expect((error as? SQLiteError)?.code == .readOnly, "\(what): \(error)")
    }

    @Test(arguments: Kind.allCases)
    func aReadCannotWrite(kind: Kind) async throws {
        try await withDatabase(kind) { db in
            let attempts: [(String, @Sendable (Connection) throws -> Void)] = [
                ("CREATE TABLE", { try $0.execute("CREATE TABLE other(x)") }),
                ("INSERT", { try $0.execute("INSERT INTO items(n) VALUES (\(2))") }),
                ("a record insert", { try $0.insert(Item(id: nil, n: 3)) }),
                ("UPDATE", { try $0.execute("UPDATE items SET n = n + 10") }),
                ("a script", { try $0.execute(script: "CREATE TABLE other(x); INSERT INTO items(n) VALUES (4)") }),
                (
                    "INSERT … RETURNING",
                    { _ = try $0.fetchAll(Item.self, sql: "INSERT INTO items(n) VALUES (5) RETURNING *") }
                ),
                ("a temporary table", { try $0.execute("CREATE TEMP TABLE scratch(x)") }),
                ("PRAGMA user_version", { try $0.execute("PRAGMA user_version = 7") }),
            ]
            for (what, attempt) in attempts {
                expectReadOnly(await Result { try await db.read(attempt) }, what)
            }
            expectReadOnly(
                await Result { try await db.fetchAll(Item.self, sql: "INSERT INTO items(n) VALUES (6) RETURNING *") },
                "Database.fetchAll")
            var cursorError: (any Error)?
            do {
                for try await _ in db.fetchCursor(Item.self, sql: "INSERT INTO items(n) VALUES (7) RETURNING *") {}
            } catch {
                cursorError = error
            }
            #expect((cursorError as? SQLiteError)?.code == .readOnly, "a cursor: \(String(describing: cursorError))")
            // Nothing changed.
            #expect(try await db.fetchAll(Item.self).map(\.n) == [1])
            #expect(try await db.fetchOne(Int.self, sql: "PRAGMA user_version") == 0)
            let tables = try await db.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema WHERE type = 'table'")
            #expect(tables == ["items"])
            // Reads still read, and the next write writes.
            #expect(try await db.read { conn in try conn.count(Item.self) } == 1)
            try await db.write { conn in
                try conn.execute(script: "CREATE TABLE other(x); INSERT INTO other VALUES (1)")
                try conn.insert(Item(id: nil, n: 2))
            }
            #expect(try await db.count(Item.self) == 2)
        }
    }

    @Test(arguments: [Kind.inMemory, .noReaders])
    func writesWorkAfterAReadThatThrowsOrIsCancelled(kind: Kind) async throws {
        try await withDatabase(kind) { db in
            struct Boom: Error {}
            await #expect(throws: Boom.self) {
                try await db.read { conn in
                    _ = try conn.count(Item.self)
                    throw Boom()
                }
            }
            try await db.insert(Item(id: nil, n: 2))
            await #expect(throws: Boom.self) {
                try await db.read { conn in
                    try? conn.execute(script: "INSERT INTO items(n) VALUES (99)")
                    throw Boom()
                }
            }
            try await db.write { conn in try conn.execute(script: "INSERT INTO items(n) VALUES (3)") }
            // A read cancelled while its closure runs: its next statement throws.
            let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
            let proceed = DispatchSemaphore(value: 0)
            let cancelled = Task {
                try await db.read { conn in
                    startedSignal.yield()
                    _ = proceed.wait(timeout: .now() + 10)
                    return try conn.count(Item.self)
                }
            }
            for await _ in started { break }
            cancelled.cancel()
            proceed.signal()
            let outcome = await cancelled.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            try await db.insert(Item(id: nil, n: 4))
            #expect(try await db.fetchAll(Item.self, orderBy: "n").map(\.n) == [1, 2, 3, 4])
        }
    }

    @Test func aConnectionRefusingWritesStillReadsAndCanWriteAfterwards() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let count = try conn.refusingWrites { try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM t") }
        #expect(count == 1)
        let error = try #require(throws: SQLiteError.self) {
            try conn.refusingWrites { try conn.execute("DELETE FROM t", arguments: []) }
        }
        #expect(error.code == .readOnly)
        #expect(error.sql == "DELETE FROM t")
        // A pragma that SQLite counts as a possible write but only reads still runs, as on a reader.
        let mode = try conn.refusingWrites { try conn.fetchOne(String.self, sql: "PRAGMA journal_mode") }
        #expect(mode == "memory")
        #expect(try conn.fetchOne(Int.self, sql: "PRAGMA query_only") == 0)
        try conn.execute("DELETE FROM t", arguments: [])
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }
}
