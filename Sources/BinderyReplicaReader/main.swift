// bindery-replica-reader: a reader of `scripts/replica-test`.
//
//   bindery-replica-reader REPLICA_URL EXTENSION POLL_MS STOP_FILE
//
// Opens the Litestream replica at REPLICA_URL (which `litestream replicate` streams from the file that
// `bindery-replication-writer write` writes) as a read replica, through the VFS extension at EXTENSION,
// polled every POLL_MS milliseconds, with Bindery's public API alone; it never opens the writer's file.
// It waits for the replica's first backup (up to a minute), then reads in a loop until STOP_FILE exists.
// Each read is one `read {}` that takes the newest transaction M of the `log` table and checks:
//   - M never decreases from one read to the next;
//   - the log holds transactions 1…M, no hole;
//   - no `items` row belongs to a transaction after M (a transaction seen in part, without its log row);
//   - every transaction it has not checked yet is whole: as many `items` rows as its log row says (and
//     as the writer's formula says), numbered 0…, whose payloads have the log row's checksum.
// Beside the loop, an observation of max(txn) (`observe`) must give values that never decrease.
//
// It prints, each line as it happens (MS: Unix time in milliseconds):
//   opened MS               when the replica opened
//   read M MS               after each read: the newest transaction it saw, and when it returned
//   seen N MS               when a read first saw transaction N
//   observed N MS           each new value of the observation
//   status TXID TIME LAG MS `replicaStatus()` every second and at the end: Litestream's TXID, its time
//                           (or -), seconds since the last poll (or -), and when it was asked
//   reads K                 at the end: how many reads the loop made
// and exits 0; at the first failure it prints it on standard error and exits 1.

import Bindery
import Foundation

struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// Writes to standard output at once (no buffering), one line per call.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Prints `message` on standard error and exits 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("bindery-replica-reader: \(message)\n".utf8))
    exit(1)
}

func milliseconds() -> Int64 {
    Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
}

/// How many `items` rows the writer's transaction `n` inserts (bindery-replication-writer's `rowCount`).
func rowCount(_ n: Int64) -> Int64 {
    1 + n % 9
}

/// The FNV-1a hash of `payloads`, shifted as the writer stores it in the log row.
func checksum(_ payloads: [Data]) -> Int64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for payload in payloads {
        for byte in payload {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
    }
    return Int64(bitPattern: hash >> 1)
}

/// The newest transaction in the log; 0 before the writer created its tables.
func newestTransaction(_ conn: Connection) throws -> Int64 {
    let tables = try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema WHERE name = 'log'") ?? 0
    guard tables > 0 else { return 0 }
    return try conn.fetchOne(Int64.self, sql: "SELECT coalesce(max(txn), 0) FROM log") ?? 0
}

/// Checks, in one read transaction, what the replica holds after transaction `checked` (see the file's
/// comment); returns the newest transaction, all of whose transactions are whole.
func check(_ conn: Connection, after checked: Int64) throws -> Int64 {
    let tables = try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema WHERE name = 'log'") ?? 0
    guard tables > 0 else {
        guard checked == 0 else {
            throw Failure(description: "the log table is gone, after transaction \(checked) was seen")
        }
        return 0
    }
    let summary = try conn.rows("SELECT count(*), coalesce(max(txn), 0) FROM log")
    let present: Int64 = try summary[0][0]
    let newest: Int64 = try summary[0][1]
    guard newest >= checked else {
        throw Failure(description: "the newest transaction went back from \(checked) to \(newest)")
    }
    guard present == newest else {
        throw Failure(description: "the log holds \(present) transactions, but its newest is \(newest): a hole")
    }
    let orphans = try conn.fetchOne(Int64.self, sql: "SELECT count(*) FROM items WHERE txn > \(newest)") ?? 0
    guard orphans == 0 else {
        throw Failure(
            description: "\(orphans) items rows belong to a transaction after \(newest), the newest logged: "
                + "a transaction seen in part")
    }
    guard newest > checked else { return newest }
    var payloads: [Int64: [Data]] = [:]
    for row in try conn.rows(
        "SELECT txn, seq, payload FROM items WHERE txn > \(checked) AND txn <= \(newest) ORDER BY txn, seq")
    {
        let txn: Int64 = try row[0]
        let seq: Int64 = try row[1]
        guard seq == Int64(payloads[txn]?.count ?? 0) else {
            throw Failure(description: "transaction \(txn) has items row \(seq) out of order")
        }
        payloads[txn, default: []].append(try row[2])
    }
    var expected = checked + 1
    for row in try conn.rows("SELECT txn, row_count, checksum FROM log WHERE txn > \(checked) ORDER BY txn") {
        let txn: Int64 = try row[0]
        let count: Int64 = try row[1]
        let sum: Int64 = try row[2]
        let rows = payloads[txn] ?? []
        guard txn == expected else {
            throw Failure(description: "transaction \(expected) is missing before \(txn)")
        }
        guard count == rowCount(txn), Int64(rows.count) == count, checksum(rows) == sum else {
            throw Failure(
                description: "transaction \(txn) is seen in part or wrong: \(rows.count) items rows, its log row says "
                    + "\(count) (the writer writes \(rowCount(txn))), checksum "
                    + (checksum(rows) == sum ? "right" : "wrong"))
        }
        expected += 1
    }
    return newest
}

