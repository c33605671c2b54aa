import CSQLite
import Foundation
import Testing

@testable import Bindery

/// A transaction that SQLite rolls back by itself while `transaction`'s body goes on: every later
/// statement of the body is refused (they would run in autocommit mode and commit one by one), the
/// transaction throws instead of committing, and nothing of it is kept.
@Suite struct SQLiteRollbackTests {
    typealias Support = ReliabilityTestSupport

    private struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var name: String
    }

    /// A database file with an `items` table holding one row, "before".
    private func makeDatabase(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("rollback.sqlite").path
        let setup = try Connection(path: path)
        try setup.createTable(for: Item.self)
        try setup.insert(Item(id: nil, name: "before"))
        setup.close()
        return path
    }

    /// The names in `items`, read through a connection of their own: what was committed.
    private func committedNames(at path: String) throws -> [String] {
        let reader = try Connection(path: path)
        defer { reader.close() }
        return try reader.fetchAll(String.self, sql: "SELECT name FROM items ORDER BY id")
    }

    /// Whether `error` is the refusal of a statement after SQLite's rollback.
    private func isRefusal(_ error: SQLiteError?) -> Bool {
        error?.code == .abort && error?.extendedCode == Connection.rolledBackBySQLite.extendedCode
            && error?.message == Connection.rolledBackBySQLite.message
    }

    @Test func statementsAfterSQLiteRolledBackTheTransactionAreRefusedAndNothingCommits() async throws {
        try await Support.withDirectory { directory in
            let path = try makeDatabase(in: directory)
            let conn = try Connection(path: path)
            var refusals: [Bool] = []
            let outer = #expect(throws: SQLiteError.self) {
                try conn.transaction(.immediate) { conn in
                    try conn.insert(Item(id: nil, name: "first half"))
                    // ON CONFLICT ROLLBACK ends the transaction under the scope (a script's ROLLBACK is refused).
                    do {
                        try conn.execute("INSERT OR ROLLBACK INTO items(id, name) VALUES (1, 'again')", arguments: [])
                    } catch {}
                    // Each way of running a statement is refused; the body catches and goes on.
                    let attempts: [(Connection) throws -> Void] = [
                        { try $0.insert(Item(id: nil, name: "second half")) },
                        { try $0.execute("INSERT INTO items(name) VALUES (\("second half"))") },
                        { try $0.execute("INSERT INTO items(name) VALUES (?)", arguments: [.text("second half")]) },
                        { try $0.execute(script: "INSERT INTO items(name) VALUES ('second half')") },
                        { _ = try $0.rows("SELECT count(*) FROM items") },
                        { _ = try $0.rowCursor("SELECT name FROM items", arguments: []) },
                        { _ = try $0.fetchCursor(String.self, sql: "SELECT name FROM items") },
                        { _ = try $0.transaction { try $0.insert(Item(id: nil, name: "second half")) } },
                    ]
                    for attempt in attempts {
                        do {
                            try attempt(conn)
                            refusals.append(false)
                        } catch let error as SQLiteError {
                            refusals.append(isRefusal(error))
                        }
                    }
                }
            }
            #expect(isRefusal(outer), "\(String(describing: outer))")
            #expect(refusals == Array(repeating: true, count: 8))
            #expect(!conn.isInTransaction)
            #expect(try committedNames(at: path) == ["before"])

            // Once the transaction's scope has ended, the connection works as before.
            _ = try conn.transaction { conn in try conn.insert(Item(id: nil, name: "after")) }
            try conn.insert(Item(id: nil, name: "autocommit"))
            #expect(try committedNames(at: path) == ["before", "after", "autocommit"])
            conn.close()
        }
    }

    @Test func anInterruptCaughtInsideAWriteCommitsNothingOfTheWrite() async throws {
        try await Support.withDirectory { directory in
            let path = try makeDatabase(in: directory)
            let db = try Database(path: path)
            let outcome = await #expect(throws: SQLiteError.self) {
                try await db.write { conn in
                    try conn.insert(Item(id: nil, name: "first half"))
                    do {
                        // A progress handler that asks to stop interrupts the next statement while it
                        // runs (SQLITE_INTERRUPT, as `sqlite3_interrupt` does): it is a write inside a
                        // transaction, so SQLite rolls the whole transaction back.
                        sqlite3_progress_handler(conn.handle, 1, { _ in 1 }, nil)
                        defer { sqlite3_progress_handler(conn.handle, 0, nil, nil) }
                        try conn.execute("UPDATE items SET name = \("changed")")
                    } catch let error as SQLiteError where error.code == .interrupt {
                        // Handled: carry on with the rest of the write.
                    }
                    _ = try? conn.insert(Item(id: nil, name: "second half"))
                    try? conn.execute("UPDATE items SET name = \("changed") WHERE name = \("before")")
                }
            }
            #expect(isRefusal(outcome), "\(String(describing: outcome))")
            #expect(try await db.count(Item.self) == 1)
            #expect(try committedNames(at: path) == ["before"])
            // The writer takes the next write as usual.
            try await db.insert(Item(id: nil, name: "after"))
            #expect(try committedNames(at: path) == ["before", "after"])
            try await db.close()
        }
    }
}
