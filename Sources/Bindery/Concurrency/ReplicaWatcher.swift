import Foundation

/// Tells the observations of a read replica that new transactions arrived.
///
/// Each connection of a replica follows the replica on its own (Litestream's VFS polls it for each
/// open file), so two connections may stand a poll apart: an observation that runs on a connection
/// still behind reads the old state. So the watcher asks every connection that serves reads for its
/// position (`PRAGMA litestream_txid`, a file control, no statement) every ``interval``, and makes every
/// observation run again whenever any connection moved on. The last connection to reach a transaction
/// thus triggers a run after it did, on whichever connection: every one is there by then, and the
/// observation ends on the newest state. (An observation may run once per connection for one
/// transaction; ``DatabaseObservation/removeDuplicates()`` keeps only changes.)
final class ReplicaWatcher: @unchecked Sendable {
    // @unchecked Sendable is safe: `positions` and `task` are read and written only while `lock` is held.
    private let lock = NSLock()
    private var positions: [Int: UInt64] = [:]
    private var task: Task<Void, Never>?
    /// How often the connections are asked, in nanoseconds.
    let interval: UInt64

    /// A watcher that asks every `interval` seconds.
    init(interval: Double) {
        self.interval = UInt64(max(interval, 0.001) * 1_000_000_000)
    }

    /// Starts asking `database`'s connections, until ``stop()`` or until the database is released.
    func start(database: Database) {
        let interval = self.interval
        let task = Task.detached { [weak database, weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: interval)
                guard let database, let self else { return }
                let positions = await database.replicaPositions()
                if self.note(positions) {
                    database.observationRegistry.notifyAll()
                }
            }
        }
        lock.withLock { self.task = task }
    }

    /// Stops asking.
    func stop() {
        lock.withLock { task }?.cancel()
    }

    /// Records each connection's position (by its index; nil when it could not be asked); returns
    /// whether any is new or further than before.
    func note(_ positions: [UInt64?]) -> Bool {
        lock.withLock {
            var moved = false
            for (index, position) in positions.enumerated() {
                guard let position else { continue }
                if let known = self.positions[index], known >= position {
                    continue
                }
                self.positions[index] = position
                moved = true
            }
            return moved
        }
    }
}

extension Database {
    /// The position of each connection of a read replica that serves reads (the readers, or the
    /// writer connection when there are none); nil for one that could not be asked (closed).
    nonisolated func replicaPositions() async -> [UInt64?] {
        if let readers {
            return await readers.eachReader { conn in
                conn.isClosed ? nil : (try? ReplicaStatus.position(of: conn)) ?? nil
            }
        }
        let position = try? await useWriter { conn in try ReplicaStatus.position(of: conn) }
        return [position ?? nil]
    }
}
