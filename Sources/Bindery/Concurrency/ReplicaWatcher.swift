import Foundation

/// Keeps the connections of a read replica following the replica, and tells its observations that
/// new transactions arrived.
///
/// **Observations.** Each connection follows the replica on its own (Litestream's VFS polls it for
/// each open file), so two connections may stand a poll apart: an observation that runs on a
/// connection still behind reads the old state. So every ``interval`` the watcher asks every
/// connection that serves reads for its position (`PRAGMA litestream_txid`, a file control, no
/// statement), and makes every observation run again whenever any connection moved on. The last
/// connection to reach a transaction thus triggers a run after it did, on whichever connection: every
/// one is there by then, and the observation ends on the newest state. (An observation may run once
/// per connection for one transaction; ``DatabaseObservation/removeDuplicates()`` keeps only changes.)
///
/// **Connections that stop following.** Litestream's VFS 0.5.17 stops following for good when it
/// opened before the first compaction into level 1 after a snapshot (the replicator's start): its
/// level-1 cursor starts at its position, so the next level-1 file looks like a gap ("poll L1:
/// non-contiguous ltx file"), every later poll fails, and reads stay on that transaction (and fail
/// once the level-0 files they need expire, after 5 minutes). The VFS reports it: the seconds since
/// its last successful poll (`PRAGMA litestream_lag`) grow. A connection whose last successful poll is
/// ``stuckAfter`` seconds old (or that has not polled successfully for that long) is told to show the
/// latest state again (`PRAGMA litestream_time = 'latest'`), which rebuilds its view from the replica,
/// as a new connection would, once it is idle (no read in progress sees its view change).
final class ReplicaWatcher: @unchecked Sendable {
    // @unchecked Sendable is safe: `connections` and `task` are read and written only while `lock` is
    // held.
    private let lock = NSLock()
    private var connections: [Int: Following] = [:]
    private var task: Task<Void, Never>?
    /// How often the connections are asked, in nanoseconds.
    let interval: UInt64
    /// How many seconds without a successful poll make a connection count as no longer following.
    let stuckAfter: Int
    /// How many times a connection was told to show the latest state again; for tests and diagnostics.
    private(set) var resets: Int {
        get { lock.withLock { resetCount } }
        set { lock.withLock { resetCount = newValue } }
    }
    private var resetCount = 0

    /// What the watcher knows of one connection.
    private struct Following {
        var position: UInt64?
        /// When the connection was first seen without a successful poll, while it still is.
        var unpolledSince: Date?
    }

    /// What one connection reports: its position, and the seconds since its VFS last polled the
    /// replica successfully (-1: not yet).
    struct Report: Sendable {
        let position: UInt64?
        let secondsSincePoll: Int?
    }

    /// A watcher that asks every `interval` seconds, for a replica whose VFS polls every `pollInterval`.
    init(interval: Double, pollInterval: Double) {
        self.interval = UInt64(max(interval, 0.001) * 1_000_000_000)
        self.stuckAfter = max(2, Int((3 * pollInterval).rounded(.up)))
    }

    /// Starts watching `database`'s connections, until ``stop()`` or until the database is released.
    func start(database: Database) {
        let interval = self.interval
        let task = Task.detached { [weak database, weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: interval)
                guard let database, let self else { return }
                let reports = await database.replicaReports()
                let (moved, stuck) = self.note(reports, at: Date())
                if moved {
                    database.observationRegistry.notifyAll()
                }
                for index in stuck {
                    if await database.showLatest(onConnection: index) {
                        self.resets += 1
                    }
                }
            }
        }
        lock.withLock { self.task = task }
    }

    /// Stops watching.
    func stop() {
        lock.withLock { task }?.cancel()
    }

    /// Records each connection's report (by its index; nil when it could not be asked); returns whether
    /// any connection's position is new or further than before, and which connections stopped
    /// following.
    func note(_ reports: [Report?], at now: Date) -> (moved: Bool, stuck: [Int]) {
        lock.withLock {
            var moved = false
            var stuck: [Int] = []
            for (index, report) in reports.enumerated() {
                guard let report else { continue }
                var known = connections[index] ?? Following()
                if let position = report.position, known.position.map({ $0 < position }) ?? true {
                    known.position = position
                    moved = true
                }
                switch report.secondsSincePoll {
                case .some(let seconds) where seconds >= 0:
                    known.unpolledSince = nil
                    if seconds >= stuckAfter {
                        stuck.append(index)
                    }
                default:
                    let since = known.unpolledSince ?? now
                    known.unpolledSince = since
                    if now.timeIntervalSince(since) >= Double(stuckAfter) {
                        stuck.append(index)
                        known.unpolledSince = nil
                    }
                }
                connections[index] = known
            }
            return (moved, stuck)
        }
    }

    /// What `connection` reports; nil when it is closed.
    static func report(of connection: Connection) -> Report? {
        guard !connection.isClosed else { return nil }
        return Report(
            position: (try? Database.ReplicaStatus.position(of: connection)) ?? nil,
            secondsSincePoll: (try? connection.filePragma("litestream_lag")).flatMap { $0.flatMap { Int($0) } })
    }

    /// Tells `connection`'s VFS to show the latest state again, when the connection is idle; returns
    /// whether it did.
    static func showLatest(on connection: Connection) -> Bool {
        guard connection.isIdle else { return false }
        do {
            _ = try connection.filePragma("litestream_time", value: "latest")
            return true
        } catch {
            return false
        }
    }
}

extension Database {
    /// What each connection of a read replica that serves reads (the readers, or the writer connection
    /// when there are none) reports; nil for one that could not be asked (closed).
    nonisolated func replicaReports() async -> [ReplicaWatcher.Report?] {
        if let readers {
            return await readers.eachReader { conn in ReplicaWatcher.report(of: conn) }
        }
        let report = try? await useWriter { conn in ReplicaWatcher.report(of: conn) }
        return [report ?? nil]
    }

    /// Tells the VFS of connection `index` (as in ``replicaReports()``) to show the latest state again,
    /// when it is idle; returns whether it did.
    nonisolated func showLatest(onConnection index: Int) async -> Bool {
        if let readers {
            return await readers.onReader(index) { conn in ReplicaWatcher.showLatest(on: conn) } ?? false
        }
        return (try? await useWriter { conn in ReplicaWatcher.showLatest(on: conn) }) ?? false
    }
}
