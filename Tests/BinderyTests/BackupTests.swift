import Foundation
import Testing

@testable import Bindery

/// Online backups (`Database.backup(to:)`, `Connection.backup(to:)`) while writes go on, and
/// `vacuum(into:)`: the copy passes `integrity_check` and holds every transaction committed before
/// the backup began, each one whole.
@Suite struct BackupTests {
    typealias Support = ReliabilityTestSupport

    struct Tick: Record {
        static let tableName = "ticks"
        var id: Int64?
        var txn: Int
        var seq: Int
        var payload: Data
    }

    static let ticksPerTransaction = 5

    /// Transaction `n`: five ticks tagged `n`, and the counter moved to `n`.
    static func writeTransaction(_ db: Database, _ n: Int) async throws {
        try await db.write { conn in try writeTransaction(conn, n) }
    }

    /// The body of transaction `n`, for a transaction already open on `conn`.
    static func writeTransaction(_ conn: Connection, _ n: Int) throws {
        for seq in 0..<ticksPerTransaction {
            try conn.insert(Tick(id: nil, txn: n, seq: seq, payload: Data(repeating: UInt8(n % 256), count: 300)))
        }
        try conn.execute("UPDATE counter SET n = \(n), ticks = ticks + \(ticksPerTransaction)")
    }

    static func createSchema(_ db: Database) async throws {
        try await db.write { conn in try createSchema(conn) }
    }

    static func createSchema(_ conn: Connection) throws {
        try conn.createTable(for: Tick.self)
        try conn.execute(script: "CREATE TABLE counter(n INTEGER NOT NULL, ticks INTEGER NOT NULL)")
        try conn.execute(script: "INSERT INTO counter VALUES (0, 0)")
    }

    /// Checks the copy at `path`: integrity_check is clean and it holds transactions 1…m, each whole,
    /// with the counter at m; returns m.
    static func verifyCopy(_ path: String) throws -> Int {
        let conn = try Connection(path: path)
        defer { conn.close() }
        #expect(try conn.integrityCheck() == [])
        let groups = try conn.rows("SELECT txn, count(*), sum(length(payload)) FROM ticks GROUP BY txn ORDER BY txn")
        for (offset, row) in groups.enumerated() {
            let txn: Int = try row[0]
            let count: Int = try row[1]
            let bytes: Int = try row[2]
            #expect(txn == offset + 1, "transaction \(offset + 1) is missing from the copy")
            #expect(count == ticksPerTransaction && bytes == 300 * count, "transaction \(txn) is in the copy in part")
        }
        let counter = try conn.rows("SELECT n, ticks FROM counter")
        #expect(counter.count == 1)
        #expect(try counter.first?[0] as Int? == groups.count)
        #expect(try counter.first?[1] as Int? == groups.count * ticksPerTransaction)
        return groups.count
    }

