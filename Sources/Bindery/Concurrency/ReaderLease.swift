import Foundation

/// A reader lent to one iteration of a ``DatabaseCursor`` for as long as it is read, which
/// ``Database/close()`` can take back.
///
/// An iteration may hold its reader for ever: a loop that stops asking for values without ending, an
/// iterator kept in a property. So closing the pool does not wait for a lease as it waits for a read:
/// it revokes it. A revoked lease interrupts the batch it is running, if any, and then, on the reader's
/// queue, closes the iteration's statement and gives the reader back; every later batch of the
/// iteration throws ``DatabaseError/closed``. The values decoded before stay in the iterator.
///
/// The reader goes back to the pool exactly once, whichever comes first: the iteration's end
/// (``giveBack()``) or the revocation (``revoke()``).
final class ReaderLease: @unchecked Sendable {
    // @unchecked Sendable is safe: `state` is read and written only while `lock` is held; `reader`,
    // `pool` and `closeStatement` are constants. The statement is closed only on the reader's queue.
    private enum State {
        case idle
        case running(InterruptGate)
        case revoked
        case returned
    }

    private let lock = NSLock()
    private var state = State.idle
    /// The reader lent.
    let reader: ReaderConnection
    private let pool: ReaderPool
    private let closeStatement: @Sendable () -> Void

    /// A lease of `reader`, taken from `pool`; `closeStatement` closes the iteration's statement (run
    /// on the reader's queue, before the reader goes back).
    init(reader: ReaderConnection, pool: ReaderPool, closeStatement: @escaping @Sendable () -> Void) {
        self.reader = reader
        self.pool = pool
        self.closeStatement = closeStatement
    }

    /// Whether ``revoke()`` took the reader back.
    var isRevoked: Bool {
        lock.withLock {
            if case .revoked = state { return true }
            return false
        }
    }

    /// Marks a batch, interruptible through `gate`, as running; throws ``DatabaseError/closed`` when
    /// the lease was revoked.
    func beginBatch(_ gate: InterruptGate) throws {
        try lock.withLock {
            guard case .idle = state else { throw DatabaseError.closed }
            state = .running(gate)
        }
    }

    /// Marks the batch begun by ``beginBatch(_:)`` as done.
    func endBatch() {
        lock.withLock {
            if case .running = state { state = .idle }
        }
    }

    /// Throws ``DatabaseError/closed`` when the lease was revoked: a batch checks it on the reader's
    /// queue before it touches the statement, which the revocation may have closed already.
    func checkHeld() throws {
        if isRevoked { throw DatabaseError.closed }
    }

    /// The iteration ended: its statement is closed and the reader goes back, on the reader's queue,
    /// unless the lease was revoked (which did both). Nothing here waits.
    func giveBack() {
        let giving: Bool = lock.withLock {
            switch state {
            case .revoked, .returned:
                return false
            case .idle, .running:
                state = .returned
                return true
            }
        }
        guard giving else { return }
        pool.forget(self)
        returnReader()
    }

    /// Takes the reader back while the iteration holds it: interrupts the batch running, then closes
    /// the statement and gives the reader back on its queue. Nothing here waits.
    func revoke() {
        let revoking: (Bool, InterruptGate?) = lock.withLock {
            switch state {
            case .revoked, .returned:
                return (false, nil)
            case .idle:
                state = .revoked
                return (true, nil)
            case .running(let gate):
                state = .revoked
                return (true, gate)
            }
        }
        guard revoking.0 else { return }
        revoking.1?.cancel()
        returnReader()
    }

    private func returnReader() {
        let pool = self.pool
        let reader = self.reader
        let closeStatement = self.closeStatement
        reader.enqueue { _ in
            closeStatement()
            pool.release(reader)
        }
    }
}
