import Bindery
import Foundation

/// A pull with conflicts: a copy holding 1,000 pending local changes (each a transaction updating one
/// row) pulls 1,000 remote changesets (each updating one row); half of the rows the copy changed were
/// changed remotely too, so the rebase of its changes meets 500 conflicts, settled by last writer
/// wins. Beside it, the same pull into a copy with nothing pending. No goal: the line shows what
/// pending changes and conflicts cost a pull.
enum SyncConflictBench {
    static let rows = 2_000
    static let changes = 1_000
    /// The first row the local copy changes: rows `localStart..<localStart + changes` locally, rows
    /// `0..<changes` remotely, so `changes - localStart` rows are changed on both sides.
    static let localStart = 500
    static let name = "sync pull: 1,000 changesets over 1,000 pending"

    static func run(_ benchmark: Benchmark, in folder: SyncBench.Folder) async throws {
        guard benchmark.wants(name) else { return }
        let hub = try await SyncHub.inMemory()
        let items = (0..<rows).map { SyncedItem($0) }
        let remote = try await SyncBench.syncedDatabase(folder, "pull-remote")
        let remoteCopy = try await SyncCopy(database: remote, transport: InProcessSyncTransport(hub: hub))
        try await remote.insert(contentsOf: items)
        try await remoteCopy.push()

        // For each run, a copy with the rows and 1,000 pending changes, and one with the rows alone.
        var pendingCopies: [SyncCopy] = []
        var cleanCopies: [SyncCopy] = []
        for _ in 0...benchmark.runs {
            for pending in [true, false] {
                let db = try await SyncBench.syncedDatabase(folder, pending ? "pull-pending" : "pull-clean")
                let copy = try await SyncCopy(database: db, transport: InProcessSyncTransport(hub: hub))
                try await copy.pull()
                if pending {
                    for index in localStart..<localStart + changes {
                        try await db.write { conn in try conn.update(items[index].changed(3_000_000 + index)) }
                    }
                    pendingCopies.append(copy)
                } else {
                    cleanCopies.append(copy)
                }
            }
        }
        // The remote changes, one transaction and one hub entry each.
        for index in 0..<changes {
            try await remote.write { conn in try conn.update(items[index].changed(2_000_000 + index)) }
        }
        guard try await remoteCopy.push() == changes else {
            throw BenchmarkError.mismatch("the remote copy did not push its \(changes) changesets")
        }

        var nextPending = pendingCopies[...]
        var nextClean = cleanCopies[...]
        var pullTimes: [Double] = []
        try await benchmark.compareAsync(
            name, goal: nil, baselineName: "nothing pending", bindery: "1,000 pending",
            baseline: {
                guard let copy = nextClean.popFirst() else { return }
                guard try await copy.pull() == changes else {
                    throw BenchmarkError.mismatch("a pull did not apply the \(changes) remote changesets")
                }
            },
            bindery: {
                guard let copy = nextPending.popFirst() else { return }
                let start = DispatchTime.now().uptimeNanoseconds
                guard try await copy.pull() == changes else {
                    throw BenchmarkError.mismatch("a pull did not apply the \(changes) remote changesets")
                }
                pullTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            })

        // Each pending copy that pulled met the same conflicts and kept its pending changes, rebased.
        let expectedConflicts = changes - localStart
        for copy in pendingCopies[..<(pendingCopies.count - nextPending.count)] {
            let conflicts = try await copy.conflicts()
            let status = try await copy.status()
            guard conflicts.count == expectedConflicts, status.pendingChangesets == changes else {
                throw BenchmarkError.mismatch(
                    "a copy met \(conflicts.count) conflicts (not \(expectedConflicts)) and has "
                        + "\(status.pendingChangesets) pending changesets (not \(changes))")
            }
        }
        // The first pull is compareAsync's warm-up, left out of its median as here.
        let timed = pullTimes.dropFirst().sorted()
        if !timed.isEmpty {
            let pull = timed[timed.count / 2]
            print(
                "  (one pull of 1,000 changesets over 1,000 pending: \(format(pull * 1000, 1)) ms, "
                    + "\(format(pull / Double(changes) * 1e6, 1)) µs per changeset pulled, "
                    + "\(format(pull / Double(expectedConflicts) * 1e6, 1)) µs per conflict "
                    + "(\(expectedConflicts) conflicts, last writer wins))")
        }
        for copy in pendingCopies + cleanCopies {
            try await copy.database.close()
        }
        try await remote.close()
        try await hub.close()
    }
}