    /// Waits until `condition` holds, for at most `seconds`; returns whether it held.
    static func waitUntil(seconds: Double = 30, _ condition: () async -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while await !condition() {
            guard Date() < deadline else { return false }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        return true
    }

    /// The writes a test runs in the background, and what they committed.
    actor Writer {
        private(set) var committed = 0
        private var stopped = false

        /// Writes transactions `from`, `from + 1` … until ``stop()`` (or 50,000 of them, so that a
        /// test that fails before it stops the writer cannot fill the disk).
        func run(_ db: Database, from first: Int) async throws {
            var n = first
            while !stopped, n < first + 50_000 {
                try await BackupTests.writeTransaction(db, n)
                committed = n
                n += 1
                await Task.yield()
            }
        }

        func stop() {
            stopped = true
        }
    }

    /// The progress reports of a backup, from whatever queue they come on.
    final class ProgressLog: @unchecked Sendable {
        // @unchecked Sendable is safe: `entries` is only touched while `lock` is held.
        private let lock = NSLock()
        private var entries: [(copied: Int, total: Int)] = []

        func record(_ copied: Int, _ total: Int) {
            lock.withLock { entries.append((copied, total)) }
        }

        var all: [(copied: Int, total: Int)] {
            lock.withLock { entries }
        }
    }

    static let configurations: [(name: String, inMemory: Bool, options: Database.Options)] = [
        ("WAL with readers: one snapshot on a reader", false, Database.Options()),
        ("WAL without readers: one writer job per step", false, Database.Options(readerCount: 0)),
        ("rollback journal: one writer job per step", false, Database.Options(journalMode: .delete)),
        ("in memory: one snapshot in one writer job", true, Database.Options()),
    ]

    @Test(arguments: configurations.indices)
    func aBackupWhileWritesGoOnHoldsEveryTransactionCommittedBefore(_ index: Int) async throws {
        let configuration = Self.configurations[index]
        try await Support.withDirectory { directory in
            let db =
                configuration.inMemory
                ? try Database.inMemory(options: configuration.options)
                : try Database(
                    path: directory.appendingPathComponent("source.sqlite").path, options: configuration.options)
            try await Self.createSchema(db)
            for n in 1...300 {
                try await Self.writeTransaction(db, n)
            }
            let writer = Writer()
            let writing = Task { try await writer.run(db, from: 301) }
            let copy = directory.appendingPathComponent("copy.sqlite").path
            let log = ProgressLog()
            let hasReaders = db.hasReaders
            let before: Int
            let after: Int
            do {
                // Let the writer get going, then back up while it writes.
                try #require(await Self.waitUntil { await writer.committed >= 320 })
                before = await writer.committed
                try await db.backup(to: copy, pagesPerStep: 2) { copied, total in
                    log.record(copied, total)
                    // Slow the copy down (on a reader) so that the writer commits meanwhile.
                    if hasReaders {
                        Thread.sleep(forTimeInterval: 0.002)
                    }
                }
                after = await writer.committed
            } catch {
                await writer.stop()
                _ = try? await writing.value
                try? await db.close()
                throw error
            }
            await writer.stop()
            try await writing.value
            try await db.close()

            let present = try Self.verifyCopy(copy)
            #expect(present >= before, "the copy lacks transactions committed before the backup began")
            #expect(present <= after)
            if hasReaders {
                // One snapshot, taken as the backup began, while the writer went on: the writes
                // committed during the copy are not in it.
                #expect(after > before, "no write committed while the backup ran")
                #expect(present < after)
            } else if !configuration.inMemory {
                // Writes ran between the steps, and the copy kept up with them.
                #expect(after > before, "no write committed while the backup ran")
                #expect(present > before)
            }
            let entries = log.all
            #expect(entries.count > 10)
            #expect(entries.last.map { $0.copied == $0.total } == true)
            #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.copied <= $1.copied || $1.total != $0.total })
        }
    }

    @Test func aBackupReplacesTheDestinationAndCopiesInOneStepWhenAskedTo() async throws {
        try await Support.withDirectory { directory in
            let db = try Database(path: directory.appendingPathComponent("source.sqlite").path)
            try await Self.createSchema(db)
            for n in 1...20 {
                try await Self.writeTransaction(db, n)
            }
            let copy = directory.appendingPathComponent("copy.sqlite").path
            let other = try Connection(path: copy)
            try other.execute(script: "CREATE TABLE unrelated(x); INSERT INTO unrelated VALUES (1)")
            other.close()

            let log = ProgressLog()
            try await db.backup(to: copy, pagesPerStep: 0) { copied, total in log.record(copied, total) }
            #expect(log.all.count == 1)
            #expect(try Self.verifyCopy(copy) == 20)
            let conn = try Connection(path: copy)
            #expect(
                try conn.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema WHERE name = 'unrelated'") == [])
            conn.close()
            try await db.close()
        }
    }

    @Test func aBackupThatCannotOpenItsDestinationThrowsAndLeavesNothing() async throws {
        try await Support.withDirectory { directory in
            let db = try Database.inMemory()
            try await Self.createSchema(db)
            let missing = directory.appendingPathComponent("no/such/dir/copy.sqlite").path
            let error = await #expect(throws: SQLiteError.self) { try await db.backup(to: missing) }
            #expect(error?.code == .cannotOpen)
            let target = directory.appendingPathComponent("not-a-db.sqlite").path
            try Data(String(repeating: "text, not a database ", count: 500).utf8).write(
                to: URL(fileURLWithPath: target))
            let notADatabase = await #expect(throws: SQLiteError.self) { try await db.backup(to: target) }
            #expect(notADatabase?.code == .notADatabase)
            try await db.close()
        }
    }

    @Test(arguments: [false, true])
    func aCancelledBackupStopsAndRemovesItsNewFile(inMemory: Bool) async throws {
        try await Support.withDirectory { directory in
            let db =
                inMemory
                ? try Database.inMemory() : try Database(path: directory.appendingPathComponent("s.sqlite").path)
            try await Self.createSchema(db)
            for n in 1...100 {
                try await Self.writeTransaction(db, n)
            }
            let copy = directory.appendingPathComponent("copy.sqlite").path
            let log = ProgressLog()
            let backup = Task {
                try await db.backup(to: copy, pagesPerStep: 1) { copied, total in
                    log.record(copied, total)
                    Thread.sleep(forTimeInterval: 0.005)
                }
            }
            let started = try await Self.waitUntil { log.all.count >= 3 }
            backup.cancel()
            try #require(started, "the backup did not get to its third step")
            await #expect(throws: CancellationError.self) { try await backup.value }
            #expect(log.all.last.map { $0.copied < $0.total } == true)
            #expect(!FileManager.default.fileExists(atPath: copy))
            // The database goes on working.
            try await Self.writeTransaction(db, 101)
            try await db.backup(to: copy)
            #expect(try Self.verifyCopy(copy) == 101)
            try await db.close()
        }
    }

    /// `Connection.backup(to:)` reads one snapshot: another connection commits between every two
    /// steps (WAL lets it), and the copy is the database as it was when the backup began.
    @Test func aConnectionBackupCopiesOneSnapshotWhileAnotherConnectionWrites() async throws {
        try await Support.withDirectory { directory in
            let source = directory.appendingPathComponent("source.sqlite").path
            let writer = try Connection(path: source)
            try writer.execute(script: "PRAGMA journal_mode = WAL")
            try writer.transaction { conn in try Self.createSchema(conn) }
            for n in 1...50 {
                try writer.transaction(.immediate) { conn in try Self.writeTransaction(conn, n) }
            }
            let reader = try Connection(path: source)
            let copy = directory.appendingPathComponent("copy.sqlite").path
            var n = 50
            var failures: [any Error] = []
            try reader.backup(to: copy, pagesPerStep: 1) { _, _ in
                // Writes during the first 20 steps (a backup that restarted on each write would
                // otherwise never end).
                guard n < 70 else { return }
                n += 1
                do {
                    try writer.transaction(.immediate) { conn in try Self.writeTransaction(conn, n) }
                } catch {
                    failures.append(error)
                }
            }
            reader.close()
            writer.close()
            #expect(failures.isEmpty, "\(failures)")
            #expect(n == 70)
            #expect(try Self.verifyCopy(copy) == 50)
            #expect(try Self.verifyCopy(source) == n)
        }
    }

    @Test(arguments: [false, true])
    func vacuumIntoWritesACompactCopy(inMemory: Bool) async throws {
        try await Support.withDirectory { directory in
            let db =
                inMemory
                ? try Database.inMemory() : try Database(path: directory.appendingPathComponent("s.sqlite").path)
            try await Self.createSchema(db)
            for n in 1...40 {
                try await Self.writeTransaction(db, n)
            }
            try await db.delete(Tick.self, where: "txn > \(30)")
            try await db.execute("UPDATE counter SET n = \(30), ticks = \(30 * Self.ticksPerTransaction)")
            let copy = directory.appendingPathComponent("compact.sqlite").path
            try await db.vacuum(into: copy)
            #expect(try Self.verifyCopy(copy) == 30)
            // SQLite will not write into a file that holds something already.
            let error = await #expect(throws: SQLiteError.self) { try await db.vacuum(into: copy) }
            #expect(error?.code == .error)
            try await db.close()
        }
    }
}
