/// The oracle's verdict: every write a copy committed (acknowledged, or found committed by the
/// recovery after a kill) is in the final data, or was knowingly replaced, or its loss is a logged
/// conflict decision; and every final token comes from a committed write.
///
/// A write W of row K with token T is
/// - **final** when K's final token is T;
/// - **superseded** when a committed write has previousToken == T (it read T and overwrote or
///   deleted it in the same transaction);
/// - **conflict-logged** when any copy (or the replay) logged a conflict decision for K's table and
///   key whose dropped values (``SyncConflictRecord/dropped``) hold T: the decision that dropped W
///   names it;
/// - otherwise **lost**.
///
/// A delete of K that read token P is lost when K's final token is P again with no conflict logged
/// for K after the delete (the deleted row came back).
struct OracleCheck {
    var acknowledgedTransactions = 0
    var acknowledgedWrites = 0
    var recoveredCommitted = 0
    var recoveredNotCommitted = 0
    var rolledBackSeen: [String] = []
    var dangling: [TransactionID] = []
    var damagedLines = 0
    var final = 0
    var superseded = 0
    var conflictLogged = 0
    var deletesHeld = 0
    var lost: [String] = []
    var unknownFinalTokens: [String] = []

    /// How many milliseconds a conflict may seem older than the write it dropped (the log's
    /// `recorded_at` is rounded to the millisecond).
    static let clockSlack: Int64 = 2

    /// Checks the oracle files of `copies` against the final `tokens` (table -> key -> token) and
    /// the time of the last conflict decision logged anywhere for each "table/'key'".
    init(
        files: WorkerFiles, copies: Int, tokens: [String: [String: String?]], lastConflictTimes: [String: Int64],
        droppedTokens: Set<String>
    ) {
        var intents: [TransactionID: [OracleEntry]] = [:]
        var acknowledged = Set<TransactionID>()
        var recovered: [TransactionID: Bool] = [:]
        for copy in 0..<copies {
            let (entries, damaged) = OracleEntry.read(path: files.oracle(copy))
            damagedLines += damaged
            for entry in entries {
                switch entry.kind {
                case "write": intents[entry.transaction, default: []].append(entry)
                case "ack": acknowledged.insert(entry.transaction)
                case "recovered": recovered[entry.transaction] = entry.committed ?? false
                default: damagedLines += 1
                }
            }
        }
        var committed: [OracleEntry] = []
        var notCommittedTokens = Set<String>()
        for (transaction, writes) in intents {
            if acknowledged.contains(transaction) {
                acknowledgedTransactions += 1
                acknowledgedWrites += writes.count
                committed += writes
            } else if let wasCommitted = recovered[transaction] {
                if wasCommitted {
                    recoveredCommitted += 1
                    committed += writes
                } else {
                    recoveredNotCommitted += 1
                    notCommittedTokens.formUnion(writes.compactMap(\.token))
                }
            } else {
                dangling.append(transaction)
            }
        }
        dangling.sort()
        var replaced = Set<String>()
        var committedTokens = Set<String>()
        for write in committed {
            if let previous = write.previousToken {
                replaced.insert((write.table ?? "") + "/" + previous)
            }
            if let token = write.token {
                committedTokens.insert(token)
            }
        }
        for write in committed.sorted(by: { ($0.transaction, $0.key ?? "") < ($1.transaction, $1.key ?? "") }) {
            guard let table = write.table, let key = write.key else { continue }
            let finalToken = tokens[table]?[key] ?? nil
            let logged =
                lastConflictTimes[Self.conflictKey(table, key)].map { $0 + Self.clockSlack >= write.at ?? 0 } ?? false
            if write.op == "delete" {
                if finalToken != nil, finalToken == write.previousToken, !logged {
                    lost.append(
                        "\(write.transaction): the delete of \(table) \(key) (token \(write.previousToken ?? "NULL")) "
                            + "was undone: the row is back with that token, and no conflict is logged for it after "
                            + "the delete")
                } else {
                    deletesHeld += 1
                }
                continue
            }
            guard let token = write.token else { continue }
            if finalToken == token {
                final += 1
            } else if replaced.contains(table + "/" + token) {
                superseded += 1
            } else if droppedTokens.contains(Self.conflictKey(table, key) + "/" + token) {
                conflictLogged += 1
            } else {
                lost.append(
                    "\(write.transaction): the \(write.op ?? "write") of \(table) \(key) with token \(token) is "
                        + "lost: the final token is \(finalToken ?? "none (row missing)"), no committed write "
                        + "replaced it, and no conflict decision logged for the key dropped it")
            }
        }
        for (table, rows) in tokens.sorted(by: { $0.key < $1.key }) {
            for (key, token) in rows.sorted(by: { $0.key < $1.key }) {
                guard let token, !committedTokens.contains(token) else { continue }
                if token.hasPrefix("rollback-") {
                    rolledBackSeen.append("\(table) \(key): \(token)")
                } else if notCommittedTokens.contains(token) {
                    unknownFinalTokens.append("\(table) \(key): \(token) (the recovery found it not committed)")
                } else {
                    unknownFinalTokens.append("\(table) \(key): \(token) (no transaction wrote it)")
                }
            }
        }
    }

    /// The tokens in a conflict record's dropped values (`token = '…'`).
    static func tokens(inDropped dropped: String) -> [String] {
        var found: [String] = []
        var rest = dropped[...]
        while let range = rest.range(of: "token = '") {
            rest = rest[range.upperBound...]
            guard let end = rest.firstIndex(of: "'") else { break }
            found.append(String(rest[..<end]))
            rest = rest[end...].dropFirst()
        }
        return found
    }

    /// The key of the conflict log's rows for `key` of `table`: its SQL literal.
    static func conflictKey(_ table: String, _ key: String) -> String {
        table + "/" + "'" + key.replacingOccurrences(of: "'", with: "''") + "'"
    }

    var failures: [String] {
        var failures: [String] = []
        if !dangling.isEmpty {
            failures.append("transactions with intents but neither acknowledged nor recovered: \(dangling)")
        }
        if damagedLines > 0 {
            failures.append("\(damagedLines) oracle lines do not parse")
        }
        failures += lost.map { "LOST WRITE: " + $0 }
        failures += rolledBackSeen.map { "a write of a rolled-back transaction is in the final data: " + $0 }
        failures += unknownFinalTokens.map { "a final token no committed write set: " + $0 }
        return failures
    }
}
