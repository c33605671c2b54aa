import Foundation
import Testing

@testable import Bindery

/// `Database.rows` and `Database.fetchCursor`: the read helpers of `Connection` on the actor, the
/// cursor as an asynchronous sequence that holds one reader while it is iterated.
@Suite(.timeLimit(.minutes(1))) struct DatabaseReadingTests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var n: Int
    }

    /// Counts the values decoded so far, across threads.
    final class DecodeCounter: @unchecked Sendable {
        // @unchecked Sendable: `count` is only touched under `lock`.
        private let lock = NSLock()
        private var count = 0

        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    /// A value whose decodings are counted (in one test only: decoding runs on the readers' threads).
    struct Counted: Decodable, Sendable {
        static let counter = DecodeCounter()
        let n: Int

        init(from decoder: any Decoder) throws {
            n = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .n)
            Counted.counter.add()
        }

        private enum CodingKeys: String, CodingKey { case n }
    }

    static func makeDatabase(_ directory: URL, readerCount: Int = 4, rows: Int) async throws -> Database {
        let db = try Database(
            path: directory.appendingPathComponent("items.sqlite").path,
            options: Database.Options(readerCount: readerCount))
        try await db.createTable(for: Item.self)
        try await db.insert(contentsOf: (1...rows).map { Item(id: nil, n: $0) })
        return db
    }

    /// Runs `readerCount` reads that each wait until all of them are running at once: they finish
    /// only when every reader of the pool is free.
    static func expectEveryReaderFree(_ db: Database, readerCount: Int) async throws {
        // A reader comes back just after its statement is reset on its queue: wait for it a little,
        // and fail (rather than wait forever for a reader that never comes back) after that.
        let pool = try #require(db.readers)
        let deadline = ContinuousClock.now + .seconds(10)
        while pool.idleCount < readerCount, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        try #require(pool.idleCount == readerCount, "a reader was not given back")
        let running = DecodeCounter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<readerCount {
                group.addTask {
                    try await db.read { _ in
                        running.add()
                        let deadline = ContinuousClock.now + .seconds(10)
                        while running.value < readerCount {
                            guard ContinuousClock.now < deadline else {
                                throw CancellationError()
                            }
                            usleep(1000)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func rowsReadOnAReader() async throws {
        try await ReliabilityTestSupport.withDirectory { directory in
            let db = try await Self.makeDatabase(directory, rows: 3)
            let rows = try await db.rows("SELECT id, n FROM items WHERE n >= \(2) ORDER BY n")
            #expect(rows.count == 2)
            #expect(try rows.map { try $0["n"] as Int } == [2, 3])
            #expect(rows[0].columnNames == ["id", "n"])
            await #expect(throws: SQLiteError.self) { try await db.rows("SELECT nope FROM items") }
            try await db.close()
        }
    }

    @Test func aCursorYieldsEveryRowInOrder() async throws {
        try await ReliabilityTestSupport.withDirectory { directory in
            let count = DatabaseCursor<Item>.batchSize * 3 + 5
            let db = try await Self.makeDatabase(directory, rows: count)
            var seen: [Int] = []
            for try await item in db.fetchCursor(Item.self, sql: "SELECT * FROM items ORDER BY n DESC") {
                seen.append(item.n)
            }
            #expect(seen == Array((1...count).reversed()))
            var some: [Int] = []
            for try await item in db.fetchCursor(Item.self, where: "n <= \(3)", orderBy: "n") {
                some.append(item.n)
            }
            #expect(some == [1, 2, 3])
            // An empty result ends at once, and a sequence runs its query again on each iteration.
            let none = db.fetchCursor(Int.self, sql: "SELECT n FROM items WHERE n < 0")
            for try await _ in none { Issue.record("a row of an empty result") }
            let twice = db.fetchCursor(Int.self, sql: "SELECT count(*) FROM items")
            for _ in 0..<2 {
                var counts: [Int] = []
                for try await value in twice { counts.append(value) }
                #expect(counts == [count])
            }
            try await Self.expectEveryReaderFree(db, readerCount: 4)
            try await db.close()
        }
    }

    /// The first value arrives after one batch is decoded, not the whole result.
    @Test func aCursorDecodesOneBatchAtATime() async throws {
        try await ReliabilityTestSupport.withDirectory { directory in
            let db = try await Self.makeDatabase(directory, rows: 2000)
            let counter = Counted.counter
            var iterator = db.fetchCursor(Counted.self, sql: "SELECT n FROM items ORDER BY n").makeAsyncIterator()
            #expect(counter.value == 0)
            #expect(try await iterator.next()?.n == 1)
            #expect(counter.value == DatabaseCursor<Counted>.batchSize)
            var last = 1
            while let value = try await iterator.next() {
                #expect(value.n == last + 1)
                last = value.n
                #expect(counter.value - last < DatabaseCursor<Counted>.batchSize)
            }
            #expect(last == 2000)
            #expect(counter.value == 2000)
            try await db.close()
        }
    }

    /// Stopping a loop early gives the reader back: afterwards every reader serves reads at once.
    @Test(arguments: [1, 4]) func anEarlyBreakReleasesTheReader(readerCount: Int) async throws {
        try await ReliabilityTestSupport.withDirectory { directory in
            let db = try await Self.makeDatabase(directory, readerCount: readerCount, rows: 500)
            for _ in 0..<3 {
                for try await item in db.fetchCursor(Item.self, sql: "SELECT * FROM items ORDER BY n") {
                    #expect(item.n == 1)
                    break
                }
                try await Self.expectEveryReaderFree(db, readerCount: readerCount)
            }
            // A cursor never iterated holds nothing.
            _ = db.fetchCursor(Item.self, sql: "SELECT * FROM items").makeAsyncIterator()
            try await Self.expectEveryReaderFree(db, readerCount: readerCount)
            // The statement was reset with it: a write, then a read, see the new row.
            try await db.insert(Item(id: nil, n: 501))
            #expect(try await db.count(Item.self) == 501)
            try await db.close()
        }
    }

    /// Cancelling the iterating task interrupts the statement, throws `CancellationError` and gives
    /// the reader back.
    @Test func cancellingTheLoopStopsTheStatement() async throws {
        try await ReliabilityTestSupport.withDirectory { directory in
            let db = try await Self.makeDatabase(directory, readerCount: 2, rows: 10)
            // Between batches: the loop has its first value, then its task is cancelled.
            let (firstValue, first) = AsyncStream<Void>.makeStream()
            let between = Task {
                var seen = 0
                for try await _ in db.fetchCursor(Int.self, sql: Self.endless) {
                    seen += 1
                    if seen == 1 { first.yield() }
                    try await Task.sleep(for: .milliseconds(5))
                }
                return seen
            }
            for await _ in firstValue { break }
            between.cancel()
            let betweenResult = await between.result
            #expect(throws: CancellationError.self) { try betweenResult.get() }
            // Inside SQLite: a statement that needs seconds before its first row.
            let started = ContinuousClock.now
            let inside = Task {
                for try await _ in db.fetchCursor(Int.self, sql: Self.slowFirstRow) {}
            }
            try await Task.sleep(for: .milliseconds(100))
            inside.cancel()
            let insideResult = await inside.result
            #expect(throws: CancellationError.self) { try insideResult.get() }
            #expect(ContinuousClock.now - started < .seconds(5))
            try await Self.expectEveryReaderFree(db, readerCount: 2)
            try await db.close()
        }
    }

    /// SQL and decoding errors end the loop with the error, after the values decoded before it.
    @Test func errorsEndTheLoop() async throws {
        try await ReliabilityTestSupport.withDirectory { directory in
            let db = try await Self.makeDatabase(directory, readerCount: 1, rows: 100)
            try await db.execute("UPDATE items SET n = \("seventy") WHERE n = \(70)")
            var seen: [Int] = []
            do {
                for try await value in db.fetchCursor(Int.self, sql: "SELECT n FROM items ORDER BY id") {
                    seen.append(value)
                }
                Issue.record("a text value decoded as Int")
            } catch is DecodingError {
                #expect(seen == Array(1...69))
            }
            do {
                for try await _ in db.fetchCursor(Int.self, sql: "SELECT titel FROM items") {}
                Issue.record("a query on a missing column ran")
            } catch let error as SQLiteError {
                #expect(error.message == "no such column: titel")
            }
            try await Self.expectEveryReaderFree(db, readerCount: 1)
            try await db.close()
        }
    }

    /// Without readers (an in-memory database), batches take turns with writes on the writer, and an
    /// early break closes the statement there.
    @Test func aCursorWithoutReaders() async throws {
        let db = try Database.inMemory()
        try await db.createTable(for: Item.self)
        try await db.insert(contentsOf: (1...300).map { Item(id: nil, n: $0) })
        var seen: [Int] = []
        for try await item in db.fetchCursor(Item.self, orderBy: "n") {
            seen.append(item.n)
            if item.n == 100 {
                try await db.execute("UPDATE items SET n = n WHERE id = \(1)")
            }
            if item.n == 250 { break }
        }
        #expect(seen == Array(1...250))
        var all: [Int] = []
        for try await n in db.fetchCursor(Int.self, sql: "SELECT n FROM items ORDER BY n") { all.append(n) }
        #expect(all == Array(1...300))
        #expect(try await db.rows("SELECT count(*) AS c FROM items")[0]["c"] as Int == 300)
        try await db.close()
    }

    /// Rows without end, generated one at a time.
    static let endless: SQL = """
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c
        """

    /// One row, after counting 50 million generated rows.
    static let slowFirstRow: SQL = """
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000000)
        SELECT count(*) FROM c
        """
}
