import Foundation
import Testing

@testable import Bindery

/// `Database.close()` while a `DatabaseCursor` is held: closing ends in bounded time (it waited for
/// ever for an iterator kept after its first value), the cursor hands out what it decoded, then throws
/// `DatabaseError.closed`, never a silent end of the rows.
@Suite struct CursorCloseTests {
    /// Set once by the task it watches; read by the test while it waits.
    final class Flag: @unchecked Sendable {
        // @unchecked Sendable is safe: `value` is read and written only while `lock` is held.
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    /// Whether `flag` was set within `seconds`.
    static func waitFor(_ flag: Flag, seconds: Double) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !flag.isSet, Date() < deadline {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        return flag.isSet
    }

    /// A database with `rows` rows in `items`.
    static func makeDatabase(_ db: Database, rows: Int) async throws {
        try await db.write { conn in
            try conn.execute(script: "CREATE TABLE items(n INTEGER PRIMARY KEY)")
            try conn.execute(
                """
                WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(rows))
                INSERT INTO items(n) SELECT i FROM s
                """)
        }
    }

    /// Closes `db` in a task of its own; returns whether the close ended within `seconds`, and the task.
    static func close(_ db: Database, within seconds: Double) async throws -> (Bool, Task<Void, any Error>) {
        let closed = Flag()
        let closing = Task {
            defer { closed.set() }
            try await db.close()
        }
        return (try await waitFor(closed, seconds: seconds), closing)
    }

    /// Takes every value left in `iterator`; returns them with the error that ended them.
    static func drain(_ iterator: inout DatabaseCursor<Int>.Iterator) async -> ([Int], (any Error)?) {
        var values: [Int] = []
        do {
            while let value = try await iterator.next() {
                values.append(value)
            }
            return (values, nil)
        } catch {
            return (values, error)
        }
    }

    @Test func anIteratorKeptAfterItsFirstValueDoesNotHoldCloseBack() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("cursor.sqlite").path
            let db = try Database(path: path, options: Database.Options(readerCount: 1))
            try await Self.makeDatabase(db, rows: 300)
            var iterator = db.fetchCursor(Int.self, sql: "SELECT n FROM items ORDER BY n").makeAsyncIterator()
            #expect(try await iterator.next() == 1)

            let (closed, closing) = try await Self.close(db, within: 120)
            #expect(closed, "close() did not return while a cursor's iterator was kept")
            // The values of the first batch were decoded before the close; the next batch is refused.
            let (values, error) = await Self.drain(&iterator)
            #expect(values == Array(2...DatabaseCursor<Int>.batchSize))
            #expect((error as? DatabaseError) == .closed)
            try await closing.value
            await #expect(throws: DatabaseError.closed) { try await db.fetchAll(Int.self, sql: "SELECT 1") }
        }
    }

    @Test func closeInterruptsABatchInProgress() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("slow.sqlite").path
            let db = try Database(path: path, options: Database.Options(readerCount: 1))
            try await Self.makeDatabase(db, rows: 1)
            // A first row that takes minutes to compute.
            let slow: SQL = """
                WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000000000)
                SELECT sum(i) FROM c
                """
            let started = Flag()
            let reading = Task {
                var iterator = db.fetchCursor(Int.self, sql: slow).makeAsyncIterator()
                started.set()
                return try await iterator.next()
            }
            #expect(try await Self.waitFor(started, seconds: 10))
            try await Task.sleep(nanoseconds: 200_000_000)
            let clock = ContinuousClock()
            let start = clock.now
            let (closed, closing) = try await Self.close(db, within: 120)
            #expect(closed, "close() did not interrupt the cursor's batch")
            // The query alone would run for many minutes; the bound is loose for a loaded machine.
            #expect(clock.now - start < .seconds(60))
            await #expect(throws: DatabaseError.closed) { try await reading.value }
            try await closing.value
        }
    }

    @Test func aCursorWaitingForAReaderWhenTheDatabaseClosesThrowsClosed() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("waiting.sqlite").path
            let db = try Database(path: path, options: Database.Options(readerCount: 1))
            try await Self.makeDatabase(db, rows: 300)
            var holder = db.fetchCursor(Int.self, sql: "SELECT n FROM items ORDER BY n").makeAsyncIterator()
            #expect(try await holder.next() == 1)
            // The only reader is held: this one waits for it.
            let waiting = Task {
                var iterator = db.fetchCursor(Int.self, sql: "SELECT n FROM items ORDER BY n").makeAsyncIterator()
                return try await iterator.next()
            }
            try await Task.sleep(nanoseconds: 100_000_000)
            let (closed, closing) = try await Self.close(db, within: 120)
            #expect(closed)
            await #expect(throws: DatabaseError.closed) { try await waiting.value }
            let (values, error) = await Self.drain(&holder)
            #expect(values == Array(2...DatabaseCursor<Int>.batchSize))
            #expect((error as? DatabaseError) == .closed)
            try await closing.value
        }
    }

    @Test func aCursorOnTheWriterIsRefusedAfterClose() async throws {
        let db = try Database.inMemory()
        try await Self.makeDatabase(db, rows: 300)
        var iterator = db.fetchCursor(Int.self, sql: "SELECT n FROM items ORDER BY n").makeAsyncIterator()
        #expect(try await iterator.next() == 1)
        let (closed, closing) = try await Self.close(db, within: 120)
        #expect(closed)
        let (values, error) = await Self.drain(&iterator)
        #expect(values == Array(2...DatabaseCursor<Int>.batchSize))
        #expect((error as? DatabaseError) == .closed)
        try await closing.value
    }
}
