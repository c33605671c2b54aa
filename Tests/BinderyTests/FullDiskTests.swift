import Foundation
import Testing

@testable import Bindery

/// A database that runs out of room (`PRAGMA max_page_count` set just above its size): a write that
/// no longer fits throws ``SQLiteError/Code/full`` and leaves nothing behind, what was committed
/// before stays intact, and once rows are deleted the database takes writes again.
@Suite struct FullDiskTests {
    typealias Support = ReliabilityTestSupport

    struct Entry: Record, Equatable {
        static let tableName = "entries"
        var id: Int64?
        var body: Data
    }

    private func entries(_ count: Int, size: Int, fill: UInt8) -> [Entry] {
        (0..<count).map { _ in Entry(id: nil, body: Data(repeating: fill, count: size)) }
    }

    /// Opens a WAL database in `directory` with 50 entries of 1 kB and another table, then caps its
    /// writer connection at `headroom` pages above its size.
    private func nearlyFullDatabase(in directory: URL, headroom: Int = 4) async throws -> Database {
        let db = try Database(path: directory.appendingPathComponent("full.sqlite").path)
        try await db.write { conn in
            try conn.createTable(for: Entry.self)
            try conn.execute(script: "CREATE TABLE other(id INTEGER PRIMARY KEY, note TEXT NOT NULL)")
            try conn.execute("INSERT INTO other(note) VALUES (\("kept")), (\("also kept"))")
        }
        try await db.insert(contentsOf: entries(50, size: 1000, fill: 7))
        let (pages, limit) = try await db.writeWithoutTransaction { conn in
            let pages = try conn.fetchOne(Int.self, sql: "PRAGMA page_count") ?? 0
            // PRAGMA takes no parameters; the number is ours, not a user's.
            let limit = try conn.fetchOne(Int.self, sql: "PRAGMA max_page_count = \(raw: String(pages + headroom))")
            return (pages, limit ?? 0)
        }
        try #require(limit == pages + headroom)
        return db
    }

    @Test func aWriteThatDoesNotFitThrowsFullAndCommitsNothing() async throws {
        try await Support.withDirectory { directory in
            let db = try await nearlyFullDatabase(in: directory)
            let before = try await db.read { conn in try Support.checksum(conn) }

            // The first insert fits, the bulk insert after it does not: neither is kept.
            let error = await #expect(throws: SQLiteError.self) {
                try await db.write { conn in
                    try conn.insert(Entry(id: nil, body: Data(repeating: 1, count: 100)))
                    try conn.execute("UPDATE other SET note = \("changed")")
                    try conn.insert(contentsOf: entries(100, size: 4000, fill: 2))
                }
            }
            #expect(error?.code == .full, "\(String(describing: error))")
            // One value bigger than the room left, alone.
            let single = await #expect(throws: SQLiteError.self) {
                try await db.insert(Entry(id: nil, body: Data(repeating: 3, count: 64 * 1024)))
            }
            #expect(single?.code == .full)

            #expect(try await db.read { conn in try Support.checksum(conn) } == before)
            #expect(try await db.count(Entry.self) == 50)
            #expect(try await db.integrityCheck() == [])
            try await db.close()
        }
    }

    @Test func deletingRowsMakesRoomAgain() async throws {
        try await Support.withDirectory { directory in
            let db = try await nearlyFullDatabase(in: directory)
            await #expect(throws: SQLiteError.self) {
                try await db.insert(contentsOf: entries(40, size: 1000, fill: 9))
            }
            // Deleting needs no new pages; the freed ones hold the next writes.
            let removed = try await db.delete(Entry.self, where: "id <= \(40)")
            #expect(removed == 40)
            let inserted = try await db.insert(contentsOf: entries(30, size: 1000, fill: 9))
            #expect(inserted == 30)
            #expect(try await db.count(Entry.self) == 40)
            let notes = try await db.read { conn in
                try conn.fetchAll(String.self, sql: "SELECT note FROM other ORDER BY id")
            }
            #expect(notes == ["kept", "also kept"])
            #expect(try await db.integrityCheck() == [])

            // Raising the limit again lifts the cap for good.
            try await db.writeWithoutTransaction { conn in try conn.execute(script: "PRAGMA max_page_count = 1000000") }
            #expect(try await db.insert(contentsOf: entries(200, size: 1000, fill: 4)) == 200)
            try await db.close()
        }
    }

    @Test func aFullDatabaseStillServesReads() async throws {
        try await Support.withDirectory { directory in
            let db = try await nearlyFullDatabase(in: directory, headroom: 0)
            await #expect(throws: SQLiteError.self) {
                try await db.insert(Entry(id: nil, body: Data(repeating: 5, count: 5000)))
            }
            let stored = try await db.fetchAll(Entry.self, orderBy: "id")
            #expect(stored.count == 50)
            #expect(stored.allSatisfy { $0.body == Data(repeating: 7, count: 1000) })
            try await db.close()
        }
    }

    /// The body of a write catches the `full` error of one statement and goes on. SQLite has rolled
    /// the whole transaction back by then (a one-row statement has no statement journal to roll back
    /// alone), so the write must not commit half of the body: either it throws and nothing is
    /// kept, or all that the body did after the error is kept with all it did before.
    ///
    /// The statements the body runs after SQLite's rollback would run in autocommit mode and commit
    /// one by one: `Connection` refuses them while its `transaction` is open and SQLite is in
    /// autocommit mode, and the write throws.
    @Test func aFullErrorCaughtInsideAWriteDoesNotCommitHalfOfIt() async throws {
        try await Support.withDirectory { directory in
            let db = try await nearlyFullDatabase(in: directory)
            var threw = false
            do {
                try await db.write { conn in
                    try conn.execute("UPDATE other SET note = \("first half") WHERE id = \(1)")
                    do {
                        _ = try conn.transaction { conn in
                            try conn.insert(contentsOf: entries(100, size: 4000, fill: 2))
                        }
                    } catch let error as SQLiteError where error.code == .full {
                        // Handled: carry on with the rest of the transaction.
                    }
                    try conn.execute("UPDATE other SET note = \("second half") WHERE id = \(2)")
                }
            } catch {
                threw = true
            }
            let notes = try await db.read { conn in
                try conn.fetchAll(String.self, sql: "SELECT note FROM other ORDER BY id")
            }
            if threw {
                #expect(notes == ["kept", "also kept"], "the write threw, yet part of it was committed")
            } else {
                #expect(notes == ["first half", "second half"])
            }
            try await db.close()
        }
    }
}
