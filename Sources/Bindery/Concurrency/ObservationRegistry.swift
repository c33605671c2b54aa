import Foundation

/// The live observations of one ``Database``: which tables each one's query read last time, and
/// whether it must run again after a write.
///
/// Each observation is in one of three phases:
/// - **idle**: it waits; a committed change to a table of its region schedules a run;
/// - **scheduled**: a run is due and has not started; further changes need nothing more, since the
///   run reads after them;
/// - **running**: its query runs; changes are gathered meanwhile, and when the run ends (and its new
///   region is known) a change to a table of that region schedules another run. The run may have
///   read from a snapshot older than those changes, and the query may have read other tables this
///   time.
///
/// So a change committed before ``didCommit(_:)`` is called is always followed by a run that sees it:
/// the last state is never lost, while changes that arrive together share one run.
final class ObservationRegistry: @unchecked Sendable {
    // @unchecked Sendable is safe: `entries` and `nextID` are read and written only while `lock` is
    // held; the continuations are Sendable and are yielded to outside the lock.
    private let lock = NSLock()
    private var entries: [Int: Entry] = [:]
    private var nextID = 0

    private enum Phase {
        case idle
        case scheduled
        case running
    }

    private struct Entry {
        /// Wakes the observation's driver to run its query once.
        let trigger: AsyncStream<Void>.Continuation
        var phase = Phase.scheduled
        /// The tables the query read in its last run; nil before the first run ends.
        var region: DatabaseRegion?
        /// The tables changed while the query ran.
        var changedDuringRun = DatabaseRegion()
        /// Whether ``notifyAll()`` was called while the query ran.
        var notifiedDuringRun = false
    }

    /// How many observations are registered; for tests.
    var count: Int {
        lock.withLock { entries.count }
    }

    /// Registers an observation whose driver waits on `trigger`, and schedules its first run; returns
    /// the identifier to pass to the other methods.
    func register(trigger: AsyncStream<Void>.Continuation) -> Int {
        let id = lock.withLock {
            nextID += 1
            entries[nextID] = Entry(trigger: trigger)
            return nextID
        }
        trigger.yield()
        return id
    }

    /// Forgets the observation `id`; changes no longer wake it.
    func unregister(_ id: Int) {
        let entry = lock.withLock { entries.removeValue(forKey: id) }
        entry?.trigger.finish()
    }

    /// Called by the driver when a run starts, on the connection that runs the query, after it began
    /// its read transaction and before the transaction reads anything (in WAL mode, the first read
    /// takes the snapshot).
    func runWillStart(_ id: Int) {
        lock.withLock {
            entries[id]?.phase = .running
            entries[id]?.changedDuringRun = DatabaseRegion()
            entries[id]?.notifiedDuringRun = false
        }
    }

    /// Called by the driver when a run ended with `region`; schedules another run when a table of
    /// `region` changed meanwhile.
    func runDidEnd(_ id: Int, region: DatabaseRegion) {
        let trigger: AsyncStream<Void>.Continuation? = lock.withLock {
            guard var entry = entries[id] else { return nil }
            entry.region = region
            let again = entry.notifiedDuringRun || entry.changedDuringRun.intersects(region)
            entry.phase = again ? .scheduled : .idle
            entry.changedDuringRun = DatabaseRegion()
            entries[id] = entry
            return again ? entry.trigger : nil
        }
        trigger?.yield()
    }

    /// Tells the observations that a write committed changes to the tables of `changes`.
    func didCommit(_ changes: DatabaseRegion) {
        guard !changes.isEmpty else { return }
        schedule(
            running: { $0.changedDuringRun.formUnion(changes) },
            idle: { entry in entry.region.map { $0.intersects(changes) } ?? true })
    }

    /// Makes every observation run its query again, whatever changed.
    func notifyAll() {
        schedule(running: { $0.notifiedDuringRun = true }, idle: { _ in true })
    }

    /// Schedules the idle observations for which `idle` is true, lets `running` note the news on those
    /// running now (they check it when their run ends), and wakes the scheduled ones outside the lock.
    private func schedule(running: (inout Entry) -> Void, idle: (Entry) -> Bool) {
        let triggers: [AsyncStream<Void>.Continuation] = lock.withLock {
            var due: [AsyncStream<Void>.Continuation] = []
            for (id, entry) in entries {
                switch entry.phase {
                case .scheduled:
                    break
                case .running:
                    if var updated = entries[id] {
                        running(&updated)
                        entries[id] = updated
                    }
                case .idle:
                    if idle(entry) {
                        entries[id]?.phase = .scheduled
                        due.append(entry.trigger)
                    }
                }
            }
            return due
        }
        for trigger in triggers {
            trigger.yield()
        }
    }
}
