import Foundation

/// Lets the cancellation of one task stop the one job that task runs on a connection, and nothing
/// else.
///
/// A ``Database`` makes one gate per `read` or `write`. The task's cancellation handler calls
/// ``cancel()``; the job runs inside ``perform(on:transaction:refusingWrites:_:)``, which lends the
/// connection to the job (so that it cannot close) and arms the gate with it for exactly as long as
/// the job runs. ``Connection/interrupt()`` is called only while the gate is armed and under its
/// lock, and disarming clears the interrupt under the same lock, so an interrupt meant for this job
/// can never land on the next job of the same connection.
///
/// A cancel is never lost: the interrupt stops the statement running, and every statement that starts
/// or steps after it (the connection's status stays interrupted until the job ends), and the job
/// checks for a cancel once more after its closure returns.
final class InterruptGate: @unchecked Sendable {
    // @unchecked Sendable is safe: `connection` and `cancelled` are only read and written while `lock`
    // is held, and the connection is used from another thread only for `Connection.interrupt()`,
    // which raises a flag in the connection's atomic status word and touches nothing else. The connection cannot close while it is armed here: it is lent to the job
    // (`Connection.beginLending`) before the gate is armed and until after it is disarmed, and a lent
    // connection refuses to close.
    private let lock = NSLock()
    private var connection: Connection?
    private var cancelled = false

    /// What `close()` called inside a job says; the job throws it.
    static let closeRefusal =
        "close() was called inside a Database job (read, write or writeWithoutTransaction): the database owns "
        + "its connections and closes them in Database.close(), so the connection stays open, no more statements "
        + "of this job run, the job's transaction rolls back and the database stays usable"

    /// Whether the task that owns the job was cancelled.
    var isCancelled: Bool {
        lock.withLock { cancelled }
    }

    /// Marks the job cancelled and interrupts the statement it is running, if it is running; no
    /// statement of the job starts afterwards.
    func cancel() {
        lock.withLock {
            cancelled = true
            connection?.interrupt()
        }
    }

    /// Runs `body` on `connection`, interruptible by ``cancel()``.
    ///
    /// With a `transaction` kind, `body` runs inside one transaction of that kind, which commits
    /// when `body` returns and rolls back when it throws or when the job was cancelled while it ran.
    /// Without one (`nil`), statements that finished before a cancel keep their effect, and the job
    /// throws all the same. With `refusingWrites`, every write throws ``SQLiteError/Code/readOnly``
    /// (see ``Connection/refusingWrites(_:)``).
    ///
    /// Throws `CancellationError` when the job was cancelled before it started, while it ran (a
    /// statement interrupted, or refused to start), or after its last statement. When `body` calls
    /// ``Connection/close()``, the connection stays open and the job throws
    /// ``SQLiteError/Code/misuse`` (``closeRefusal``). However the job ends, it leaves no transaction
    /// open on the connection.
    func perform<T>(
        on connection: Connection, transaction kind: Connection.TransactionKind?, refusingWrites: Bool = false,
        _ body: (Connection) throws -> T
    ) throws -> T {
        try connection.beginLending(closeRefusal: InterruptGate.closeRefusal)
        defer {
            // A ROLLBACK that was itself interrupted or refused (after a refused close), or a BEGIN
            // without COMMIT in the closure, must not leave the next job inside this job's
            // transaction. The gate is disarmed and the lending over by now, so this rollback runs.
            connection.endLending()
            connection.rollbackQuietly()
        }
        do {
            try arm(connection)
            defer { disarm() }
            func job(_ conn: Connection) throws -> T {
                let result = refusingWrites ? try conn.refusingWrites { try body(conn) } : try body(conn)
                // A cancel that came after the last statement, or a refused close that `body` caught.
                if isCancelled {
                    throw CancellationError()
                }
                try conn.checkOpen()
                return result
            }
            guard let kind else {
                return try job(connection)
            }
            return try connection.transaction(kind, job)
        } catch let error as SQLiteError where error.code == .interrupt && isCancelled {
            throw CancellationError()
        }
    }

    private func arm(_ connection: Connection) throws {
        try lock.withLock {
            if cancelled {
                throw CancellationError()
            }
            self.connection = connection
        }
    }

    private func disarm() {
        lock.withLock {
            connection?.clearInterrupt()
            connection = nil
        }
    }
}
