// bindery-replication-writer: the helper of `scripts/replication-test`.
//
//   bindery-replication-writer write FILE       writes transactions 1, 2, 3 … (continuing after the last
//                                               one in FILE) through a `Database` whose checkpoints are
//                                               left to the replicator, until it is killed, printing
//                                               "committed N MS" as each commit returns (MS: Unix time in
//                                               milliseconds)
//   bindery-replication-writer verify FILE LAST checks the writer's own file after a kill: integrity_check
//                                               is clean, transactions 1…LAST are present whole, at most one
//                                               more is, none in part; prints "verified M"
//   bindery-replication-writer check-restore FILE COMMITS KILL_MS WINDOW_MS
//                                               checks a database restored from the replica: integrity_check
//                                               is clean, transactions 1…R are present whole and no other in
//                                               part, every transaction COMMITS (the writer's "committed"
//                                               lines, all cycles) says committed before KILL_MS - WINDOW_MS is
//                                               there, and none that was never committed; prints
//                                               "restored R required Q oldest-lost-ms A lost L" (L: committed,
//                                               not restored; A: how long before the kill the first of them was)
//   bindery-replication-writer integrity FILE   runs PRAGMA integrity_check on FILE; prints "ok"
//   bindery-replication-writer fill FILE MB     writes about MB megabytes of random blobs (for a restore
//                                               time measurement) and closes
//
// Transaction N inserts rowCount(N) rows tagged N into `items` and one row into `log` holding the row
// count and a checksum of the payloads, in one `db.write`: a transaction restored in part has a row
// count or a checksum that does not match.

import Bindery
import Foundation

/// How many `items` rows transaction `n` inserts: 1 to 9.
func rowCount(_ n: Int64) -> Int64 {
    1 + n % 9
}

/// The payload of row `seq` of transaction `n`: 16 to 143 bytes derived from both.
func payload(_ n: Int64, _ seq: Int64) -> Data {
    let length = Int(16 + (n &* 37 &+ seq &* 11) % 128)
    var state = UInt64(bitPattern: n) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(bitPattern: seq)
    return Data(
        (0..<length).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        })
}

/// The checksum of transaction `n`'s payloads, stored in its `log` row (FNV-1a over the payloads).
func checksum(_ n: Int64) -> Int64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for seq in 0..<rowCount(n) {
        for byte in payload(n, seq) {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
    }
    return Int64(bitPattern: hash >> 1)
}

struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// Writes to standard output at once (no buffering), so that a line printed is in the pipe before
/// the next transaction starts.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func milliseconds() -> Int64 {
    Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
}

let schema = """
    CREATE TABLE IF NOT EXISTS items(
        id INTEGER PRIMARY KEY, txn INTEGER NOT NULL, seq INTEGER NOT NULL, payload BLOB NOT NULL);
    CREATE INDEX IF NOT EXISTS items_txn ON items(txn);
    CREATE TABLE IF NOT EXISTS log(txn INTEGER PRIMARY KEY, row_count INTEGER NOT NULL, checksum INTEGER NOT NULL);
    """

