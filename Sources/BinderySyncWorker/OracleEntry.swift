import Foundation

/// One line of a copy's oracle file.
///
/// - `write`: one row a write transaction wrote, appended (and flushed) inside the transaction just
///   before it commits: `op` is insert, update or delete, `token` the fresh token it set (none for a
///   delete), `previousToken` the token it read in the same transaction before overwriting or
///   deleting the row (none for an insert), `at` the time (Unix milliseconds) just before the commit.
/// - `ack`: appended (and flushed) after `db.write` returned: the transaction is acknowledged.
/// - `recovered`: appended by the next run of the copy, before it does anything else, for a
///   transaction whose intents are logged but whose `ack` is not (killed between the intents and
///   the acknowledgement): `committed` says whether the database has it.
struct OracleEntry: Codable, Sendable, Hashable {
    var kind: String
    var copy: Int
    var run: Int
    var txn: Int
    var table: String?
    var key: String?
    var op: String?
    var token: String?
    var previousToken: String?
    var at: Int64?
    var committed: Bool?

    /// A row written by transaction `txn` of run `run` of copy `copy`.
    static func write(
        copy: Int, run: Int, txn: Int, table: String, key: String, op: String, token: String?,
        previousToken: String?
    ) -> OracleEntry {
        OracleEntry(
            kind: "write", copy: copy, run: run, txn: txn, table: table, key: key, op: op, token: token,
            previousToken: previousToken)
    }

    /// Now, in Unix milliseconds (the clock of the conflict log's `recorded_at`).
    static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The transaction's identity: copy, run and number.
    var transaction: TransactionID { TransactionID(copy: copy, run: run, txn: txn) }

    enum CodingKeys: String, CodingKey {
        case kind, copy, run, txn, table, key, op, token, previousToken, at, committed
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(copy, forKey: .copy)
        try container.encode(run, forKey: .run)
        try container.encode(txn, forKey: .txn)
        if kind == "write" {
            try container.encode(table, forKey: .table)
            try container.encode(key, forKey: .key)
            try container.encode(op, forKey: .op)
            try container.encode(token, forKey: .token)
            try container.encode(previousToken, forKey: .previousToken)
            try container.encodeIfPresent(at, forKey: .at)
        }
        try container.encodeIfPresent(committed, forKey: .committed)
    }

    /// The entry as one JSON line.
    func line() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The entries of the oracle file at `path`; a line that does not parse is counted in `damaged`.
    static func read(path: String) -> (entries: [OracleEntry], damaged: Int) {
        let decoder = JSONDecoder()
        var entries: [OracleEntry] = []
        var damaged = 0
        for line in AppendLog.lines(of: path) {
            if let entry = try? decoder.decode(OracleEntry.self, from: Data(line.utf8)) {
                entries.append(entry)
            } else {
                damaged += 1
            }
        }
        return (entries, damaged)
    }
}
