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
    /// ``DatabaseError/closed``. Reads that were already waiting for a reader still run.
    func close() async {
        await withCheckedContinuation { continuation in
            if markClosed(continuation) {
                continuation.resume()
            }
        }
        for reader in readers {
            await reader.close()
        }
    }

    /// How many readers are idle now (for tests).
    var idleCount: Int {
        lock.withLock { idle.count }
    }

    // MARK: Lending

    /// An idle reader, lent until ``release(_:)``; waits, as a read does, while every reader is busy.
    /// A cursor holds one this way for as long as it is read.
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
    /// last one to come back.
    private func markClosed(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        lock.withLock {
            isClosed = true
            if lent == 0 {
                return true
            }
            closeWaiters.append(continuation)
            return false
        }
    }
}
