import Foundation

/// A SQLite database for Swift concurrency: one writer connection whose work runs, one job at a time,
/// on the actor's own serial executor, and in WAL mode a pool of reader connections that read at the
/// same time as each other and as the writer.
///
/// ```swift
/// let db = try Database(path: "school.sqlite")
/// try await db.write { conn in
///     try conn.createTable(for: Student.self, ifNotExists: true)
///     try conn.insert(Student(id: nil, name: "Ana", year: 2024))
/// }
/// let names = try await db.read { conn in
///     try conn.fetchAll(String.self, sql: "SELECT name FROM students ORDER BY name")
/// }
/// try await db.close()
/// ```
///
/// Every blocking SQLite call runs on a dispatch queue of the database (the writer's, or a reader's),
/// never on Swift's cooperative thread pool, so a slow query does not hold up other tasks.
///
/// **Cancellation**: cancelling the task that awaits a `read` or `write` interrupts the statement it
/// is running (through SQLite's progress handler), stops every statement of its closure that would start or step
/// afterwards, rolls the transaction back and throws `CancellationError`; the database stays usable.
/// A cancel is never lost: one that arrives between two statements, or after the last, still makes the
/// job throw. A task cancelled before its work starts throws at once.
///
/// **Its connections are its own**: ``Connection/close()`` called inside a `read` or `write` closure
/// does not close the connection; the job throws ``SQLiteError`` with code ``SQLiteError/Code/misuse``
/// and rolls back, and the next job works. Close the database with ``close()``.
///
/// **Locks held elsewhere**: when another process holds the write lock, a write waits up to
/// ``Options/busyTimeout`` and then throws ``SQLiteError`` with code ``SQLiteError/Code/busy``,
/// having written nothing.
public actor Database {
    /// The path of the database file (`:memory:` for an in-memory database); for a read replica
    /// (``replica(of:extensionPath:pollInterval:options:)``), its replica URL.
    public nonisolated let path: String
    /// The URL of the Litestream replica this database reads, when it is a read replica
    /// (``replica(of:extensionPath:pollInterval:options:)``); nil otherwise.
    public nonisolated let replicaURL: String?
    /// The options the database was opened with.
    public nonisolated let options: Options
    /// Whether reads run on reader connections (WAL mode with readers) rather than on the writer.
    nonisolated var hasReaders: Bool { readers != nil }

    private let executor: DatabaseExecutor
    /// The reader connections, in WAL mode with readers; nil otherwise.
    nonisolated let readers: ReaderPool?
    /// The live observations, told after each job on the writer which tables its commits changed.
    nonisolated let observationRegistry = ObservationRegistry()
    /// The writer connection; nil once the database is closed.
    private var writer: Connection?
    /// The closing in progress or done, once ``close()`` was called.
    private var closing: Task<Void, Never>?
    /// What tells the observations of a read replica that new transactions arrived; nil otherwise.
    nonisolated let replicaWatcher: ReplicaWatcher?

    /// The actor's executor: a serial dispatch queue of its own, on which the writer connection is used.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Opens the database file at `path`, creating it when it is missing (from
    /// ``Options/templatePath`` when one is set), in the journal mode of the options, with
    /// ``Options/readerCount`` reader connections in WAL mode.
    ///
    /// ```swift
    /// let db = try Database(path: "school.sqlite")
    /// let readOnly = try Database(path: "school.sqlite", options: .init(readOnly: true))
    /// ```
    ///
    /// A file that is not a SQLite database throws ``SQLiteError`` with code
    /// ``SQLiteError/Code/notADatabase``.
    public init(path: String, options: Options = Options()) throws {
        var fromTemplate = false
        if let template = options.templatePath, !FileManager.default.fileExists(atPath: path) {
            try Database.installTemplate(template, at: path)
            fromTemplate = true
        }
        let writer = try Connection(path: path, options: options.connectionOptions(readOnly: options.readOnly))
        writer.codingOptions = options.coding
        let isWAL = try Database.configureJournal(of: writer, options: options)
        if options.checkpointing == .leftToReplicator {
            guard isWAL || options.readOnly else {
                throw SQLiteError(
                    code: .misuse,
                    message: "Database.Options.checkpointing .leftToReplicator needs WAL mode, but \(path) is in "
                        + "\(options.journalMode.rawValue) mode: set journalMode to .wal")
            }
            try writer.disableAutomaticCheckpoints()
        }
        try options.writerExtension?.install(on: writer, fromTemplate: fromTemplate)
        let readers = isWAL && options.readerCount > 0 ? try Database.openReaders(path: path, options: options) : nil
        self.init(path: path, options: options, writer: writer, readers: readers)
    }

    /// Opens a private, empty in-memory database that lives until it is closed or released. It has no
    /// reader connections: reads and writes take turns on its one connection.
    ///
    /// ```swift
    /// let db = try Database.inMemory()
    /// try await db.createTable(for: Student.self)
    /// ```
    public static func inMemory(options: Options = Options()) throws -> Database {
        let writer = try Connection.inMemory(options: options.connectionOptions(readOnly: false))
        writer.codingOptions = options.coding
        try options.writerExtension?.install(on: writer, fromTemplate: false)
        return Database(path: ":memory:", options: options, writer: writer, readers: nil)
    }

    init(
        path: String, options: Options, writer: Connection, readers: ReaderPool?, replicaURL: String? = nil,
        replicaWatcher: ReplicaWatcher? = nil
    ) {
        self.path = path
        self.replicaURL = replicaURL
        self.replicaWatcher = replicaWatcher
        self.options = options
        self.executor = DatabaseExecutor(label: "Bindery.Database(\(path))")
        writer.startTrackingChanges()
        self.writer = writer
        self.readers = readers
    }

    // MARK: Writing

    /// Runs `body` on the writer connection in one `IMMEDIATE` transaction: it commits when `body`
    /// returns and rolls back when it throws (or when the task is cancelled), and the error is
    /// rethrown. Writes run one at a time, on the actor's executor.
    ///
    /// ```swift
    /// let saved = try await db.write { conn in
    ///     let student = try conn.insert(Student(id: nil, name: "Ana", year: 2024))
    ///     try conn.execute("UPDATE counters SET n = n + 1 WHERE name = \("students")")
    ///     return student
    /// }
    /// ```
    ///
    /// `body` gets a synchronous ``Connection`` and cannot `await`, so a write can never wait on
    /// another write of the same database: nesting a write inside a write is not possible, and nothing
    /// else runs on the writer while `body` holds it. Call the connection's own methods inside, and
    /// ``Connection/transaction(_:_:)`` for a savepoint.
    ///
    /// Once the task is cancelled, no statement of `body` starts: each throws
    /// ``SQLiteError/Code/interrupt``, and the write rolls back and throws `CancellationError`, even
    /// when `body` catches those errors. ``Connection/close()`` inside `body` does not close the
    /// writer: the write throws ``SQLiteError/Code/misuse`` and rolls back.
    ///
    /// On a read replica it throws ``ReplicaError/writeRefused(replica:)`` and runs nothing.
    @discardableResult
    public func write<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try refuseWritesOnReplica()
        return try await performOnWriter(transaction: .immediate, body)
    }

    /// Runs `body` on the writer connection outside any transaction, for statements that cannot run
    /// inside one (`VACUUM`, `PRAGMA journal_mode`, …) or that manage their own.
    ///
    /// ```swift
    /// try await db.writeWithoutTransaction { conn in
    ///     try conn.execute(script: "VACUUM")
    /// }
    /// ```
    ///
    /// Each statement commits on its own. Cancelling the task interrupts the statement running at the
    /// time, stops every later statement of `body` before it starts, and throws `CancellationError`,
    /// also when the cancel arrives between two statements or after the last one: statements that
    /// completed before the cancel keep their effect. A transaction `body` leaves open is rolled back.
    /// On a read replica it throws ``ReplicaError/writeRefused(replica:)`` and runs nothing.
    @discardableResult
    public func writeWithoutTransaction<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try refuseWritesOnReplica()
        return try await performOnWriter(transaction: nil, body)
    }

    /// Runs `body` on the writer connection outside any transaction, on a read replica too: for the
    /// jobs of Bindery's own that read there (a backup's steps, closing a cursor's statement).
    func useWriter<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try await performOnWriter(transaction: nil, body)
    }

    /// Throws ``ReplicaError/writeRefused(replica:)`` on a read replica.
    private nonisolated func refuseWritesOnReplica() throws {
        if let replicaURL {
            throw ReplicaError.writeRefused(replica: replicaURL)
        }
    }

    // MARK: Reading

    /// Runs `body` in one read transaction (`BEGIN DEFERRED`), so that all of it sees one consistent
    /// snapshot of the database, and returns what it returns.
    ///
    /// ```swift
    /// let (count, newest) = try await db.read { conn in
    ///     (try conn.count(Student.self), try conn.fetchOne(Student.self, orderBy: "id DESC"))
    /// }
    /// ```
    ///
    /// In WAL mode the read runs on a reader connection (opened read-only, with `PRAGMA query_only`):
    /// reads overlap each other and the write in progress, and see the database as of the last
    /// committed write. When every reader is busy, the read waits for one without blocking a thread
    /// (a read cancelled while it waits throws `CancellationError` as soon as it gets one, unrun).
    /// Without readers (an in-memory database, `readerCount` 0, or another journal mode), reads take
    /// turns with writes on the writer connection, and are read-only there too: a statement that would
    /// write throws ``SQLiteError`` with code ``SQLiteError/Code/readOnly`` before it starts, as on a
    /// reader, and nothing of the read is kept.
    ///
    /// Cancelling the task stops the read as it stops a write (see ``write(_:)``).
    /// ``Connection/close()`` inside `body` does not close the connection: the read throws
    /// ``SQLiteError/Code/misuse``.
    ///
    /// On a read replica, a write in `body` throws ``ReplicaError/writeRefused(replica:)``.
    public nonisolated func read<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        do {
            if let readers {
                return try await readers.read(body)
            }
            return try await performOnWriter(transaction: .deferred, refusingWrites: true, body)
        } catch {
            throw refusedWriteOnReplica(error)
        }
    }

    /// `error`, or ``ReplicaError/writeRefused(replica:)`` on a read replica when it is SQLite's refusal
    /// of a write (``SQLiteError/Code/readOnly``) in a read: ``read(_:)``, a ``DatabaseCursor``.
    nonisolated func refusedWriteOnReplica(_ error: any Error) -> any Error {
        guard let replicaURL, let error = error as? SQLiteError, error.code == .readOnly else { return error }
        return ReplicaError.writeRefused(replica: replicaURL)
    }

    /// Runs `body` on the writer connection outside any transaction, with every write refused as in
    /// ``read(_:)``: the batches of a ``DatabaseCursor`` on a database without readers.
    func readOnWriterWithoutTransaction<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try await performOnWriter(transaction: nil, refusingWrites: true, body)
    }

    // MARK: Closing

    /// Waits for the work in flight, then closes every connection. Afterwards every call throws
    /// ``DatabaseError/closed``; calling `close()` again only waits for the first call to finish.
    ///
    /// A ``DatabaseCursor`` being iterated is not waited for, however long its iterator is kept: its
    /// batch in progress is interrupted and its reader taken back, and its next batch throws
    /// ``DatabaseError/closed``.
    ///
    /// ```swift
    /// try await db.close()
    /// ```
    public func close() async throws {
        if let closing {
            await closing.value
            return
        }
        let readers = self.readers
        let watcher = replicaWatcher
        let task = Task {
            await watcher?.stop()
            await readers?.close()
            self.closeWriter()
        }
        closing = task
        await task.value
    }

    private func closeWriter() {
        // A last checkpoint (a no-op outside WAL mode) lets the closing connection remove the -wal
        // and -shm files: SQLite skips that when the writer has not read since a reader's last read.
        // A database whose checkpoints are left to a replicator keeps its -wal file for it.
        if options.checkpointing == .automatic {
            try? writer?.execute(script: "PRAGMA wal_checkpoint(PASSIVE)")
        }
        writer?.close()
        writer = nil
    }

    // MARK: Running jobs

    /// Runs `body` on the writer connection, on the actor's executor, interruptible by cancellation.
    private func performOnWriter<T: Sendable>(
        transaction kind: Connection.TransactionKind?, refusingWrites: Bool = false,
        _ body: @Sendable (Connection) throws -> T
    ) async throws -> T {
        try Task.checkCancellation()
        let gate = InterruptGate()
        return try await withTaskCancellationHandler {
            // The operation must call an isolated method of `self`: a closure that does not capture
            // `self` is not isolated to the actor, and would run on the global executor, away from
            // the writer's queue. Calling `runOnWriter` without `await` compiles only when it is.
            try self.runOnWriter(gate: gate, transaction: kind, refusingWrites: refusingWrites, body)
        } onCancel: {
            gate.cancel()
        }
    }

    private func runOnWriter<T>(
        gate: InterruptGate, transaction kind: Connection.TransactionKind?, refusingWrites: Bool,
        _ body: (Connection) throws -> T
    ) throws -> T {
        guard let writer, closing == nil else {
            throw DatabaseError.closed
        }
        defer { observationRegistry.writerDidRun(writer) }
        return try gate.perform(on: writer, transaction: kind, refusingWrites: refusingWrites, body)
    }

    // MARK: Opening

    /// Sets the journal mode of the options (unless read-only) and `synchronous = NORMAL` in WAL
    /// mode; returns whether the database is in WAL mode.
    private static func configureJournal(of writer: Connection, options: Options) throws -> Bool {
        let pragma = options.readOnly ? "PRAGMA journal_mode" : "PRAGMA journal_mode = \(options.journalMode.rawValue)"
        let mode: String = try writer.rows(pragma, arguments: []).first.map { try $0[0] } ?? ""
        guard mode.lowercased() == "wal" else {
            return false
        }
        if !options.readOnly {
            try writer.execute(script: "PRAGMA synchronous = NORMAL")
        }
        return true
    }

    /// Opens the reader connections of a WAL database, read-only and with `PRAGMA query_only`.
    private static func openReaders(path: String, options: Options) throws -> ReaderPool {
        let readers = try (0..<options.readerCount).map { index in
            let connection = try Connection(path: path, options: options.connectionOptions(readOnly: true))
            try connection.execute(script: "PRAGMA query_only = ON")
            if options.checkpointing == .leftToReplicator {
                try connection.disableAutomaticCheckpoints()
            }
            connection.codingOptions = options.coding
            return ReaderConnection(connection: connection, label: "Bindery.Database(\(path)).reader\(index)")
        }
        return ReaderPool(readers: readers)
    }
}