/// Opens the replica, waiting for its first backup for up to a minute.
func openReplica(url: String, extensionPath: String, pollInterval: Double) async throws -> Database {
    let deadline = Date().addingTimeInterval(60)
    while true {
        do {
            return try await Database.replica(of: url, extensionPath: extensionPath, pollInterval: pollInterval)
        } catch Database.ReplicaError.noBackup where Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// Follows max(txn) with an observation until cancelled, printing each new value.
func observeNewest(_ db: Database) -> Task<Void, Never> {
    Task {
        var last: Int64 = 0
        do {
            for try await newest in db.observe({ conn in try newestTransaction(conn) }).removeDuplicates() {
                guard newest >= last else {
                    fail("the observation went back from \(last) to \(newest)")
                }
                last = newest
                report("observed \(newest) \(milliseconds())")
            }
        } catch is CancellationError {
        } catch {
            fail("the observation failed: \(error)")
        }
    }
}

/// Prints the replica's status (a "status" line).
func reportStatus(_ db: Database) async {
    do {
        guard let status = try await db.replicaStatus() else {
            fail("replicaStatus() is nil on a read replica")
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let time = status.transactionTime.map { formatter.string(from: $0) } ?? "-"
        let lag = status.secondsSinceLastPoll.map(String.init) ?? "-"
        report("status \(status.transactionID) \(time) \(lag) \(milliseconds())")
    } catch {
        fail("replicaStatus(): \(error)")
    }
}

func run() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count == 4, let pollMilliseconds = Int(arguments[2]), pollMilliseconds > 0 else {
        fail("usage: bindery-replica-reader REPLICA_URL EXTENSION POLL_MS STOP_FILE")
    }
    let stopFile = arguments[3]
    let db: Database
    do {
        db = try await openReplica(
            url: arguments[0], extensionPath: arguments[1], pollInterval: Double(pollMilliseconds) / 1000)
    } catch {
        fail("opening the replica \(arguments[0]): \(error)")
    }
    report("opened \(milliseconds())")
    let observation = observeNewest(db)
    var checked: Int64 = 0
    var reads = 0
    var statusAt = milliseconds()
    while !FileManager.default.fileExists(atPath: stopFile) {
        let before = checked
        do {
            checked = try await db.read { conn in try check(conn, after: before) }
        } catch {
            fail("read \(reads + 1), after transaction \(before): \(error)")
        }
        reads += 1
        let now = milliseconds()
        report("read \(checked) \(now)")
        if checked > before {
            report((before + 1...checked).map { "seen \($0) \(now)" }.joined(separator: "\n"))
        }
        if now - statusAt >= 1000 {
            statusAt = now
            await reportStatus(db)
        }
        // A short pause, so that the reader leaves the 2 cores to the writer and the replicator: the VFS
        // polls the replica every POLL_MS anyway.
        try? await Task.sleep(for: .milliseconds(20))
    }
    observation.cancel()
    await observation.value
    await reportStatus(db)
    do {
        try await db.close()
    } catch {
        fail("closing the replica: \(error)")
    }
    report("reads \(reads)")
}

await run()
