// bindery-crash-writer: the helper of `scripts/crash-test`.
//
//   bindery-crash-writer write FILE         writes transactions 1, 2, 3 … (continuing after the last one
//                                           in FILE) through a `Database` in WAL mode until it is
//                                           killed, printing "committed N" as soon as each commit returns
//   bindery-crash-writer verify FILE LAST   checks FILE after a crash: PRAGMA integrity_check is clean,
//                                           every transaction up to LAST is present whole, at most one
//                                           more (committed but not yet reported) is, and none in part;
//                                           prints "verified M" (the last transaction present)
//
// Transaction N inserts rowCount(N) rows tagged N into `items`, one row into `log`, and adds to the
// running totals in `totals`, all in one `db.write`.

import Bindery
import Foundation

/// How many `items` rows transaction `n` inserts: 1 to 13, so that transactions differ in size.
func rowCount(_ n: Int64) -> Int64 {
    1 + n % 13
}

/// The payload length of row `seq` of transaction `n`: 8 to 135 bytes.
func payloadLength(_ n: Int64, _ seq: Int64) -> Int64 {
    8 + (n &* 31 &+ seq &* 17) % 128
}

/// The payload of row `seq` of transaction `n`.
func payload(_ n: Int64, _ seq: Int64) -> Data {
    Data(repeating: UInt8(truncatingIfNeeded: n &+ seq), count: Int(payloadLength(n, seq)))
}

struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// Writes to standard output at once (no buffering), so that a line printed is in the pipe before
/// the next transaction starts.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let schema = """
    CREATE TABLE IF NOT EXISTS items(
        id INTEGER PRIMARY KEY, txn INTEGER NOT NULL, seq INTEGER NOT NULL, payload BLOB NOT NULL);
    CREATE INDEX IF NOT EXISTS items_txn ON items(txn);
    CREATE TABLE IF NOT EXISTS log(txn INTEGER PRIMARY KEY, row_count INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS totals(
        id INTEGER PRIMARY KEY CHECK (id = 1), txn INTEGER NOT NULL, row_count INTEGER NOT NULL,
        bytes INTEGER NOT NULL);
    INSERT OR IGNORE INTO totals(id, txn, row_count, bytes) VALUES (1, 0, 0, 0);
    """

func write(path: String) async throws {
    let db = try Database(path: path)
    let (mode, synchronous) = try await db.writeWithoutTransaction { conn in
        (
            try conn.fetchOne(String.self, sql: "PRAGMA journal_mode") ?? "",
            try conn.fetchOne(Int.self, sql: "PRAGMA synchronous") ?? -1
        )
    }
    guard mode == "wal", synchronous == 1 else {
        throw Failure(description: "expected WAL mode with synchronous=NORMAL (1), got \(mode), \(synchronous)")
    }
    try await db.write { conn in try conn.execute(script: schema) }
    var n =
        try await db.read { conn in try conn.fetchOne(Int64.self, sql: "SELECT coalesce(max(txn), 0) FROM log") } ?? 0
    while true {
        n += 1
        let txn = n
        try await db.write { conn in
            var bytes: Int64 = 0
            for seq in 0..<rowCount(txn) {
                try conn.execute("INSERT INTO items(txn, seq, payload) VALUES (\(txn), \(seq), \(payload(txn, seq)))")
                bytes += payloadLength(txn, seq)
            }
            try conn.execute("INSERT INTO log(txn, row_count) VALUES (\(txn), \(rowCount(txn)))")
            try conn.execute(
                """
                UPDATE totals SET txn = \(txn), row_count = row_count + \(rowCount(txn)), bytes = bytes + \(bytes)
                WHERE id = 1
                """)
        }
        report("committed \(txn)")
    }
}

/// One transaction's rows as found in `items`.
struct Group: Decodable {
    var txn: Int64
    var rows: Int64
    var seqSum: Int64
    var bytes: Int64
    var wrongPayloads: Int64
}

/// The running totals.
struct Totals: Decodable, CustomStringConvertible {
    var txn: Int64
    var rowCount: Int64
    var bytes: Int64

    var description: String { "txn \(txn), \(rowCount) rows, \(bytes) bytes" }
}

/// Checks the file after a crash; returns the last transaction present.
func verify(path: String, last: Int64) throws -> Int64 {
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
            // Killed before the schema was committed: nothing can have been reported.
            guard last == 0 else {
                throw Failure(description: "transaction \(last) was reported committed, but the schema is missing")
            }
            return 0
        }
        // Every logged transaction, 1…present, each with the row count it should have.
        let present = try conn.fetchOne(Int64.self, sql: "SELECT count(*) FROM log") ?? 0
        let logged = try conn.fetchAll(Int64.self, sql: "SELECT row_count FROM log ORDER BY txn")
        let maxLogged = try conn.fetchOne(Int64.self, sql: "SELECT coalesce(max(txn), 0) FROM log") ?? 0
        guard maxLogged == present, logged == (0..<present).map({ rowCount($0 + 1) }) else {
            throw Failure(description: "the log is not transactions 1…\(present), each with its row count")
        }
        guard present >= last else {
            throw Failure(description: "transaction \(last) was reported committed, but only 1…\(present) are present")
        }
        guard present <= last + 1 else {
            throw Failure(description: "transactions 1…\(present) are present, but only \(last) were reported")
        }
        // Every transaction's items whole: its row count, its seq numbers, its payload bytes.
        let groups = try conn.fetchAll(
            Group.self,
            sql: """
                SELECT txn, count(*) AS rows, sum(seq) AS seqSum, sum(length(payload)) AS bytes,
                    sum(hex(payload) <> replace(hex(zeroblob(length(payload))), '00', printf('%02X', (txn + seq) % 256)))
                        AS wrongPayloads
                FROM items GROUP BY txn ORDER BY txn
                """)
        guard Int64(groups.count) == present else {
            throw Failure(description: "\(groups.count) transactions have items, but \(present) are logged")
        }
        var expectedRows: Int64 = 0
        var expectedBytes: Int64 = 0
        for (offset, group) in groups.enumerated() {
            let txn = Int64(offset) + 1
            let count = rowCount(txn)
            let bytes = (0..<count).reduce(Int64(0)) { $0 + payloadLength(txn, $1) }
            guard group.txn == txn, group.rows == count, group.seqSum == count * (count - 1) / 2,
                group.bytes == bytes, group.wrongPayloads == 0
            else {
                throw Failure(
                    description: "transaction \(txn) is present in part: \(group.rows) of \(count) rows, "
                        + "\(group.bytes) of \(bytes) bytes, \(group.wrongPayloads) wrong payloads")
            }
            expectedRows += count
            expectedBytes += bytes
        }
        // The running totals, updated by the same transactions.
        let totals = try conn.fetchOne(Totals.self, sql: "SELECT txn, row_count AS rowCount, bytes FROM totals")
        if let totals {
            guard totals.txn == present, totals.rowCount == expectedRows, totals.bytes == expectedBytes else {
                throw Failure(
                    description: "the totals (\(totals)) do not match \(present) transactions, \(expectedRows) rows, "
                        + "\(expectedBytes) bytes")
            }
        } else if present > 0 {
            throw Failure(description: "the totals row is missing")
        }
        return present
    }
}

/// Runs the command line; exits 1 with a message on any failure.
func run() async {
    let arguments = CommandLine.arguments
    do {
        switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
        case (3, "write"):
            try await write(path: arguments[2])
        case (4, "verify"):
            guard let last = Int64(arguments[3]) else {
                throw Failure(description: "LAST must be an integer, not \(arguments[3])")
            }
            report("verified \(try verify(path: arguments[2], last: last))")
        default:
            throw Failure(description: "usage: bindery-crash-writer write FILE | verify FILE LAST")
        }
    } catch {
        FileHandle.standardError.write(Data("bindery-crash-writer: \(error)\n".utf8))
        exit(1)
    }
}

await run()
