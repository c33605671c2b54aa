import Dispatch

/// One reader connection of a ``ReaderPool`` with the serial dispatch queue it is used on, so that
/// its blocking SQLite calls never run on Swift's cooperative thread pool.
final class ReaderConnection: @unchecked Sendable {
    // @unchecked Sendable is safe: `connection` is touched only inside blocks on `queue`, a serial
    // queue, so one thread at a time uses it; the pool lends the reader to one job at a time.
    private let connection: Connection
    private let queue: DispatchQueue

    /// Wraps `connection`, which from now on is used only on a new serial queue named `label`.
    init(connection: Connection, label: String) {
        self.connection = connection
        self.queue = DatabaseExecutor.makeQueue(label: label)
    }

    /// Runs `body` on the reader's queue inside one `BEGIN DEFERRED` transaction, so that every
    /// statement of `body` reads the same snapshot; suspends the calling task, without blocking its
    /// thread, until `body` is done.
    ///
    /// With `transaction` nil, `body` runs outside any transaction (a cursor's statement, which reads
    /// one snapshot by itself from its first step to its last).
    func perform<T: Sendable>(
        gate: InterruptGate, transaction: Connection.TransactionKind? = .deferred,
        _ body: @Sendable (Connection) throws -> T
    ) async throws -> T {
        // `body` is not escaping, and it does not escape: the job lets go of it before the
        // continuation resumes, so it is released before this function returns.
        try await withoutActuallyEscaping(body) { body in
            let job = ReaderJob(body, transaction: transaction)
            return try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    let result = job.run(on: self.connection, gate: gate)
                    continuation.resume(with: result)
                }
            }
        }
    }

    /// Runs `work` on the reader's queue, after any job already queued there, without waiting for it.
    func enqueue(_ work: @escaping @Sendable (Connection) -> Void) {
        queue.async {
            work(self.connection)
        }
    }

    /// Runs `work` on the reader's queue, after any job already queued there, and returns what it
    /// returns; `work` runs whether or not the reader is lent, so it must not disturb a job's use of
    /// the connection (nor use a closed one).
    func run<T: Sendable>(_ work: @escaping @Sendable (Connection) -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: work(self.connection))
            }
        }
    }

    /// Closes the connection on its queue, after any job already queued there.
    func close() async {
        await withCheckedContinuation { continuation in
            queue.async {
                self.connection.close()
                continuation.resume()
            }
        }
    }
}

/// Carries a read's closure to a reader's queue, and lets go of it there before the read reports back.
private final class ReaderJob<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable is safe: `body` is written once by `init` and then taken once by `run` on
    // the reader's queue; `DispatchQueue.async` orders the write before the read.
    private var body: (@Sendable (Connection) throws -> T)?
    private let transaction: Connection.TransactionKind?

    init(_ body: @escaping @Sendable (Connection) throws -> T, transaction: Connection.TransactionKind?) {
        self.body = body
        self.transaction = transaction
    }

    /// Runs the closure once on `connection` (in a transaction of the job's kind, if any) and drops it.
    func run(on connection: Connection, gate: InterruptGate) -> Result<T, any Error> {
        guard let body else {
            return .failure(CancellationError())
        }
        self.body = nil
        return Result { try gate.perform(on: connection, transaction: transaction, body) }
    }
}
