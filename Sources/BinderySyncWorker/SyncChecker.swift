import Bindery
import Foundation

/// The final check of `scripts/sync-test`, after every copy synced and pulled once more:
/// (a) a replay database (the same migration, no local writes) pulls the whole hub log;
/// (b) every copy's per-table checksums equal the replay's;
/// (c) `PRAGMA foreign_key_check` is empty and `PRAGMA integrity_check` ok everywhere, and every
///     copy has nothing pending, no error, and the hub's head applied;
/// (d) the oracle (``OracleCheck``) finds no lost write and no invented token.
/// Prints the figures; returns the failures (none when the check passed).
struct SyncChecker {
    let files: WorkerFiles
    let copies: Int

    func run() async throws -> [String] {
        var failures: [String] = []
        let hub = try await SyncHub(path: files.hub)
        let head = try await hub.head()
        try await hub.close()

        // (a) The replay: a fresh copy that pulls the whole log.
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: files.replay + suffix)
        }
        var snapshots: [CopySnapshot] = []
        let replayDatabase = try await WorkerSchema.open(path: files.replay)
        let replay = try await SyncCopy(database: replayDatabase, transport: FileSyncTransport(hubPath: files.hub))
        let replayed = try await replay.pull()
        let reference = try await CopySnapshot.read(name: "replay", database: replayDatabase, copy: replay)
        try await replayDatabase.close()
        if replayed != head {
            failures.append("the replay applied \(replayed) changesets, the hub's head is \(head)")
        }
        for copy in 0..<copies {
            let database = try await WorkerSchema.open(path: files.database(copy))
            let syncCopy = try await SyncCopy(database: database, transport: FileSyncTransport(hubPath: files.hub))
            snapshots.append(try await CopySnapshot.read(name: "copy \(copy)", database: database, copy: syncCopy))
            try await database.close()
        }

        // (b) and (c)
        for snapshot in [reference] + snapshots {
            for table in WorkerSchema.tables where snapshot.checksums[table] != reference.checksums[table] {
                failures.append(
                    "\(snapshot.name): table \(table) differs from the replay: \(snapshot.rowCounts[table] ?? 0) rows, "
                        + "checksum \(snapshot.checksums[table] ?? "-"); the replay has "
                        + "\(reference.rowCounts[table] ?? 0) rows, \(reference.checksums[table] ?? "-")")
            }
            failures += snapshot.foreignKeyViolations.map { "\(snapshot.name): foreign_key_check: \($0)" }
            failures += snapshot.integrityProblems.map { "\(snapshot.name): integrity_check: \($0)" }
            if let status = snapshot.status {
                if status.pendingChangesets != 0 || status.lastAppliedSequence != head || status.lastError != nil {
                    failures.append(
                        "\(snapshot.name): after the final sync: \(status.pendingChangesets) changesets pending, "
                            + "hub sequence \(status.lastAppliedSequence) of \(head) applied, last error "
                            + (status.lastError ?? "none"))
                }
            }
        }

        // (d) The oracle.
        var conflictTimes: [String: Int64] = [:]
        for snapshot in [reference] + snapshots {
            conflictTimes.merge(snapshot.lastConflictTimes) { max($0, $1) }
        }
        // The tokens each logged decision dropped, as "table/'key'/token".
        var droppedTokens = Set<String>()
        for snapshot in [reference] + snapshots {
            for conflict in snapshot.conflicts {
                for token in OracleCheck.tokens(inDropped: conflict.dropped ?? "") {
                    droppedTokens.insert(conflict.table + "/" + conflict.key + "/" + token)
                }
            }
        }
        let oracle = OracleCheck(
            files: files, copies: copies, tokens: reference.tokens, lastConflictTimes: conflictTimes,
            droppedTokens: droppedTokens)
        failures += oracle.failures

        print(figures(head: head, reference: reference, snapshots: snapshots, oracle: oracle).joined(separator: "\n"))
        return failures
    }

    /// The lines the check prints.
    private func figures(
        head: Int64, reference: CopySnapshot, snapshots: [CopySnapshot], oracle: OracleCheck
    ) -> [String] {
        var events: [String: (calls: Int, changesets: Int, largest: Int)] = [:]
        for copy in 0..<copies {
            for line in AppendLog.lines(of: files.events(copy)) {
                let parts = line.split(separator: " ")
                guard let name = parts.first.map(String.init) else { continue }
                let count = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                events[name, default: (0, 0, 0)].calls += 1
                events[name, default: (0, 0, 0)].changesets += count
                events[name, default: (0, 0, 0)].largest = max(events[name]?.largest ?? 0, count)
            }
        }
        var lines = [
            "  copies: \(copies) and a replay; hub head: \(head) changesets",
            "  transactions acknowledged: \(oracle.acknowledgedTransactions) (\(oracle.acknowledgedWrites) row writes); "
                + "rolled back on purpose: \(events["rollback"]?.calls ?? 0)",
            "  killed between the oracle's intents and the acknowledgement: \(oracle.recoveredCommitted) committed, "
                + "\(oracle.recoveredNotCommitted) not committed (found by the restarted copy)",
            "  pushes: \(events["push"]?.calls ?? 0) (\(events["push"]?.changesets ?? 0) changesets); "
                + "pulls: \(events["pull"]?.calls ?? 0) (\(events["pull"]?.changesets ?? 0) changesets applied, "
                + "at most \(events["pull"]?.largest ?? 0) in one pull); partitions: \(events["offline"]?.calls ?? 0) "
                + "(the longest \(events["offline"]?.largest ?? 0) transactions)",
            "  changesets in the hub that no finished push reported: "
                + "\(head - Int64(events["push"]?.changesets ?? 0)) (a kill fell after the hub stored them; each was "
                + "seen back by a pull or pushed again)",
            "  committed writes: \(oracle.final) final, \(oracle.superseded) knowingly replaced, "
                + "\(oracle.conflictLogged) lost to a logged conflict decision; deletes held: \(oracle.deletesHeld)",
            "  lost writes: \(oracle.lost.count); final tokens no committed write set: "
                + "\(oracle.unknownFinalTokens.count + oracle.rolledBackSeen.count)",
        ]
        lines.append("  conflicts by decision (replay / all copies):")
        var decisions: [String: (replay: Int, copies: Int)] = [:]
        for conflict in reference.conflicts {
            decisions[conflict.decision, default: (0, 0)].replay += 1
        }
        for snapshot in snapshots {
            for conflict in snapshot.conflicts {
                decisions[conflict.decision, default: (0, 0)].copies += 1
            }
        }
        for (decision, count) in decisions.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(count.replay) / \(count.copies)  \(decision)")
        }
        for table in WorkerSchema.tables {
            let equal = snapshots.allSatisfy { $0.checksums[table] == reference.checksums[table] }
            lines.append(
                "  \(table): \(reference.rowCounts[table] ?? 0) rows, sha256 \(reference.checksums[table] ?? "-") "
                    + (equal ? "(equal on every copy and the replay)" : "(DIFFERS)"))
        }
        return lines
    }
}
