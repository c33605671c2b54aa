import Dispatch
import Foundation
import Testing

@testable import Bindery

/// Many tasks reading and writing one database at once: exact counts, atomic writes, consistent
/// snapshots, and reads and writes that do not wait for each other in WAL mode.
@Suite struct DatabaseStressTests {
    private struct Entry: Record, Equatable {
        static let tableName = "entries"
        var id: Int64?
        var writer: Int
        var batch: Int
        var doomed: Bool
    }

    private struct Boom: Error {}

    /// Runs `body` with a WAL database holding an empty `entries` table.
    private func withEntries<T>(readerCount: Int = 4, _ body: (Database) async throws -> T) async throws -> T {
        try await DatabaseTestSupport.withDatabase(options: Database.Options(readerCount: readerCount)) { db in
            try await db.createTable(for: Entry.self)
            return try await body(db)
        }
    }

    @Test func eightWritersAndEightReadersGiveExactCounts() async throws {
        try await withEntries { db in
            let writers = 8
            let writesEach = 500
            try await withThrowingTaskGroup(of: [Int].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for index in 0..<writesEach {
                            if index.isMultiple(of: 2) {
                                try await db.insert(Entry(id: nil, writer: writer, batch: index, doomed: false))
                            } else {
                                try await db.write { conn in
                                    try conn.insert(Entry(id: nil, writer: writer, batch: index, doomed: false))
                                }
                            }
                        }
                        return []
                    }
                }
                for _ in 0..<8 {
                    group.addTask {
                        // Each reader sees the table grow, never shrink, and never past the total.
                        var seen: [Int] = []
                        for _ in 0..<100 {
                            seen.append(try await db.count(Entry.self))
                        }
                        return seen
                    }
                }
                for try await seen in group {
                    #expect(seen == seen.sorted())
                    #expect(seen.allSatisfy { (0...writers * writesEach).contains($0) })
                }
            }
            #expect(try await db.count(Entry.self) == writers * writesEach)
            let perWriter = try await db.fetchAll(Int.self, sql: "SELECT count(*) FROM entries GROUP BY writer")
            #expect(perWriter == Array(repeating: writesEach, count: writers))
            let distinct = try await db.fetchOne(
                Int.self, sql: "SELECT count(*) FROM (SELECT DISTINCT writer, batch FROM entries)")
            #expect(distinct == writers * writesEach)
        }
    }

    @Test func aWriteWhoseClosureThrowsLeavesNoTraceWhileOthersCommit() async throws {
        try await withEntries { db in
            let writers = 8
            let writesEach = 60
            try await withThrowingTaskGroup(of: Int.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var failures = 0
                        for batch in 0..<writesEach {
                            let doomed = batch % 3 == 0
                            do {
                                try await db.write { conn in
                                    for _ in 0..<3 {
                                        try conn.insert(Entry(id: nil, writer: writer, batch: batch, doomed: doomed))
                                    }
                                    if doomed {
                                        throw Boom()
                                    }
                                }
                            } catch is Boom {
                                failures += 1
                            }
                        }
                        return failures
                    }
                }
                var failures = 0
                for try await count in group {
                    failures += count
                }
                #expect(failures == writers * writesEach / 3)
            }
            #expect(try await db.count(Entry.self, where: "doomed") == 0)
            #expect(try await db.count(Entry.self) == writers * (writesEach - writesEach / 3) * 3)
        }
    }

    @Test func aReadSeesAllOrNoneOfAConcurrentMultiRowWrite() async throws {
        try await withEntries { db in
            let batches = 300
            let rowsPerBatch = 10
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for batch in 0..<batches {
                        try await db.write { conn in
                            for _ in 0..<rowsPerBatch {
                                try conn.insert(Entry(id: nil, writer: 0, batch: batch, doomed: false))
                            }
                        }
                    }
                }
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<150 {
                            let (sizes, before, after) = try await db.read { conn in
                                let before = try conn.count(Entry.self)
                                let sizes = try conn.fetchAll(
                                    Int.self, sql: "SELECT count(*) FROM entries GROUP BY batch")
                                let after = try conn.count(Entry.self)
                                return (sizes, before, after)
                            }
                            #expect(sizes.allSatisfy { $0 == rowsPerBatch })
                            #expect(before == after)  // one snapshot for the whole read
                            #expect(before == sizes.count * rowsPerBatch)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await db.count(Entry.self) == batches * rowsPerBatch)
        }
    }

    /// The order in which things happened, recorded from any thread.
    private final class Timeline: @unchecked Sendable {
        // @unchecked Sendable is safe: `events` is only touched while `lock` is held.
        private let lock = NSLock()
        private var events: [String] = []

        func record(_ event: String) {
            lock.withLock { events.append(event) }
        }

        var recorded: [String] {
            lock.withLock { events }
        }
    }

    @Test func aLongReadDoesNotBlockAWrite() async throws {
        try await withEntries { db in
            let timeline = Timeline()
            let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
            let writeDone = DispatchSemaphore(value: 0)
            let read = Task {
                try await db.read { conn -> (Int, Int, Bool) in
                    let before = try conn.count(Entry.self)  // the read's snapshot starts here
                    timeline.record("read started")
                    startedSignal.yield()
                    // The read stays open until the write has committed (or 60 s, if it never does: the
                    // write goes through the cooperative pool, which the whole suite loads on 2 cores).
                    let sawWrite = writeDone.wait(timeout: .now() + 60) == .success
                    let after = try conn.count(Entry.self)
                    timeline.record("read finished")
                    return (before, after, sawWrite)
                }
            }
            for await _ in started { break }
            try await db.insert(Entry(id: nil, writer: 1, batch: 1, doomed: false))
            timeline.record("write committed")
            writeDone.signal()
            let (before, after, sawWrite) = try await read.value
            #expect(sawWrite)
            #expect(timeline.recorded == ["read started", "write committed", "read finished"])
            // The read kept its snapshot while the write committed beside it.
            #expect(before == 0)
            #expect(after == 0)
            #expect(try await db.count(Entry.self) == 1)
        }
    }

    @Test func aLongWriteDoesNotBlockReads() async throws {
        try await withEntries { db in
            let timeline = Timeline()
            let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
            let readsDone = DispatchSemaphore(value: 0)
            let write = Task {
                try await db.write { conn -> Bool in
                    try conn.insert(Entry(id: nil, writer: 1, batch: 1, doomed: false))
                    timeline.record("write started")
                    startedSignal.yield()
                    // The write stays open until the reads are done (or 60 s, if they never are: in a full
                    // parallel run on 2 busy cores, the reads' tasks once took more than 10 s to be scheduled).
                    let sawReads = readsDone.wait(timeout: .now() + 60) == .success
                    timeline.record("write finished")
                    return sawReads
                }
            }
            for await _ in started { break }
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await db.count(Entry.self) }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            timeline.record("reads finished")
            readsDone.signal()
            #expect(try await write.value)
            #expect(timeline.recorded == ["write started", "reads finished", "write finished"])
            #expect(counts == [0, 0, 0, 0])  // the uncommitted row is invisible
            #expect(try await db.count(Entry.self) == 1)
        }
    }

    /// Blocks each caller until `parties` callers have arrived, or until a timeout.
    private final class Barrier: @unchecked Sendable {
        // @unchecked Sendable is safe: `arrived` is only touched while `condition` is locked.
        private let condition = NSCondition()
        private var arrived = 0
        private let parties: Int

        init(parties: Int) {
            self.parties = parties
        }

        /// Whether every party arrived within `seconds`.
        func arriveAndWait(seconds: Double) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            arrived += 1
            condition.broadcast()
            let deadline = Date().addingTimeInterval(seconds)
            while arrived < parties {
                if !condition.wait(until: deadline) {
                    return false
                }
            }
            return true
        }
    }

    @Test func readsRunAtTheSameTimeAsEachOther() async throws {
        try await withEntries(readerCount: 3) { db in
            // Each read waits inside its transaction until all three are inside theirs: only reads
            // that run at the same time get past the barrier.
            let barrier = Barrier(parties: 3)
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await db.read { conn -> Bool in
                            _ = try conn.count(Entry.self)
                            return barrier.arriveAndWait(seconds: 10)
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results == [true, true, true])
        }
    }
}
