/// The rows of a query decoded one at a time as an asynchronous sequence, from
/// ``Database/fetchCursor(_:sql:)``: the `async` counterpart of ``RecordCursor``.
///
/// ```swift
/// for try await student in db.fetchCursor(Student.self, sql: "SELECT * FROM students ORDER BY name") {
///     print(student.name)
/// }
/// ```
///
/// Iterating runs the query on a reader connection (on the writer connection when the database has no
/// readers) and decodes its rows a small batch at a time (``batchSize``), as the loop asks for them:
/// memory stays constant whatever the size of the result, and nothing is read ahead of the loop by
/// more than one batch. The query reads one snapshot of the database from its first row to its last.
///
/// The reader is held from the first value until the sequence ends: when the rows run out, when
/// decoding or SQLite throws, when the loop stops early (`break`, `return`, a thrown error), or
/// when the iterating task is cancelled, which interrupts the statement and throws
/// `CancellationError`. Every other read goes on meanwhile on the other readers. ``Database/close()``
/// does not wait for a cursor: it interrupts the batch the cursor is reading, if any, and takes its
/// reader back; the values decoded before are still handed out, then the iteration throws
/// ``DatabaseError/closed``. Without readers, the batches take turns with writes on
/// the writer connection (read-only, as a ``Database/read(_:)`` there), and whether rows written
/// meanwhile show up is not defined.
///
/// Nothing runs until the first value is asked for, and a sequence can be iterated again: each
/// iteration runs the query anew.
public struct DatabaseCursor<Element: Decodable & Sendable>: AsyncSequence, Sendable {
    /// How many rows a cursor decodes in one job on its connection; the values wait in the iterator
    /// until the loop takes them.
    public static var batchSize: Int { 64 }

    let database: Database
    let open: @Sendable (Connection) throws -> RecordCursor<Element>

    /// Starts an iteration; the query runs when the first value is asked for.
    public func makeAsyncIterator() -> Iterator {
        Iterator(driver: CursorDriver(database: database, open: open))
    }

    /// The iterator of a ``DatabaseCursor``.
    public struct Iterator: AsyncIteratorProtocol {
        let driver: CursorDriver<Element>

        /// The next value, or nil when the rows are exhausted.
        public mutating func next() async throws -> Element? {
            try await driver.next()
        }
    }
}

/// Runs the batches of one iteration of a ``DatabaseCursor``, and gives the connection back however
/// the iteration ends.
final class CursorDriver<Element: Decodable & Sendable> {
    private enum Host {
        case reader(ReaderLease)
        case writer
    }

    private let database: Database
    private let state: CursorState<Element>
    private var host: Host?
    private var buffer: [Element] = []
    private var position = 0
    private var finished = false
    /// The error that ended the rows, thrown once the values decoded before it are taken.
    private var failure: (any Error)?

    init(database: Database, open: @escaping @Sendable (Connection) throws -> RecordCursor<Element>) {
        self.database = database
        self.state = CursorState(open: open)
    }

    deinit {
        // The loop stopped early, or never asked for a value.
        end(statementClosed: false)
    }

    func next() async throws -> Element? {
        do {
            try Task.checkCancellation()
            if position == buffer.count {
                if let failure {
                    self.failure = nil
                    throw failure
                }
                guard !finished else { return nil }
                buffer = []
                position = 0
                let batch = try await fetchBatch()
                buffer = batch.values
                failure = batch.failure
                if batch.isLast {
                    end(statementClosed: true)
                }
                if buffer.isEmpty {
                    return try await next()
                }
            }
            defer { position += 1 }
            return buffer[position]
        } catch {
            // A batch job that threw closed the statement, but a cancellation before the job ran
            // did not.
            buffer = []
            position = 0
            end(statementClosed: false)
            throw database.refusedWriteOnReplica(error)
        }
    }

    private func fetchBatch() async throws -> CursorBatch<Element> {
        let state = self.state
        if host == nil {
            if let pool = database.readers {
                host = .reader(try await pool.lease(closingWith: { state.close() }))
            } else {
                host = .writer
            }
        }
        return try await perform { conn in try state.nextBatch(on: conn, size: DatabaseCursor<Element>.batchSize) }
    }

    /// Runs `body` on the host's connection, interruptible by the cancellation of the iterating task.
    private func perform<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        switch host {
        case .reader(let lease):
            let gate = InterruptGate()
            try lease.beginBatch(gate)
            defer { lease.endBatch() }
            do {
                return try await withTaskCancellationHandler {
                    try await lease.reader.perform(gate: gate, transaction: nil) { conn in
                        try lease.checkHeld()
                        return try body(conn)
                    }
                } onCancel: {
                    gate.cancel()
                }
            } catch {
                // Database.close() took the reader back, interrupting the batch.
                throw lease.isRevoked ? DatabaseError.closed : error
            }
        case .writer:
            return try await database.readOnWriterWithoutTransaction(body)
        case nil:
            throw CancellationError()
        }
    }

    /// Ends the iteration: the statement is closed on its connection's queue (unless it is closed
    /// already), and a reader goes back to the pool after that. Nothing here waits.
    private func end(statementClosed: Bool) {
        finished = true
        guard let host else { return }
        self.host = nil
        switch host {
        case .reader(let lease):
            lease.giveBack()
        case .writer where !statementClosed:
            // A job of its own, which a cancellation of the iterating task cannot stop.
            let database = self.database
            let state = self.state
            Task {
                try? await database.useWriter { _ in state.close() }
            }
        case .writer:
            break
        }
    }
}

/// One batch of decoded values, and whether the rows end after it, with the error that ended them.
struct CursorBatch<Element: Sendable>: Sendable {
    let values: [Element]
    let isLast: Bool
    var failure: (any Error)?
}

/// The statement of one iteration, touched only on its connection's queue.
final class CursorState<Element: Decodable & Sendable>: @unchecked Sendable {
    // @unchecked Sendable is safe: `cursor` and `started` are read and written only by `nextBatch`
    // and `close`, which run as jobs on the queue of the one connection the iteration uses (a
    // reader's serial queue, or the database's executor), one after another; the queue orders their
    // memory accesses.
    private let open: @Sendable (Connection) throws -> RecordCursor<Element>
    private var cursor: RecordCursor<Element>?
    private var started = false

    init(open: @escaping @Sendable (Connection) throws -> RecordCursor<Element>) {
        self.open = open
    }

    /// Up to `size` values; the statement is closed when the rows run out or an error ends them. An
    /// error after some values comes with them, to be thrown after them; an error before any value
    /// is thrown (so that an interrupt becomes `CancellationError` on the way out).
    func nextBatch(on connection: Connection, size: Int) throws -> CursorBatch<Element> {
        var values: [Element] = []
        do {
            if !started {
                started = true
                cursor = try open(connection)
            }
            guard let cursor else {
                return CursorBatch(values: [], isLast: true)
            }
            values.reserveCapacity(size)
            while values.count < size {
                guard let value = try cursor.next() else {
                    close()
                    return CursorBatch(values: values, isLast: true)
                }
                values.append(value)
            }
            return CursorBatch(values: values, isLast: false)
        } catch {
            close()
            guard !values.isEmpty else { throw error }
            return CursorBatch(values: values, isLast: true, failure: error)
        }
    }

    /// Gives the statement back to its connection (reset, so that its snapshot ends).
    func close() {
        cursor = nil
    }
}
