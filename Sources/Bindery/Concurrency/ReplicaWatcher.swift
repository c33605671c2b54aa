import Foundation

/// Keeps the connections of a read replica following the replica, each on one whole transaction at a
/// time, and tells the replica's observations when new transactions arrived.
///
/// **Why the connections that serve reads do not follow the replica themselves.** Litestream's VFS
/// 0.5.17 follows a replica by polling it and applying each new LTX file's pages to the connection's
/// page index. Two faults of that path (seen with `scripts/replica-test` and Litestream's default
/// compaction into level 1 every 30 seconds) make it unusable as is: a poll that brings a level-1 file
/// together with newer level-0 files lets the older level-1 pages win, so reads mix pages of two
/// transactions (a transaction seen in part, "database disk image is malformed"; upstream pull request
/// #1478); and a connection opened before the first level-1 compaction after a snapshot takes the next
/// level-1 file for a gap ("poll L1: non-contiguous ltx file") and stops following for good (upstream
/// issue #1460). A view built from scratch, from the replica's restore plan, is whole in both cases: it
/// is what opening a connection does, and what `PRAGMA litestream_time = 'latest'` does again.
///
/// So the connections that serve reads are opened with polling off (a poll interval of a day), and a
/// **lookout**, one more connection that never serves a read, polls the replica every poll interval:
/// only its position (`PRAGMA litestream_txid`, a file control) is used, never its pages. Every
/// ``interval`` the watcher compares each serving connection's position with the lookout's, and
/// rebuilds the view of each one that is behind (or whose view is older than ``refreshInterval``: the
/// level-0 files a view reads expire 5 minutes after their compaction into level 1), when it is idle,
/// so that no read in progress sees its view change. A lookout that stopped following (its last
/// successful poll ``stuckAfter`` seconds old, or none for that long) has its view rebuilt too.
///
/// **Observations.** Whenever a serving connection's position moved on, every observation runs again.
/// Connections move one after the other, so an observation may run on one still behind; the last one
/// to move triggers a run after it did, when every connection is there, so the observation ends on the
/// newest state. (It may run once per connection for one transaction;
/// ``DatabaseObservation/removeDuplicates()`` keeps only changes.)
final class ReplicaWatcher: @unchecked Sendable {
    // @unchecked Sendable is safe: the mutable properties are read and written only while `lock` is held;
    // the lookout connection is used only on its own queue (`ReaderConnection`).
    private let lock = NSLock()
    private var serving: [Int: Serving] = [:]
    private var lookoutUnpolledSince: Date?
    private var task: Task<Void, Never>?
    /// The connection that polls the replica; used only for its position.
    let lookout: ReaderConnection
    /// How often the connections are asked, in nanoseconds.
    let interval: UInt64
    /// How many seconds without a successful poll make the lookout count as no longer following: twice
    /// the poll interval, and at least 1 (the VFS counts whole seconds). The lookout itself may stop
    /// following (upstream #1460), and the replica's reads wait for it meanwhile: this is the extra
    /// delay a transaction may take around a compaction into level 1.
    let stuckAfter: Int
    /// How old a serving connection's view may grow before it is rebuilt, with no new transaction.
    let refreshInterval: TimeInterval = 60

    /// What the watcher knows of one serving connection.
    private struct Serving {
        var position: UInt64?
        var builtAt: Date
    }

    /// What one connection reports: its position, and the seconds since its VFS last polled the
    /// replica successfully (-1 or nil: not yet).
    struct Report: Sendable {
        let position: UInt64?
        let secondsSincePoll: Int?
    }

    /// What a serving connection reports after a round: its position, and whether its view was just
    /// rebuilt. (Serving connections never poll: how long ago is of no use.)
    private struct ServingReport: Sendable {
        let position: UInt64?
        let rebuilt: Bool
    }

    /// A watcher that asks every `interval` seconds, with `lookout` polling every `pollInterval`.
    init(lookout: ReaderConnection, interval: Double, pollInterval: Double) {
        self.lookout = lookout
        self.interval = UInt64(max(interval, 0.001) * 1_000_000_000)
        self.stuckAfter = max(1, Int((2 * pollInterval).rounded(.up)))
    }

