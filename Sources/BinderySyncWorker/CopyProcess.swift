import Bindery
import Foundation

/// One launch ("run") of a copy process: opens the copy's database, settles the oracle's last
/// transaction a kill left unacknowledged, then runs the workload or a final sync.
struct CopyProcess {
    let files: WorkerFiles
    let copy: Int
    let run: Int
    let phase: PhaseFile
    let oracle: AppendLog
    let events: AppendLog
    let database: Database
    let syncCopy: SyncCopy

    /// Opens the copy: its phase, oracle and event files, its database (migrated), its recovery,
    /// and its ``SyncCopy`` on the hub file.
    static func open(files: WorkerFiles, copy: Int, run: Int) async throws -> CopyProcess {
        let phase = try PhaseFile(path: files.phase(copy))
        phase.set("open")
        let oracle = try AppendLog(path: files.oracle(copy))
        let events = try AppendLog(path: files.events(copy))
        let database = try await WorkerSchema.open(path: files.database(copy))
        phase.set("recover")
        try await recover(database: database, oracle: oracle)
        let syncCopy = try await SyncCopy(database: database, transport: FileSyncTransport(hubPath: files.hub))
        phase.set("idle")
        return CopyProcess(
            files: files, copy: copy, run: run, phase: phase, oracle: oracle, events: events, database: database,
            syncCopy: syncCopy)
    }

    /// Settles every transaction whose intents the oracle has without an `ack` or a `recovered`
    /// line (there is at most one: the last of a killed run, as each run recovers before it writes):
    /// the database tells whether it committed, since nothing changed the file since the kill.
    static func recover(database: Database, oracle: AppendLog) async throws {
        let entries = OracleEntry.read(path: oracle.path).entries
        var settled = Set<TransactionID>()
        var intents: [TransactionID: [OracleEntry]] = [:]
        for entry in entries {
            switch entry.kind {
            case "write": intents[entry.transaction, default: []].append(entry)
            default: settled.insert(entry.transaction)
            }
        }
        for (transaction, writes) in intents.sorted(by: { $0.key < $1.key }) where !settled.contains(transaction) {
            // The last write of each row decides what the row holds if the transaction committed; a
            // row it deleted tells only when it existed before (its first write was not an insert).
            var first: [String: OracleEntry] = [:]
            var last: [String: OracleEntry] = [:]
            for write in writes {
                let row = (write.table ?? "") + "/" + (write.key ?? "")
                first[row] = first[row] ?? write
                last[row] = write
            }
            let rows = last.keys.sorted()
            let probe =
                rows.first { last[$0]?.op != "delete" }
                ?? rows.first { first[$0]?.op != "insert" }
            var committed = false
            if let probe, let chosen = last[probe], let table = chosen.table, let key = chosen.key {
                let token = try await database.read { conn in
                    try WorkloadTransaction.storedToken(of: table, key, conn)
                }
                committed = chosen.op == "delete" ? token == nil : token == chosen.token
            }
            // Without a probe (rows inserted and deleted again) the transaction changed nothing
            // lasting: counted as not committed.
            var line = OracleEntry(
                kind: "recovered", copy: transaction.copy, run: transaction.run, txn: transaction.txn)
            line.committed = committed
            try oracle.append([try line.line()], durable: true)
        }
    }

    // MARK: The workload

    /// Runs random write transactions for `seconds`, syncing every few transactions unless the copy
    /// is offline (a partition, started now and then, of 8 to 40 transactions or one in eight times 60 to
    /// 250).
    func runWorkload(seed: UInt64, seconds: Double) async throws {
        var random = SeededRandom(seed: seed)
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var txn = 0
        var offline = 0
        var untilSync = Int.random(in: 1...4, using: &random)
        while ContinuousClock.now < deadline {
            txn += 1
            try await write(txn: txn, seed: random.next(), rollback: random.chance(5))
            if offline > 0 {
                offline -= 1
                if offline == 0 {
                    try events.append(["online"], durable: false)
                }
            } else if random.chance(4) {
                // Mostly short partitions; one in eight long enough that the copy comes back to more
                // than one pull batch (256 changesets) and a long rebase.
                offline =
                    random.chance(12)
                    ? Int.random(in: 60...250, using: &random) : Int.random(in: 8...40, using: &random)
                try events.append(["offline \(offline)"], durable: false)
            } else {
                untilSync -= 1
                if untilSync == 0 {
                    untilSync = Int.random(in: 1...4, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: try await push()
                    case 1: try await pull()
                    default: try await sync()
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...4, using: &random)))
        }
        phase.set("done")
    }

    /// One write transaction, its intents logged before it commits and its `ack` after.
    func write(txn: Int, seed: UInt64, rollback: Bool) async throws {
        let transaction = WorkloadTransaction(
            copy: copy, run: run, txn: txn, seed: seed, rollback: rollback, oracle: oracle)
        phase.set("write")
        do {
            let written = try await database.write { conn in try transaction.perform(on: conn) }
            if !written.isEmpty {
                try oracle.append([try OracleEntry(kind: "ack", copy: copy, run: run, txn: txn).line()], durable: true)
            }
            try events.append(["transaction"], durable: false)
        } catch is DeliberateRollback {
            try events.append(["rollback"], durable: false)
        }
        phase.set("idle")
    }

    // MARK: Syncing

    /// ``SyncCopy/sync()`` step by step, so that the phase file shows each step.
    func sync() async throws {
        try await push()
        try await pull()
        try await push()
    }

    func push() async throws {
        phase.set("push")
        let count = try await syncCopy.push()
        try events.append(["push \(count)"], durable: false)
        phase.set("idle")
    }

    func pull() async throws {
        phase.set("pull")
        let count = try await syncCopy.pull()
        try events.append(["pull \(count)"], durable: false)
        phase.set("idle")
    }

    func close() async throws {
        phase.set("done")
        try await database.close()
    }
}
