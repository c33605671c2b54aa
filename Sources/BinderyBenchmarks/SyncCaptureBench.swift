import Bindery
import CSQLite
import Foundation

/// Change capture: the same write transactions (each inserting 5 records and updating 5, through
/// `insert` and `update`) on a synced table and on an unsynced one, and the unsynced ones beside a C
/// loop running the same statements.
enum SyncCaptureBench {
    static let transactions = 2_000
    static let insertsPerTransaction = 5
    static let updatesPerTransaction = 5
    /// The rows every database starts with, which the updates change.
    static let seedCount = 10_000

    static let syncedName = "sync capture: 2,000 transactions, synced vs not"
    static let plainName = "sync capture: the same transactions unsynced, vs C"

    /// One transaction: the records it inserts and the records it updates, and their keys as text for
    /// the C loop (made beforehand, as a C program would have them).
    struct Transaction: Sendable {
        var inserts: [SyncedItem]
        var updates: [SyncedItem]
        var insertKeys: [String]
        var updateKeys: [String]
    }

    /// One run's work.
    struct Work: Sendable {
        var transactions: [Transaction]
    }

    static func run(_ benchmark: Benchmark, in folder: SyncBench.Folder) async throws {
        let wantsSynced = benchmark.wants(syncedName)
        let wantsPlain = benchmark.wants(plainName)
        guard wantsSynced || wantsPlain else { return }
        let seed = (0..<seedCount).map { SyncedItem($0) }
        var seedKey = 0
        if wantsSynced {
            let synced = try await SyncBench.syncedDatabase(folder, "capture-synced")
            let plain = try await SyncBench.plainDatabase(folder, "capture-plain")
            for db in [synced, plain] {
                try await db.insert(contentsOf: seed)
            }
            var works = (0...benchmark.runs).map { work($0, seed: seed, key: &seedKey) }[...]
            var plainWorks = works
            try await benchmark.compareAsync(
                syncedName, goal: 1.3, baselineName: "unsynced", bindery: "synced",
                baseline: {
                    guard let work = plainWorks.popFirst() else { return }
                    try await write(work, to: plain)
                },
                bindery: {
                    guard let work = works.popFirst() else { return }
                    try await write(work, to: synced)
                })
            let outbox = try await synced.read { conn in
                try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM bindery_sync_outbox")
            }
            let expected = 1 + (benchmark.runs + 1) * transactions
            guard outbox == expected, try await SyncBench.summary(synced) == SyncBench.summary(plain) else {
                throw BenchmarkError.mismatch(
                    "the synced and unsynced databases differ, or the outbox holds \(outbox ?? 0) changesets, "
                        + "not \(expected)")
            }
            try await synced.close()
            try await plain.close()
        }
        if wantsPlain {
            let plain = try await SyncBench.plainDatabase(folder, "capture-plain-c")
            let raw = try SyncBench.rawDatabase(folder, "capture-c")
            try await plain.insert(contentsOf: seed)
            try insertWithC(seed, raw)
            var works = (0...benchmark.runs).map { work($0, seed: seed, key: &seedKey) }[...]
            var cWorks = works
            let statements = try CStatements(raw)
            try await benchmark.compareAsync(
                plainName, goal: nil, baselineName: "C API", bindery: "Bindery",
                baseline: {
                    guard let work = cWorks.popFirst() else { return }
                    try writeWithC(work, statements)
                },
                bindery: {
                    guard let work = works.popFirst() else { return }
                    try await write(work, to: plain)
                })
            statements.finalize()
            guard try await SyncBench.summary(plain) == SyncBench.summary(raw) else {
                throw BenchmarkError.mismatch("the Bindery and C databases of the capture lines differ")
            }
            try await plain.close()
        }
    }

    /// Run `run`'s work: new records, and seed rows changed, from the seed row `key` on (`key` moves
    /// on, so that each run updates other rows than the last).
    static func work(_ run: Int, seed: [SyncedItem], key: inout Int) -> Work {
        var transactions: [Transaction] = []
        transactions.reserveCapacity(self.transactions)
        for index in 0..<self.transactions {
            let n = (run + 1) * 1_000_000 + index * 10
            let inserts = (0..<insertsPerTransaction).map { SyncedItem(n + $0) }
            var updates: [SyncedItem] = []
            for offset in 0..<updatesPerTransaction {
                updates.append(seed[key % seed.count].changed(n + 5 + offset))
                key += 1
            }
            transactions.append(
                Transaction(
                    inserts: inserts, updates: updates, insertKeys: inserts.map(\.key), updateKeys: updates.map(\.key)))
        }
        return Work(transactions: transactions)
    }

    // MARK: Bindery

    /// Each transaction of `work` as one `db.write`.
    static func write(_ work: Work, to db: Database) async throws {
        for transaction in work.transactions {
            try await db.write { conn in
                for item in transaction.inserts {
                    _ = try conn.insert(item)
                }
                for item in transaction.updates {
                    try conn.update(item)
                }
            }
        }
    }

    // MARK: C

    /// The statements of the C loop, prepared once.
    struct CStatements {
        let raw: RawDatabase
        let begin: OpaquePointer
        let commit: OpaquePointer
        let insert: OpaquePointer
        let update: OpaquePointer

        init(_ raw: RawDatabase) throws {
            self.raw = raw
            begin = try raw.prepare("BEGIN IMMEDIATE")
            commit = try raw.prepare("COMMIT")
            insert = try raw.prepare(SyncedItem.insertSQL)
            update = try raw.prepare(SyncedItem.updateSQL)
        }

        func finalize() {
            for statement in [begin, commit, insert, update] {
                sqlite3_finalize(statement)
            }
        }
    }

    static func writeWithC(_ work: Work, _ c: CStatements) throws {
        for transaction in work.transactions {
            try step(c.begin, c.raw)
            for (item, key) in zip(transaction.inserts, transaction.insertKeys) {
                bindInsert(c.insert, item, key: key)
                try step(c.insert, c.raw)
            }
            for (item, key) in zip(transaction.updates, transaction.updateKeys) {
                bindText(c.update, 1, item.name)
                bindText(c.update, 2, item.note)
                bindText(c.update, 3, item.tag)
                sqlite3_bind_int64(c.update, 4, Int64(item.count))
                bindText(c.update, 5, key)
                try step(c.update, c.raw)
                guard sqlite3_changes(c.raw.handle) == 1 else {
                    throw BenchmarkError.mismatch("no row \(key) to update")
                }
            }
            try step(c.commit, c.raw)
        }
    }

    static func insertWithC(_ items: [SyncedItem], _ raw: RawDatabase) throws {
        let insert = try raw.prepare(SyncedItem.insertSQL)
        defer { sqlite3_finalize(insert) }
        try raw.exec("BEGIN")
        for item in items {
            bindInsert(insert, item, key: item.key)
            try step(insert, raw)
        }
        try raw.exec("COMMIT")
    }

    static func bindInsert(_ insert: OpaquePointer, _ item: SyncedItem, key: String) {
        bindText(insert, 1, key)
        bindText(insert, 2, item.name)
        bindText(insert, 3, item.note)
        bindText(insert, 4, item.tag)
        sqlite3_bind_int64(insert, 5, Int64(item.count))
    }

    static func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
        sqlite3_bind_text(statement, index, text, -1, bindery_sqlite_transient())
    }

    /// Runs `statement` to its end and resets it; throws SQLite's message when it fails.
    static func step(_ statement: OpaquePointer, _ raw: RawDatabase) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE || code == SQLITE_ROW else {
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(raw.handle)))
        }
    }
}
