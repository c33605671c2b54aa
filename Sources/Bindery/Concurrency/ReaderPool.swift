import Foundation

/// The reader connections of a ``Database`` in WAL mode: lends an idle one to each `read`, and makes
/// reads wait, suspended and in order of arrival, while every reader is busy.
final class ReaderPool: @unchecked Sendable {
    // @unchecked Sendable is safe: every mutable property is read and written only while `lock` is
    // held, and each reader is lent to one job at a time (see `ReaderConnection`).
    private let lock = NSLock()
    private let readers: [ReaderConnection]
    private var idle: [ReaderConnection]
    private var waiters: [CheckedContinuation<ReaderConnection, any Error>] = []
    private var lent = 0
    private var isClosed = false
    private var closeWaiters: [CheckedContinuation<Void, Never>] = []
    /// The readers lent to cursors, which closing revokes instead of waiting for.
    private var leases: [ObjectIdentifier: ReaderLease] = [:]

    /// A pool over `readers`, which it uses from now on.
    init(readers: [ReaderConnection]) {
        self.readers = readers
        self.idle = readers
    }

    /// Runs `body` on an idle reader in one read transaction; see ``Database/read(_:)``.
    func read<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try Task.checkCancellation()
        let gate = InterruptGate()
        return try await withTaskCancellationHandler {
            let reader = try await acquire()
            defer { release(reader) }
            return try await reader.perform(gate: gate, body)
        } onCancel: {
            gate.cancel()
        }
    }

    /// Waits until every lent reader is back, then closes every reader; later reads throw
    /// ``DatabaseError/closed``. Reads that were already waiting for a reader still run. Readers lent
    /// to cursors are not waited for: their leases are revoked (see ``ReaderLease``), so closing
    /// takes as long as the reads in flight and a cursor's batch, however long a cursor is held.
    func close() async {
        await withCheckedContinuation { continuation in
            let (done, leased) = markClosed(continuation)
            for lease in leased {
                lease.revoke()
            }
            if done {
                continuation.resume()
            }
        }
        for reader in readers {
            await reader.close()
        }
    }

    /// Runs `work` on every reader with its index, lent or not (see ``ReaderConnection/run(_:)``), on
    /// all of them at once (a long read delays only its own reader's), and returns the results in the
    /// readers' order.
    func eachReader<T: Sendable>(_ work: @escaping @Sendable (Int, Connection) -> T) async -> [T] {
        await withTaskGroup(of: (Int, T).self) { group in
            for (index, reader) in readers.enumerated() {
                group.addTask { (index, await reader.run { conn in work(index, conn) }) }
            }
            var results: [(Int, T)] = []
            for await result in group {
                results.append(result)
            }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// How many readers are idle now (for tests).
    var idleCount: Int {
        lock.withLock { idle.count }
    }

    // MARK: Lending

    /// An idle reader, lent until ``release(_:)``; waits, as a read does, while every reader is busy.
    func acquire() async throws -> ReaderConnection {
        switch takeIdle() {
        case .reader(let reader):
            return reader
        case .closed:
            throw DatabaseError.closed
        case .wait:
            return try await withCheckedThrowingContinuation { continuation in
                switch takeIdle(orEnqueue: continuation) {
                case .reader(let reader):
                    continuation.resume(returning: reader)
                case .closed:
                    continuation.resume(throwing: DatabaseError.closed)
                case .wait:
                    break
                }
            }
        }
    }

    /// An idle reader lent to a cursor until its lease is given back or revoked; waits as
    /// ``acquire()`` does. `closeStatement` closes the cursor's statement on the reader's queue.
    func lease(closingWith closeStatement: @escaping @Sendable () -> Void) async throws -> ReaderLease {
        let reader = try await acquire()
        let lease = ReaderLease(reader: reader, pool: self, closeStatement: closeStatement)
        let registered = lock.withLock {
            guard !isClosed else { return false }
            leases[ObjectIdentifier(lease)] = lease
            return true
        }
        guard registered else {
            // The pool closed while the cursor waited for the reader.
            release(reader)
            throw DatabaseError.closed
        }
        return lease
    }

    /// Stops tracking `lease`, whose iteration gives its reader back.
    func forget(_ lease: ReaderLease) {
        lock.withLock {
            _ = leases.removeValue(forKey: ObjectIdentifier(lease))
        }
    }

    private enum Lending {
        case reader(ReaderConnection)
        case closed
        case wait
    }

    /// An idle reader, or why there is none; with a continuation, queues it when the read must wait.
    private func takeIdle(orEnqueue waiter: CheckedContinuation<ReaderConnection, any Error>? = nil) -> Lending {
        lock.withLock {
            if isClosed {
                return .closed
            }
            if let reader = idle.popLast() {
                lent += 1
                return .reader(reader)
            }
            if let waiter {
                waiters.append(waiter)
            }
            return .wait
        }
    }

    /// Hands `reader` to the read that has waited longest, or puts it back with the idle ones.
    func release(_ reader: ReaderConnection) {
        enum Next {
            case waiter(CheckedContinuation<ReaderConnection, any Error>)
            case closeWaiters([CheckedContinuation<Void, Never>])
        }
        let next: Next = lock.withLock {
            if !waiters.isEmpty {
                return .waiter(waiters.removeFirst())
            }
            idle.append(reader)
            lent -= 1
            guard isClosed, lent == 0 else {
                return .closeWaiters([])
            }
            defer { closeWaiters.removeAll() }
            return .closeWaiters(closeWaiters)
        }
        switch next {
        case .waiter(let waiter):
            waiter.resume(returning: reader)
        case .closeWaiters(let waiting):
            for continuation in waiting {
                continuation.resume()
            }
        }
    }

    /// Refuses new reads; returns true when no reader is lent, or else queues `continuation` for the
    /// last one to come back; and the cursors' leases, to revoke.
    private func markClosed(_ continuation: CheckedContinuation<Void, Never>) -> (Bool, [ReaderLease]) {
        lock.withLock {
            isClosed = true
            let leased = Array(leases.values)
            leases.removeAll()
            if lent == 0 {
                return (true, leased)
            }
            closeWaiters.append(continuation)
            return (false, leased)
        }
    }
}