func write(path: String) async throws {
    let db = try Database(path: path, options: Database.Options(checkpointing: .leftToReplicator))
    let autocheckpoint = try await db.writeWithoutTransaction { conn in
        try conn.fetchOne(Int.self, sql: "PRAGMA wal_autocheckpoint") ?? -1
    }
    guard autocheckpoint == 0 else {
        throw Failure(description: "expected wal_autocheckpoint 0 with checkpointing left to the replicator")
    }
    try await db.write { conn in try conn.execute(script: schema) }
    var n =
        try await db.read { conn in try conn.fetchOne(Int64.self, sql: "SELECT coalesce(max(txn), 0) FROM log") } ?? 0
    while true {
        n += 1
        let txn = n
        try await db.write { conn in
            for seq in 0..<rowCount(txn) {
                try conn.execute("INSERT INTO items(txn, seq, payload) VALUES (\(txn), \(seq), \(payload(txn, seq)))")
            }
            try conn.execute(
                "INSERT INTO log(txn, row_count, checksum) VALUES (\(txn), \(rowCount(txn)), \(checksum(txn)))")
        }
        report("committed \(txn) \(milliseconds())")
        // A steady pace rather than as fast as the disk goes: the WAL, which only the replicator
        // checkpoints, stays small.
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// Checks the transactions in the file at `path`; returns the last one present (all before it are
/// present too, each whole).
func checkTransactions(path: String) throws -> Int64 {
    // Read-only, so that the next writer (not the checker) recovers the WAL, as after a real crash.
    let conn = try Connection(path: path, options: Connection.Options(readOnly: true))
    defer { conn.close() }
    let problems = try conn.integrityCheck()
    guard problems.isEmpty else {
        throw Failure(description: "integrity_check: " + problems.joined(separator: "; "))
    }
    return try conn.transaction { conn in
        let tables = try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema WHERE name = 'log'") ?? 0
        if tables == 0 {
            return 0
        }
        let present = try conn.fetchOne(Int64.self, sql: "SELECT count(*) FROM log") ?? 0
        let maxLogged = try conn.fetchOne(Int64.self, sql: "SELECT coalesce(max(txn), 0) FROM log") ?? 0
        guard maxLogged == present else {
            throw Failure(description: "the log holds \(present) transactions, but its last is \(maxLogged)")
        }
        // Every item's transaction is logged: none is present in part without its log row.
        let orphans =
            try conn.fetchOne(
                Int64.self, sql: "SELECT count(*) FROM items WHERE txn NOT IN (SELECT txn FROM log)") ?? 0
        guard orphans == 0 else {
            throw Failure(description: "\(orphans) items belong to no logged transaction")
        }
        let cursor = try conn.rows(
            "SELECT log.txn, log.row_count, log.checksum, count(items.id) FROM log LEFT JOIN items USING (txn) "
                + "GROUP BY log.txn ORDER BY log.txn",
            arguments: [])
        var payloads: [Int64: [Int64: Data]] = [:]
        for row in try conn.rows("SELECT txn, seq, payload FROM items", arguments: []) {
            let txn: Int64 = try row[0]
            let seq: Int64 = try row[1]
            payloads[txn, default: [:]][seq] = try row[2]
        }
        for (offset, row) in cursor.enumerated() {
            let txn: Int64 = try row[0]
            let count: Int64 = try row[1]
            let sum: Int64 = try row[2]
            let items: Int64 = try row[3]
            guard txn == Int64(offset) + 1, count == rowCount(txn), sum == checksum(txn), items == count,
                (0..<count).allSatisfy({ payloads[txn]?[$0] == payload(txn, $0) })
            else {
                throw Failure(
                    description: "transaction \(txn) is present in part or wrong: \(items) of \(rowCount(txn)) rows, "
                        + "checksum \(sum == checksum(txn) ? "right" : "wrong")")
            }
        }
        return present
    }
}

/// The writer's "committed N MS" lines: the commit time of each transaction.
func commitTimes(_ path: String) throws -> [Int64: Int64] {
    var times: [Int64: Int64] = [:]
    for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count == 3, fields[0] == "committed", let n = Int64(fields[1]), let ms = Int64(fields[2]) else {
            continue
        }
        times[n] = ms
    }
    return times
}

func checkRestore(path: String, commits: String, killedAt: Int64, window: Int64) throws -> String {
    let restored = try checkTransactions(path: path)
    let times = try commitTimes(commits)
    let committed = times.keys.max() ?? 0
    let required = times.filter { $0.value < killedAt - window }.keys.max() ?? 0
    guard restored >= required else {
        let late = times[required].map { killedAt - $0 } ?? 0
        throw Failure(
            description: "the replica ends at transaction \(restored), but transaction \(required) was committed "
                + "\(late) ms before the kill (sync window \(window) ms)")
    }
    // One more than reported may be restored: committed, killed before it printed its line.
    guard restored <= committed + 1 else {
        throw Failure(description: "the replica holds transaction \(restored), but only \(committed) were committed")
    }
    // The age at the kill of the oldest transaction the replica misses (0 when it misses none).
    let oldestLost = restored < committed ? times[restored + 1].map { killedAt - $0 } ?? 0 : 0
    return "restored \(restored) required \(required) oldest-lost-ms \(oldestLost) lost \(max(0, committed - restored))"
}

func fill(path: String, megabytes: Int) async throws {
    let db = try Database(path: path)
    try await db.write { conn in
        try conn.execute(script: "CREATE TABLE IF NOT EXISTS blobs(id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
    }
    // 256 blobs of 4000 bytes per transaction: about 1 MB each.
    for _ in 0..<megabytes {
        try await db.write { conn in
            try conn.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 256)
                INSERT INTO blobs(data) SELECT randomblob(4000) FROM n
                """)
        }
    }
    try await db.close()
}

/// Runs the command line; exits 1 with a message on any failure.
func run() async {
    let arguments = Array(CommandLine.arguments.dropFirst())
    do {
        switch arguments.first ?? "" {
        case "write" where arguments.count == 2:
            try await write(path: arguments[1])
        case "verify" where arguments.count == 3:
            guard let last = Int64(arguments[2]) else {
                throw Failure(description: "LAST must be an integer, not \(arguments[2])")
            }
            let present = try checkTransactions(path: arguments[1])
            guard present >= last, present <= last + 1 else {
                throw Failure(description: "transactions 1…\(present) are present, but \(last) were reported")
            }
            report("verified \(present)")
        case "check-restore" where arguments.count == 5:
            guard let killedAt = Int64(arguments[3]), let window = Int64(arguments[4]) else {
                throw Failure(description: "KILL_MS and WINDOW_MS must be integers")
            }
            report(try checkRestore(path: arguments[1], commits: arguments[2], killedAt: killedAt, window: window))
        case "integrity" where arguments.count == 2:
            let conn = try Connection(path: arguments[1], options: Connection.Options(readOnly: true))
            defer { conn.close() }
            let problems = try conn.integrityCheck()
            guard problems.isEmpty else {
                throw Failure(description: "integrity_check: " + problems.joined(separator: "; "))
            }
            report("ok")
        case "fill" where arguments.count == 3:
            guard let megabytes = Int(arguments[2]), megabytes > 0 else {
                throw Failure(description: "MB must be a positive integer, not \(arguments[2])")
            }
            try await fill(path: arguments[1], megabytes: megabytes)
        default:
            throw Failure(
                description: "usage: bindery-replication-writer write FILE | verify FILE LAST | "
                    + "check-restore FILE COMMITS KILL_MS WINDOW_MS | integrity FILE | fill FILE MB")
        }
    } catch {
        FileHandle.standardError.write(Data("bindery-replication-writer: \(error)\n".utf8))
        exit(1)
    }
}

await run()