    /// Starts watching `database`'s connections, until ``stop()`` or until the database is released.
    func start(database: Database) {
        let interval = self.interval
        let task = Task.detached { [weak database, weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: interval)
                guard let database, let self else { return }
                await self.tick(database)
            }
        }
        lock.withLock { self.task = task }
    }

    /// Stops watching, and closes the lookout.
    func stop() async {
        lock.withLock { task }?.cancel()
        await lookout.close()
    }

    /// One round: the lookout's position, then each serving connection brought to it.
    private func tick(_ database: Database) async {
        let newest = await lookout.run { conn in Self.report(of: conn) }
        if let newest, lookoutIsStuck(newest, now: Date()) {
            _ = await lookout.run { conn in Self.rebuildView(of: conn) }
        }
        let target = newest?.position
        let refreshInterval = self.refreshInterval
        let known = lock.withLock { serving }
        let reports = await database.onServingConnections { index, conn -> ServingReport? in
            guard !conn.isClosed else { return nil }
            let position = (try? Database.ReplicaStatus.position(of: conn)) ?? nil
            let behind = target.map { target in position.map { $0 < target } ?? true } ?? false
            let old = known[index].map { Date().timeIntervalSince($0.builtAt) >= refreshInterval } ?? false
            guard behind || old, Self.rebuildView(of: conn) else {
                return ServingReport(position: position, rebuilt: false)
            }
            return ServingReport(position: (try? Database.ReplicaStatus.position(of: conn)) ?? nil, rebuilt: true)
        }
        if noteServing(reports, now: Date()) {
            database.observationRegistry.notifyAll()
        }
    }

    /// Whether the lookout stopped following (see the type's comment); notes since when it has not
    /// polled successfully.
    private func lookoutIsStuck(_ report: Report, now: Date) -> Bool {
        lock.withLock {
            if let seconds = report.secondsSincePoll, seconds >= 0 {
                lookoutUnpolledSince = nil
                return seconds >= stuckAfter
            }
            let since = lookoutUnpolledSince ?? now
            lookoutUnpolledSince = since
            guard now.timeIntervalSince(since) >= Double(stuckAfter) else { return false }
            lookoutUnpolledSince = nil
            return true
        }
    }

    /// Records the serving connections' reports (by index; nil: closed); returns whether any position
    /// is new or further than before.
    private func noteServing(_ reports: [ServingReport?], now: Date) -> Bool {
        lock.withLock {
            var moved = false
            for (index, report) in reports.enumerated() {
                guard let report else { continue }
                var known = serving[index] ?? Serving(position: nil, builtAt: now)
                if report.rebuilt {
                    known.builtAt = now
                }
                if let position = report.position, known.position.map({ $0 < position }) ?? true {
                    known.position = position
                    moved = true
                }
                serving[index] = known
            }
            return moved
        }
    }

    /// What `connection` reports; nil when it is closed.
    static func report(of connection: Connection) -> Report? {
        guard !connection.isClosed else { return nil }
        return Report(
            position: (try? Database.ReplicaStatus.position(of: connection)) ?? nil,
            secondsSincePoll: (try? connection.filePragma("litestream_lag")).flatMap { $0.flatMap { Int($0) } })
    }

    /// Rebuilds `connection`'s view of the replica (``LitestreamVFS/rebuildView(of:)``) when the
    /// connection is idle; returns whether it did.
    static func rebuildView(of connection: Connection) -> Bool {
        guard connection.isIdle else { return false }
        return (try? LitestreamVFS.rebuildView(of: connection)) != nil
    }
}

extension Database {
    /// Runs `work` on each connection of a read replica that serves reads (the readers, or the writer
    /// connection when there are none), with its index, one after the other; nil for one that could
    /// not be reached (closed).
    nonisolated func onServingConnections<T: Sendable>(
        _ work: @escaping @Sendable (Int, Connection) -> T?
    ) async -> [T?] {
        if let readers {
            return await readers.eachReader(work)
        }
        let result = try? await useWriter { conn in work(0, conn) }
        return [result ?? nil]
    }
}
