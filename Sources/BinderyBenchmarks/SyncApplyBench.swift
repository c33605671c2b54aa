import Bindery
import CSQLite
import Foundation

/// Applying one changeset of 100,000 inserts: an empty copy pulls it from an in-memory hub (its only
/// entry, through ``InProcessSyncTransport``: the JSON messages, the checks, the bookkeeping), beside
/// `sqlite3changeset_apply` of the same bytes into an empty C database in one transaction, with a
/// conflict handler that omits (there are no conflicts).
enum SyncApplyBench {
    static let count = 100_000
    static let name = "sync apply: pull one changeset of 100,000 inserts"

    static func run(_ benchmark: Benchmark, in folder: SyncBench.Folder) async throws {
        guard benchmark.wants(name) else { return }
        // The changeset, made once: one transaction inserting every row, pushed to the hub.
        let hub = try await SyncHub.inMemory()
        let source = try await SyncBench.syncedDatabase(folder, "apply-source")
        try await source.insert(contentsOf: (0..<count).map { SyncedItem($0) })
        let bytes = try await source.read { conn in
            try conn.fetchAll(Data.self, sql: "SELECT changeset FROM bindery_sync_outbox")
        }
        let sourceCopy = try await SyncCopy(database: source, transport: InProcessSyncTransport(hub: hub))
        guard bytes.count == 1, let changeset = bytes.first, try await sourceCopy.push() == 1,
            try await hub.entryCount == 1
        else {
            throw BenchmarkError.mismatch(
                "the 100,000 inserts did not make one changeset, pushed as the hub's one entry")
        }
        print("  (the changeset: \(format(Double(changeset.count) / 1_048_576, 1)) MiB)")

        // An empty copy and an empty C database for each run, made beforehand.
        var copies: [SyncCopy] = []
        var raws: [RawDatabase] = []
        for _ in 0...benchmark.runs {
            let db = try await SyncBench.syncedDatabase(folder, "apply-copy")
            copies.append(try await SyncCopy(database: db, transport: InProcessSyncTransport(hub: hub)))
            raws.append(try SyncBench.rawDatabase(folder, "apply-c"))
        }
        var nextCopy = copies[...]
        var nextRaw = raws[...]
        try await benchmark.compareAsync(
            name, goal: 1.2, baselineName: "C apply", bindery: "Bindery",
            baseline: {
                guard let raw = nextRaw.popFirst() else { return }
                try applyWithC(changeset, to: raw)
            },
            bindery: {
                guard let copy = nextCopy.popFirst() else { return }
                guard try await copy.pull() == 1 else {
                    throw BenchmarkError.mismatch("the pull did not apply the hub's one changeset")
                }
            })

        // Every database that was filled holds the source's rows.
        let expected = try await SyncBench.summary(source)
        for raw in raws[..<(raws.count - nextRaw.count)] {
            guard try SyncBench.summary(raw) == expected else {
                throw BenchmarkError.mismatch("a C database differs from the source after the apply")
            }
        }
        for copy in copies[..<(copies.count - nextCopy.count)] {
            guard try await SyncBench.summary(copy.database) == expected else {
                throw BenchmarkError.mismatch("a copy differs from the source after its pull")
            }
            try await copy.database.close()
        }
        try await source.close()
        try await hub.close()
    }

    /// `sqlite3changeset_apply_v2` of `changeset` into `raw`, in one transaction.
    static func applyWithC(_ changeset: Data, to raw: RawDatabase) throws {
        try raw.exec("BEGIN IMMEDIATE")
        let code = changeset.withUnsafeBytes { buffer in
            // Safety: SQLite only reads the changeset (its parameter is not const for historical reasons).
            bindery_changeset_apply(
                raw.handle, Int32(buffer.count), UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                { _, _, _ in BINDERY_CHANGESET_OMIT }, nil)
        }
        guard code == SQLITE_OK else {
            try? raw.exec("ROLLBACK")
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(raw.handle)))
        }
        try raw.exec("COMMIT")
    }
}
