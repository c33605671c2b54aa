import Dispatch
import Foundation
import Testing

@testable import Bindery

/// Cancelling the task that awaits a read or a write interrupts SQLite, rolls back, throws
/// `CancellationError`, and leaves the database usable.
@Suite(.serialized) struct DatabaseCancellationTests {
    private struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var n: Int
    }

    /// A query that counts 50 million generated rows: many seconds of work, in one statement.
    private static let longQuery: SQL = """
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000000)
        SELECT count(*) FROM c
        """

    /// An insert of 50 million generated rows.
    private static let longInsert: SQL = """
        INSERT INTO items(n)
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50000000)
        SELECT x FROM c
        """

    /// Runs `body` and keeps in `elapsed` how long it took, whether it returns or throws.
    private static func measure<T>(into elapsed: Locked<Duration?>, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer { elapsed.value = ContinuousClock.now - start }
        return try body()
    }

    /// Cancels ``longQuery`` while `db.read` runs it (see ``cancelWhileRunning(_:)``).
    private func cancelLongRead(_ db: Database) async -> (result: Result<Int?, any Error>, latency: Duration) {
        await cancelWhileRunning { started, stop in
            try await db.read { conn in
                started.yield()
                defer { stop.value = ContinuousClock.now }
                return try conn.fetchOne(Int.self, sql: Self.longQuery)
            }
        }
    }

    /// Starts `operation` in a task, waits until it signals that its statement is about to run, gives
    /// the statement a moment to get going, cancels the task, and returns how the task ended and how
    /// long after the cancel the statement stopped (the closure marks `stop` as it exits, so the figure
    /// does not include the time the awaiting task takes to be scheduled again on a busy machine).
    private func cancelWhileRunning<T: Sendable>(
        _ operation:
            @escaping @Sendable (AsyncStream<Void>.Continuation, Locked<ContinuousClock.Instant?>) async throws -> T
    ) async -> (result: Result<T, any Error>, latency: Duration) {
        let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
        let stop = Locked<ContinuousClock.Instant?>(nil)
        let task = Task { try await operation(startedSignal, stop) }
        for await _ in started { break }
        try? await Task.sleep(for: .milliseconds(30))
        let cancelledAt = ContinuousClock.now
        task.cancel()
        let result = await task.result
        let latency = (stop.value ?? ContinuousClock.now) - cancelledAt
        return (result, latency)
    }

    private func isCancellation<T>(_ result: Result<T, any Error>) -> Bool {
        if case .failure(let error) = result {
            return error is CancellationError
        }
        return false
    }

    @Test(arguments: [true, false])
    func cancellingALongReadEndsItQuickly(onReader: Bool) async throws {
        let options = Database.Options(readerCount: onReader ? 2 : 0)
        try await DatabaseTestSupport.withDatabase(options: options) { db in
            #expect(db.hasReaders == onReader)
            try await db.createTable(for: Item.self)
            let (result, latency) = await cancelLongRead(db)
            #expect(isCancellation(result), "\(result)")
            #expect(latency < .seconds(1), "the read ended \(latency) after the cancel")
            // The next queries work, on every reader.
            for _ in 0..<4 {
                #expect(try await db.fetchOne(Int.self, sql: "SELECT 42") == 42)
            }
            try await db.insert(Item(id: nil, n: 1))
            #expect(try await db.count(Item.self) == 1)
        }
    }

    @Test func cancellingAQueryOnAnInMemoryDatabaseEndsItQuickly() async throws {
        let db = try Database.inMemory()
        let (result, latency) = await cancelLongRead(db)
        #expect(isCancellation(result), "\(result)")
        #expect(latency < .seconds(1), "the query ended \(latency) after the cancel")
        #expect(try await db.fetchOne(Int.self, sql: "SELECT 42") == 42)
        try await db.close()
    }

    /// SQLite keeps an interrupt in force until no statement of the connection is running: with a
    /// cursor open on the writer between two of its batches, a cancelled job's interrupt must stop that
    /// job only, not the jobs after it nor the cursor's next batch.
    @Test func aCancelWhileACursorIsOpenStopsOnlyTheCancelledJob() async throws {
        let db = try Database.inMemory()
        try await db.createTable(for: Item.self)
        try await db.insert(contentsOf: (1...500).map { Item(id: nil, n: $0) })
        var iterator = db.fetchCursor(Item.self, sql: "SELECT * FROM items ORDER BY n").makeAsyncIterator()
        #expect(try await iterator.next()?.n == 1)
        let (result, _) = await cancelLongRead(db)
        #expect(isCancellation(result), "\(result)")
        try await db.insert(Item(id: nil, n: 501))
        #expect(try await db.fetchOne(Int.self, sql: "SELECT 42") == 42)
        var seen = [1]
        while let item = try await iterator.next() {
            seen.append(item.n)
        }
        #expect(seen == Array(1...500) || seen == Array(1...501))
        try await db.close()
    }

    @Test func aCancelledWriteIsRolledBack() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Item.self)
            try await db.insert(Item(id: nil, n: 0))
            let (result, latency) = await cancelWhileRunning { started, stop in
                try await db.write { conn in
                    try conn.insert(contentsOf: (1...100).map { Item(id: nil, n: $0) })
                    started.yield()
                    defer { stop.value = ContinuousClock.now }
                    try conn.execute(Self.longInsert)
                }
            }
            #expect(isCancellation(result), "\(result)")
            #expect(latency < .seconds(1), "the write ended \(latency) after the cancel")
            #expect(try await db.count(Item.self) == 1)
            let inTransaction = try await db.writeWithoutTransaction { conn in conn.isInTransaction }
            #expect(!inTransaction)
            try await db.insert(Item(id: nil, n: 2))
            #expect(try await db.fetchAll(Item.self, orderBy: "id").map(\.n) == [0, 2])
        }
    }

    @Test func aWriteCancelledBetweenStatementsIsRolledBack() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Item.self)
            let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
            let proceed = DispatchSemaphore(value: 0)
            let write = Task {
                try await db.write { conn in
                    try conn.insert(Item(id: nil, n: 1))
                    startedSignal.yield()
                    // No statement runs while the cancel arrives: nothing for SQLite to interrupt.
                    _ = proceed.wait(timeout: .now() + 10)
                    try conn.insert(Item(id: nil, n: 2))
                }
            }
            for await _ in started { break }
            write.cancel()
            proceed.signal()
            let result = await write.result
            #expect(isCancellation(result), "\(result)")
            #expect(try await db.count(Item.self) == 0)
        }
    }

    @Test func aTaskCancelledBeforeItStartsRunsNothing() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Item.self)
            let (go, goSignal) = AsyncStream.makeStream(of: Void.self)
            let task = Task {
                for await _ in go { break }
                var outcomes: [Bool] = []
                for operation in 0..<4 {
                    do {
                        switch operation {
                        case 0: try await db.write { conn in try conn.insert(Item(id: nil, n: 1)) }
                        case 1: try await db.writeWithoutTransaction { conn in try conn.insert(Item(id: nil, n: 2)) }
                        case 2: _ = try await db.read { conn in try conn.count(Item.self) }
                        default: try await db.insert(Item(id: nil, n: 3))
                        }
                        outcomes.append(false)
                    } catch {
                        outcomes.append(error is CancellationError)
                    }
                }
                return outcomes
            }
            task.cancel()
            goSignal.yield()
            #expect(await task.value == [true, true, true, true])
            #expect(try await db.count(Item.self) == 0)
        }
    }

    @Test func anInterruptNeverReachesTheNextJob() async throws {
        // Tasks cancelled at random moments, around a task whose writes and reads are never cancelled:
        // an interrupt aimed at a cancelled job must not fail one of the others.
        try await DatabaseTestSupport.withDatabase(options: Database.Options(readerCount: 1)) { db in
            try await db.createTable(for: Item.self)
            let steady = Task {
                for n in 0..<300 {
                    try await db.insert(Item(id: nil, n: n))
                    _ = try await db.count(Item.self)
                }
            }
            var cancelled = 0
            for round in 0..<300 {
                let victim = Task {
                    if round.isMultiple(of: 2) {
                        try await db.write { conn in
                            try conn.insert(Item(id: nil, n: -1))
                            _ = try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM items")
                        }
                    } else {
                        _ = try await db.read { conn in try conn.fetchAll(Item.self, sql: "SELECT * FROM items") }
                    }
                }
                if round % 3 != 0 {
                    await Task.yield()
                }
                victim.cancel()
                if case .failure(let error) = await victim.result {
                    #expect(error is CancellationError, "\(error)")
                    cancelled += 1
                }
            }
            try await steady.value
            #expect(try await db.count(Item.self, where: "n >= \(0)") == 300)
            let inTransaction = try await db.writeWithoutTransaction { conn in conn.isInTransaction }
            #expect(!inTransaction)
            #expect(cancelled > 0)
        }
    }

    // MARK: A cancel is never lost

    /// About half a second of work in one statement.
    private static let halfSecondQuery: SQL = """
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000)
        SELECT count(*) FROM c
        """

    /// The same work, inserting what it counts.
    private static let halfSecondInsert: SQL = """
        INSERT INTO items(n)
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000)
        SELECT x FROM c
        """

    /// Runs `operation` in a task; the closure it hands to the database calls `waitForCancel`, which
    /// returns once the task is cancelled: no statement runs while the cancel arrives, so SQLite has
    /// nothing to interrupt, and whatever the closure runs afterwards starts after the cancel.
    private func cancelWhileWaiting<T: Sendable>(
        _ operation: @escaping @Sendable (_ waitForCancel: @escaping @Sendable () -> Void) async throws -> T
    ) async -> Result<T, any Error> {
        let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
        let proceed = DispatchSemaphore(value: 0)
        let task = Task {
            try await operation {
                startedSignal.yield()
                _ = proceed.wait(timeout: .now() + 10)
            }
        }
        for await _ in started { break }
        task.cancel()
        proceed.signal()
        return await task.result
    }

    @Test(arguments: [0, 2])
    func aQueryBegunAfterTheCancelRunsNothing(readerCount: Int) async throws {
        try await DatabaseTestSupport.withDatabase(options: Database.Options(readerCount: readerCount)) { db in
            // Uncancelled, the query takes a while.
            let full = Locked<Duration?>(nil)
            _ = try await db.read { conn in
                try Self.measure(into: full) { try conn.fetchOne(Int.self, sql: Self.halfSecondQuery) }
            }
            let fullDuration = try #require(full.value)
            #expect(fullDuration > .milliseconds(200))
            for job in 0..<3 {
                let elapsed = Locked<Duration?>(nil)
                let result = await cancelWhileWaiting { waitForCancel in
                    let body: @Sendable (Connection) throws -> Int? = { conn in
                        waitForCancel()
                        return try Self.measure(into: elapsed) {
                            try conn.fetchOne(Int.self, sql: Self.halfSecondQuery)
                        }
                    }
                    switch job {
                    case 0: return try await db.read(body)
                    case 1: return try await db.write(body)
                    default: return try await db.writeWithoutTransaction(body)
                    }
                }
                #expect(isCancellation(result), "job \(job): \(result)")
                let duration = try #require(elapsed.value)
                // A third of the uncancelled run: a query that ran would take it all, on a busy machine too.
                #expect(duration < fullDuration / 3, "job \(job): the query ran \(duration) after the cancel")
            }
            #expect(try await db.fetchOne(Int.self, sql: "SELECT 42") == 42)
        }
    }

    @Test func anInsertBegunAfterTheCancelInsertsNothing() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Item.self)
            let result = await cancelWhileWaiting { waitForCancel in
                try await db.writeWithoutTransaction { conn in
                    waitForCancel()
                    try conn.execute(Self.halfSecondInsert)
                }
            }
            #expect(isCancellation(result), "\(result)")
            #expect(try await db.count(Item.self) == 0)
        }
    }

    @Test func aScriptBegunAfterTheCancelRunsNothing() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Item.self)
            let result = await cancelWhileWaiting { waitForCancel in
                try await db.writeWithoutTransaction { conn in
                    waitForCancel()
                    try conn.execute(script: "INSERT INTO items(n) VALUES (1); INSERT INTO items(n) VALUES (2)")
                }
            }
            #expect(isCancellation(result), "\(result)")
            #expect(try await db.count(Item.self) == 0)
        }
    }

    @Test func aWriteGoingOnAfterTheCancelCommitsNothing() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Item.self)
            let codes = Locked<[SQLiteError.Code?]>([])
            let result = await cancelWhileWaiting { waitForCancel in
                try await db.write { conn in
                    try conn.insert(Item(id: nil, n: 1))
                    waitForCancel()
                    // Each statement after the cancel throws; a closure that catches the errors and
                    // goes on still commits nothing.
                    for n in 2...4 {
                        do {
                            try conn.insert(Item(id: nil, n: n))
                            codes.update { $0.append(nil) }
                        } catch {
                            codes.update { $0.append((error as? SQLiteError)?.code) }
                        }
                    }
                }
            }
            #expect(isCancellation(result), "\(result)")
            #expect(codes.value == [.interrupt, .interrupt, .interrupt])
            #expect(try await db.count(Item.self) == 0)
            try await db.insert(Item(id: nil, n: 5))
            #expect(try await db.fetchAll(Item.self).map(\.n) == [5])
        }
    }

    @Test func aCancelBetweenStatementsOfWriteWithoutTransactionIsNotLost() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Item.self)
            // Cancelled after both INSERTs: they keep their effect, and the job throws.
            let after = await cancelWhileWaiting { waitForCancel in
                try await db.writeWithoutTransaction { conn in
                    try conn.insert(Item(id: nil, n: 1))
                    try conn.insert(Item(id: nil, n: 2))
                    waitForCancel()
                }
            }
            #expect(isCancellation(after), "\(after)")
            #expect(try await db.fetchAll(Item.self, orderBy: "id").map(\.n) == [1, 2])
            // Cancelled between them: the first keeps its effect, the second never runs.
            let between = await cancelWhileWaiting { waitForCancel in
                try await db.writeWithoutTransaction { conn in
                    try conn.insert(Item(id: nil, n: 3))
                    waitForCancel()
                    try conn.insert(Item(id: nil, n: 4))
                }
            }
            #expect(isCancellation(between), "\(between)")
            #expect(try await db.fetchAll(Item.self, orderBy: "id").map(\.n) == [1, 2, 3])
        }
    }
}
