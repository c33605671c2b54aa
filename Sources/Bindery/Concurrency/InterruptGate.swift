import Foundation

/// Lets the cancellation of one task interrupt the one job that task runs on a connection, and
/// nothing else.
///
/// A ``Database`` makes one gate per `read` or `write`. The task's cancellation handler calls
/// ``cancel()``; the job runs inside ``perform(on:transaction:_:)``, which arms the gate with its
/// connection for exactly as long as the job runs. `sqlite3_interrupt` is called only while the gate
/// is armed and under its lock, and disarming takes the same lock, so an interrupt meant for this job
/// can never land on the next job of the same connection (SQLite itself clears a stray interrupt flag
/// when the connection's next statement starts with none running).
final class InterruptGate: @unchecked Sendable {
    // @unchecked Sendable is safe: `connection` and `cancelled` are only read and written while `lock`
    // is held, and the connection is used from another thread only for `Connection.interrupt()`
    // (`sqlite3_interrupt`, which SQLite allows from any thread while the connection is open; the
    // connection cannot close while it is armed here, since closing happens on the thread that runs
    // the job, after the job has disarmed the gate).
    private let lock = NSLock()
    private var connection: Connection?
    private var cancelled = false

    /// Whether the task that owns the job was cancelled.
    var isCancelled: Bool {
        lock.withLock { cancelled }
    }

    /// Marks the job cancelled and interrupts the statement it is running, if it is running.
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
    /// Without one (`nil`), statements that finished before a cancel keep their effect.
    ///
    /// Throws `CancellationError` when the job was cancelled before it started, or when a cancel
    /// interrupted a statement (SQLite's ``SQLiteError/Code/interrupt``). However the job ends, it
    /// leaves no transaction open on the connection.
    func perform<T>(
        on connection: Connection, transaction kind: Connection.TransactionKind?, _ body: (Connection) throws -> T
    ) throws -> T {
        defer {
            // A ROLLBACK that was itself interrupted, or a BEGIN without COMMIT in the closure, must
            // not leave the next job inside this job's transaction. The gate is disarmed by now, so
            // this rollback cannot be interrupted.
            connection.rollbackQuietly()
        }
        do {
            try arm(connection)
            defer { disarm() }
            guard let kind else {
                return try body(connection)
            }
            return try connection.transaction(kind) { conn in
                let result = try body(conn)
                if isCancelled {
                    throw CancellationError()
                }
                return result
            }
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
            connection = nil
        }
    }
}
