import CSQLite
import Foundation

/// A connection to one SQLite database: synchronous, fast, and for one thread at a time.
///
/// `Connection` is the layer every other part of Bindery stands on. Open one directly for
/// single-threaded work, or let a ``Database`` actor hand one to your `read`/`write` closures.
///
/// ```swift
/// let conn = try Connection(path: "app.sqlite")
/// try conn.execute(script: "CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
/// try conn.execute("INSERT INTO notes(body) VALUES (?)", arguments: ["hello"])
/// for row in try conn.rows("SELECT id, body FROM notes", arguments: []) {
///     print(try row["id"] as Int64, try row["body"] as String)
/// }
/// ```
///
/// It is not `Sendable`: use it from the thread (or closure) that owns it. The connection closes
/// exactly once, by ``close()`` or when it is deallocated, finalizing its prepared statements; one
/// that a ``Database`` lends to a `read` or `write` closure does not close there (see ``close()``).
public final class Connection {
    /// How a connection opens its database.
    public struct Options: Sendable, Hashable {
        /// Open the file read-only; writes throw ``SQLiteError/Code/readOnly``. Default `false`.
        public var readOnly: Bool
        /// How long a statement waits for another connection's lock before failing with
        /// ``SQLiteError/Code/busy``, in seconds. Default 5.
        public var busyTimeout: Double
        /// Whether foreign key constraints are enforced (`PRAGMA foreign_keys`). Default `true`.
        public var foreignKeys: Bool
        /// How many prepared statements the connection keeps. Default 128.
        public var statementCacheCapacity: Int
        /// Whether SQLite's legacy rule that reads a double-quoted name matching no column as a string
        /// literal is on (`SQLITE_DBCONFIG_DQS_DML` and `_DDL`). Default `false`: a misspelt
        /// `"\(identifier: name)"` throws "no such column" instead of matching its own spelling. Turn
        /// it on only for a database whose schema (a view, a trigger) was written relying on the rule;
        /// see <doc:Reliability#Double-quoted-names-are-identifiers>.
        public var acceptsDoubleQuotedStringLiterals: Bool
        /// How far the connection trusts its file's schema: ``SchemaTrust/untrusted`` by default,
        /// SQLite's advice for files that may come from elsewhere (an import, a shared file, a
        /// download); ``SchemaTrust/trustedSchema`` for a file your app created whose triggers or views
        /// need it (a search table's triggers do); ``SchemaTrust/full`` for a file you wrote whose
        /// schema relies on more. See <doc:Reliability#Files-from-elsewhere>.
        public var schemaTrust: SchemaTrust
        /// Whether the database file and the SQL run on it are fully trusted: the same as
        /// ``schemaTrust`` being ``SchemaTrust/full``. Default `false`: a view, a trigger or another
        /// part of the schema may call only functions marked innocuous (no application function with
        /// side effects; `SQLITE_DBCONFIG_TRUSTED_SCHEMA` off), no SQL can corrupt the file through
        /// `PRAGMA writable_schema` or `sqlite_dbpage` (`SQLITE_DBCONFIG_DEFENSIVE` on), and
        /// extensions cannot be loaded (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` off). `true` lifts all
        /// three; ``SchemaTrust/trustedSchema`` lifts only the first.
        public var trustsSchema: Bool {
            get { schemaTrust == .full }
            set { schemaTrust = newValue ? .full : .untrusted }
        }

        /// Creates options; every parameter has the default described on its property. `trustsSchema:
        /// true` sets ``schemaTrust`` to ``SchemaTrust/full`` whatever `schemaTrust` says.
        public init(
            readOnly: Bool = false, busyTimeout: Double = 5, foreignKeys: Bool = true,
            statementCacheCapacity: Int = 128,
            acceptsDoubleQuotedStringLiterals: Bool = false, trustsSchema: Bool = false,
            schemaTrust: SchemaTrust = .untrusted
        ) {
            self.readOnly = readOnly
            self.busyTimeout = busyTimeout
            self.foreignKeys = foreignKeys
            self.statementCacheCapacity = statementCacheCapacity
            self.acceptsDoubleQuotedStringLiterals = acceptsDoubleQuotedStringLiterals
            self.schemaTrust = trustsSchema ? .full : schemaTrust
        }
    }

    /// The kind of lock a transaction takes when it begins.
    public enum TransactionKind: String, Sendable {
        /// Takes locks as statements need them (`BEGIN DEFERRED`).
        case deferred = "DEFERRED"
        /// Takes the write lock at once (`BEGIN IMMEDIATE`); the usual choice for writes.
        case immediate = "IMMEDIATE"
        /// Takes the write lock and, outside WAL mode, keeps readers out (`BEGIN EXCLUSIVE`).
        case exclusive = "EXCLUSIVE"
    }

    /// The `sqlite3` handle; valid while the connection is open.
    let handle: OpaquePointer
    /// The path the connection was opened with (`:memory:` for a private in-memory database).
    public let path: String
    /// The options the connection was opened with.
    public let options: Options
    /// The connection's prepared statements.
    let statementCache: StatementCache
    /// What stops the connection's statements (closed, a refused close, an interrupt), shared with them.
    let status = ConnectionStatus()
    // Read by every insert and transaction check. A connection is used by one thread at a time (it is
    // not `Sendable`), and only `close()` writes the flag: no dynamic exclusivity check (callgrind: about
    // 75 instructions for each read).
    /// Whether ``close()`` has run.
    @exclusivity(unchecked) public private(set) var isClosed = false
    /// Whether the connection is lent to a job of its owner (``beginLending(closeRefusal:)``), during
    /// which ``close()`` does not close it.
    private(set) var isLent = false
    /// Whether statements that would write are refused (``refusingWrites(_:)``).
    var refusesWrites = false
    /// Whether ``refusingWrites(_:)`` turned `PRAGMA query_only` on.
    var isQueryOnly = false
    /// Per-connection state kept by the layers above (record SQL, coding options), by type.
    private var extensions: [ObjectIdentifier: AnyObject] = [:]
    /// The change recorder on the connection (``openChangeRecorder(tables:)``), closed before it
    /// closes: SQLite has one preupdate hook per connection.
    private weak var changeRecorder: ChangeRecorder?
    /// The layer above that takes part in the connection's outermost transactions (sync's change
    /// capture): told before each ``transaction(_:_:)`` commits, and asked by the commit hook
    /// whether a commit may happen at all.
    /// Set by ``setTransactionParticipant(_:)``.
    private(set) var transactionParticipant: (any TransactionParticipant)?

    /// Sets ``transactionParticipant`` (see ``setTransactionParticipant(_:)``).
    func storeTransactionParticipant(_ participant: (any TransactionParticipant)?) {
        transactionParticipant = participant
    }
    /// The extension state asked for last, and its type: found again without a dictionary look-up.
    private var lastExtension: (key: ObjectIdentifier, state: AnyObject)? {
        didSet {
            lastExtensionKey = lastExtension?.key
            lastExtensionReference = lastExtension.map { Unmanaged.passUnretained($0.state) }
        }
    }
    /// ``lastExtension``'s type and state, to lend without counting a reference (see
    /// ``withExtensionState(_:_:)``).
    /// These four are read and written on the connection's thread only, never across a call: no
    /// dynamic exclusivity check (callgrind: about 100 instructions a lend).
    @exclusivity(unchecked) private var lastExtensionKey: ObjectIdentifier?
    @exclusivity(unchecked) private var lastExtensionReference: Unmanaged<AnyObject>?
    /// How many ``withExtensionState(_:_:)`` calls are running: while any is, replaced or dropped
    /// extension states go to ``retiredExtensions`` instead of being freed.
    @exclusivity(unchecked) private var extensionLends = 0
    /// Extension states replaced (or dropped by ``close()``) while one may be lent; freed when the last
    /// lend ends.
    @exclusivity(unchecked) private var retiredExtensions: [AnyObject] = []
    /// How many ``transaction(_:_:)`` scopes (the transaction and its savepoints) are open; while it
    /// is above 0, SQLite being in autocommit mode means SQLite rolled the transaction back under them.
    private(set) var transactionDepth = 0
    /// The savepoints that statements (alone or in a script) opened inside the current transaction
    /// scope, innermost last: only those may be released by a statement (see
    /// ``guardTransactionControl(of:)`` and ``execute(script:)``). Emptied when an outermost scope begins.
    var scopeSavepoints: [String] = []
    /// Moves on each time a statement that changes the schema (`CREATE`, `DROP`, `ALTER`) is prepared to
    /// run on this connection: what was read from the schema before is read again (see `InsertPlan`).
    private(set) var schemaGeneration: UInt64 = 0
    /// Whether Bindery runs a transaction-control statement of its own (``runCached(_:)``), which the
    /// check of ``guardTransactionControl(of:)`` lets through.
    private var runsOwnControl = false

    /// Opens (and creates, unless read-only) the database file at `path`.
    ///
    /// The file is read once at open, so a file that is not a SQLite database throws
    /// ``SQLiteError/Code/notADatabase`` here rather than at the first query.
    public convenience init(path: String, options: Options = Options()) throws {
        var flags = SQLITE_OPEN_NOMUTEX
        flags |= options.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try self.init(path: path, flags: flags, options: options)
    }

    /// Opens a private, empty in-memory database that lives as long as the connection.
    public static func inMemory(options: Options = Options()) throws -> Connection {
        var options = options
        options.readOnly = false
        return try Connection(
            path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, options: options)
    }

    /// Process-wide SQLite settings, applied once before the first connection opens.
    private static let configured: Bool = {
        bindery_disable_memory_statistics() == SQLITE_OK
    }()

    /// Opens `path` with `flags`. `onLoadedVFS`: the path is a URI naming a VFS that an extension
    /// registered already (Litestream's), whose open may wait as long as the VFS likes: it does not take
    /// ``LitestreamVFS/openLock``, which guards only opens that an extension being loaded could break.
    init(path: String, flags: Int32, options: Options, onLoadedVFS: Bool = false) throws {
        _ = Connection.configured
        let db = try Connection.openHandle(path: path, flags: flags, options: options, onLoadedVFS: onLoadedVFS)
        self.handle = db
        self.path = path
        self.options = options
        self.statementCache = StatementCache(database: db, status: status, capacity: options.statementCacheCapacity)
        bindery_watch_interrupts(db, status.word, Connection.interruptCheckInterval)
        do {
            try execute(script: "PRAGMA foreign_keys = \(options.foreignKeys ? "ON" : "OFF")")
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    /// Seconds as whole milliseconds for `sqlite3_busy_timeout`: NaN and negatives are 0, and
    /// anything too large (infinity included) is `Int32.max`.
    static func milliseconds(_ seconds: Double) -> Int32 {
        let milliseconds = (seconds * 1000).rounded()
        guard !milliseconds.isNaN, milliseconds > 0 else { return 0 }
        guard milliseconds < Double(Int32.max) else { return .max }
        return Int32(milliseconds)
    }

    /// Closes the connection, finalizing its statements. Later calls do nothing; using the connection
    /// afterwards throws ``SQLiteError/Code/misuse``, and a transaction left open is rolled back.
    ///
    /// Closing is safe at any moment, even from code that runs while a statement is in use (a
    /// `Decodable`'s `init(from:)` during a fetch, an `encode(to:)` during an insert, a cursor still
    /// open): a statement in use is finalized only when its operation gives it back, and it never
    /// steps again. The operation in progress throws ``SQLiteError/Code/misuse``.
    ///
    /// A connection that a ``Database`` lends to a `read` or `write` closure belongs to the database
    /// and does not close: `close()` there stops every later statement of the closure with
    /// ``SQLiteError/Code/misuse``, the job throws that error and rolls its transaction back, and the
    /// connection goes on serving the database. Close the database with ``Database/close()``.
    public func close() {
        guard !isClosed else { return }
        guard !isLent else {
            status.raise(.closeRefused)
            return
        }
        isClosed = true
        status.raise(.closed)
        // Statements lent out are finalized when they come back; until then `sqlite3_close_v2`
        // keeps the connection as a zombie, whose statements never step (`status` says closed).
        statementCache.removeAll()
        if extensionLends > 0 {
            retiredExtensions.append(contentsOf: extensions.values)
        }
        extensions.removeAll()
        lastExtension = nil
        transactionParticipant?.connectionWillClose()
        transactionParticipant = nil
        changeRecorder?.close()
        changeRecorder = nil
        // A zombie's statements never step, but the handler must not outlive the status it reads.
        bindery_watch_interrupts(handle, nil, 0)
        sqlite3_close_v2(handle)
    }

    /// Throws when the connection was closed, refused to close while lent, or was interrupted.
    @inline(__always)
    func checkOpen() throws {
        guard _fastPath(status.isClear) else {
            throw status.error(sql: nil)
        }
    }

    /// Throws when the connection was closed, or when SQLite rolled back the transaction of an open
    /// ``transaction(_:_:)`` scope (``rolledBackBySQLite``, with `sql`): a statement run then would
    /// run in autocommit mode and commit on its own, apart from the rest of the transaction.
    @inline(__always)
    func checkUsable(sql: String?) throws {
        guard _fastPath(status.isClear) else {
            throw status.error(sql: sql)
        }
        if transactionDepth > 0, sqlite3_get_autocommit(handle) != 0 {
            throw sql.map { Connection.rolledBackBySQLite.with(sql: $0) } ?? Connection.rolledBackBySQLite
        }
    }

    // MARK: State

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 {
        isClosed ? 0 : sqlite3_last_insert_rowid(handle)
    }

    /// How many rows the most recent INSERT, UPDATE or DELETE changed.
    public var changes: Int {
        isClosed ? 0 : Int(sqlite3_changes64(handle))
    }

    /// How many rows every INSERT, UPDATE and DELETE since the connection opened changed.
    public var totalChanges: Int {
        isClosed ? 0 : Int(sqlite3_total_changes64(handle))
    }

    /// Whether a transaction is open (SQLite is not in autocommit mode).
    public var isInTransaction: Bool {
        !isClosed && sqlite3_get_autocommit(handle) == 0
    }

    /// How many times this connection called `sqlite3_prepare`; a statement run again and again from
    /// the cache counts once.
    public var prepareCount: Int {
        statementCache.prepareCount
    }

    /// Interrupts the statement running on this connection, from any thread: it fails with
    /// ``SQLiteError/Code/interrupt``, and so does every statement that starts or steps afterwards,
    /// until ``clearInterrupt()``. An interrupt is never lost, even when no statement runs at the time.
    ///
    /// A running statement sees the flag through SQLite's progress handler, within
    /// ``interruptCheckInterval`` virtual machine instructions; `sqlite3_interrupt` is not used, since
    /// it stays in force until no statement of the connection runs, and an open cursor would carry it
    /// into the jobs after this one. It touches nothing but the status word, so any thread may call it.
    func interrupt() {
        status.raise(.interrupted)
    }

    /// How many virtual machine instructions a statement runs between two checks for an interrupt.
    static let interruptCheckInterval: Int32 = 1000

    /// Lets statements run again after ``interrupt()``; call it on the connection's thread, once no
    /// other thread can call ``interrupt()`` any more.
    func clearInterrupt() {
        status.lower(.interrupted)
    }

    /// Lends the connection to a job of its owner (a ``Database``'s `read` or `write`): until
    /// ``endLending()``, ``close()`` does not close it but stops every later statement with
    /// ``SQLiteError/Code/misuse`` and the message `closeRefusal`. Throws
    /// ``SQLiteError/Code/misuse`` when the connection is closed already.
    func beginLending(closeRefusal: String) throws {
        try checkOpen()
        status.closeRefusal = closeRefusal
        isLent = true
    }

    /// Ends the lending: statements run again, and ``close()`` closes. Returns whether `close()` was
    /// called meanwhile.
    @discardableResult
    func endLending() -> Bool {
        isLent = false
        let refused = status.flags.contains(.closeRefused)
        status.lower(.closeRefused)
        return refused
    }

    /// The per-connection state of type `T` kept by a layer above, made on first use.
    func extensionState<T: AnyObject>(_ make: () -> T) -> T {
        let key = ObjectIdentifier(T.self)
        if let last = lastExtension, last.key == key {
            // Stored under T's own identifier: the state is a T.
            return unsafeDowncast(last.state, to: T.self)
        }
        if let state = extensions[key] as? T {
            lastExtension = (key, state)
            return state
        }
        let state = make()
        extensions[key] = state
        lastExtension = (key, state)
        return state
    }

    /// Replaces the per-connection state of type `T`. One lent by a running
    /// ``withExtensionState(_:_:)`` lives until that call ends.
    func setExtensionState<T: AnyObject>(_ state: T) {
        let old = extensions.updateValue(state, forKey: ObjectIdentifier(T.self))
        if extensionLends > 0, let old {
            retiredExtensions.append(old)
        }
        lastExtension = (ObjectIdentifier(T.self), state)
    }

    /// Runs `body` with the per-connection state of type `T` (made by `make` on first use), lent
    /// without counting a reference: the connection keeps it alive until `body` returns, even when
    /// `body` replaces it (``setExtensionState(_:)``) or closes the connection.
    @inline(__always)
    func withExtensionState<T: AnyObject, R>(_ make: () -> T, _ body: (T) throws -> R) rethrows -> R {
        extensionLends &+= 1
        defer {
            extensionLends &-= 1
            if extensionLends == 0, !retiredExtensions.isEmpty {
                freeRetiredExtensions()
            }
        }
        // One call of `body`, which is then inlined here.
        let lent: Unmanaged<T>
        if lastExtensionKey == ObjectIdentifier(T.self), let last = lastExtensionReference {
            // Stored under T's own identifier: the state is a T.
            lent = Unmanaged<T>.fromOpaque(last.toOpaque())
        } else {
            lent = Unmanaged.passUnretained(extensionState(make))  // which the connection now holds
        }
        return try lent._withUnsafeGuaranteedRef(body)
    }

    /// How many replaced or dropped extension states wait for the lends running now to end.
    var retiredExtensionCount: Int { retiredExtensions.count }

    /// How many statements lent out now the statement cache holds only until they come back.
    var statementsLentUnheld: Int { statementCache.lentUnheldCount }

    /// Frees the extension states replaced while lent, once no lend runs.
    @inline(never)
    private func freeRetiredExtensions() {
        retiredExtensions.removeAll()
    }

    // MARK: Statements

    /// Runs `body` with the cached statement for `sql`, then resets it and clears its bindings.
    ///
    /// When SQLite reports `SQLITE_SCHEMA` (the schema changed under the statement), the cache is
    /// emptied and `body` runs once more with a freshly prepared statement.
    ///
    /// Inside a ``transaction(_:_:)`` that SQLite has rolled back, it throws ``rolledBackBySQLite``.
    ///
    /// Inlined into its callers: a record call made one at a time would otherwise pay for building and
    /// counting the closure's captured values on every call.
    @inline(__always)
    func withStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        try checkUsable(sql: sql)
        do {
            return try withCachedStatement(sql, body)
        } catch let error as SQLiteError where error.code == .schema {
            return try withStatementAgain(sql, body)
        }
    }

    /// Runs `body` once more with a freshly prepared statement, after SQLite reported `SQLITE_SCHEMA`.
    @inline(never)
    func withStatementAgain<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        try checkUsable(sql: sql)
        statementCache.removeAll()
        return try withCachedStatement(sql, body)
    }

    @inline(__always)
    private func withCachedStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        // Lent by the cache without counting a reference: it keeps the statement alive until it comes
        // back, whatever `body` does meanwhile (see StatementCache.statement(for:)). A local function
        // marked to be inlined rather than a closure, which the optimizer keeps as a function of its
        // own (callgrind: about 40 instructions a call).
        @inline(__always)
        func run(_ statement: Statement) throws -> T {
            defer { statementCache.release(statement) }
            let result = try body(statement)
            // `body` may have run user code (a decoder, an encoder) that closed the connection, after the
            // statement's last step: the operation still fails.
            guard _fastPath(status.isClear) else {
                throw status.error(sql: sql)
            }
            return result
        }
        return try prepared(sql)._withUnsafeGuaranteedRef(run)
    }

    /// The cached statement for `sql`, lent without counting a reference, as ``withStatement(_:_:)``
    /// lends it but without a closure: the caller gives it back with ``releaseAfterRun(_:sql:)`` when
    /// its work succeeded (or ``release(_:)`` when it threw), and retries `SQLITE_SCHEMA` itself. The
    /// cache keeps the statement alive until then, whatever runs meanwhile.
    @inline(__always)
    func lendStatement(_ sql: String) throws -> Unmanaged<Statement> {
        try checkUsable(sql: sql)
        return try prepared(sql)
    }

    /// Gives back a statement from ``lendStatement(_:)`` after its work succeeded; throws when the
    /// connection can no longer be used (user code run meanwhile closed it, say): the operation
    /// fails, as in ``withStatement(_:_:)``.
    @inline(__always)
    func releaseAfterRun(_ statement: Statement, sql: String) throws {
        statementCache.release(statement)
        guard _fastPath(status.isClear) else {
            throw status.error(sql: sql)
        }
    }

    /// A statement for `sql` that the caller gives back with ``release(_:)`` (for cursors).
    func checkOutStatement(_ sql: String) throws -> Statement {
        try lendStatement(sql).takeUnretainedValue()
    }

    /// The cached statement for `sql`; a failure to prepare it that comes from a double-quoted
    /// string in the schema says so (``explainingDoubleQuotedStrings(_:sql:)``).
    ///
    /// Inline in its callers, which run it for every statement: the checks that seldom apply read a flag
    /// here and call out of line only when it is set.
    @inline(__always)
    private func prepared(_ sql: String) throws -> Unmanaged<Statement> {
        let lent: Unmanaged<Statement>
        do {
            lent = try statementCache.statement(for: sql)
        } catch let error as SQLiteError {
            throw explaining(error, sql: sql)
        }
        try lent._withUnsafeGuaranteedRef { statement in
            if refusesWrites {
                try guardWrites(of: statement)
            }
            if transactionDepth > 0, !runsOwnControl, statement.isTransactionControl {
                try guardTransactionControl(of: statement)
            }
            if statement.changesSchema {
                noteSchemaChange()
            }
        }
        return lent
    }

    /// A failure to prepare `sql`, explained where the schema's double-quoted strings or its trust
    /// made it (out of line: the error path of ``prepared(_:)``).
    @inline(never)
    private func explaining(_ error: SQLiteError, sql: String) -> SQLiteError {
        explainingUntrustedSchema(explainingDoubleQuotedStrings(error, sql: sql))
    }

    /// Records that a statement that changes the schema is about to run (see ``schemaGeneration``).
    func noteSchemaChange() {
        schemaGeneration &+= 1
        status.schemaChanges &+= 1
    }

    /// Gives back a statement from ``checkOutStatement(_:)`` or ``lendStatement(_:)``.
    func release(_ statement: Statement) {
        statementCache.release(statement)
    }

    /// Empties the statement cache (its statements in use are finalized when they come back).
    public func clearStatementCache() {
        statementCache.removeAll()
    }

    // MARK: Executing

    /// Runs one statement with positional arguments, for `?` and `?NNN` parameters (the array is
    /// indexed from parameter 1). A count that does not match the parameters throws before anything
    /// runs.
    ///
    /// The SQL text is used as it is: to put values into it, pass them as `arguments`, or use the
    /// ``SQL`` overload, `execute("… \(value)")`, which binds them.
    public func execute(_ sql: String, arguments: [SQLiteValue]) throws {
        try withStatement(sql) { statement in
            try statement.bind(arguments: arguments)
            do {
                try statement.run()
            } catch let error as SQLiteError {
                throw error.with(arguments: arguments)
            }
        }
    }

    /// Runs one statement with named arguments for `:name`, `@name` or `$name` parameters; keys may
    /// be written with or without the prefix. A missing or unknown name throws before anything runs.
    public func execute(_ sql: String, arguments: [String: SQLiteValue]) throws {
        try withStatement(sql) { statement in
            try statement.bind(namedArguments: arguments)
            do {
                try statement.run()
            } catch let error as SQLiteError {
                throw error.with(arguments: arguments.keys.sorted().compactMap { arguments[$0] })
            }
        }
    }

    /// Runs a query and returns every row, copied out of SQLite.
    public func rows(_ sql: String, arguments: [SQLiteValue]) throws -> [Row] {
        try withStatement(sql) { statement in
            try statement.bind(arguments: arguments)
            return try Connection.collectRows(statement)
        }
    }

    /// Runs a query with named arguments and returns every row.
    public func rows(_ sql: String, arguments: [String: SQLiteValue]) throws -> [Row] {
        try withStatement(sql) { statement in
            try statement.bind(namedArguments: arguments)
            return try Connection.collectRows(statement)
        }
    }

    /// A lazy cursor over the rows of a query: one row in memory at a time, whatever the size of the
    /// result. The statement stays busy until the cursor is done or deallocated.
    ///
    /// ```swift
    /// let cursor = try conn.rowCursor("SELECT id FROM events", arguments: [])
    /// while let row = try cursor.next() { … }
    /// ```
    public func rowCursor(_ sql: String, arguments: [SQLiteValue]) throws -> RowCursor {
        let statement = try checkOutStatement(sql)
        do {
            try statement.bind(arguments: arguments)
        } catch {
            release(statement)
            throw error
        }
        return RowCursor(connection: self, statement: statement)
    }

    static func collectRows(_ statement: Statement) throws -> [Row] {
        var rows: [Row] = []
        guard try statement.step() else { return rows }
        // Columns are read after the first step, which re-prepares a statement whose schema changed.
        let columns = RowColumns(names: statement.columnNames)
        let count = statement.columnCount
        repeat {
            rows.append(Row(values: try (0..<count).map { try statement.value(at: $0) }, columns: columns))
        } while try statement.step()
        return rows
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: it commits when `body` returns and rolls back when it throws,
    /// and the error is rethrown.
    ///
    /// Called inside another transaction, it becomes a `SAVEPOINT`: its changes roll back alone when
    /// its body throws, and commit with the outer transaction otherwise.
    ///
    /// Some errors make SQLite roll the whole transaction back by itself (`SQLITE_FULL`,
    /// `SQLITE_IOERR`, `SQLITE_NOMEM`, `SQLITE_INTERRUPT`, `ON CONFLICT ROLLBACK`, `RAISE(ROLLBACK)`).
    /// When `body` catches such an error and goes on, every later statement on the connection throws
    /// ``SQLiteError`` with code ``SQLiteError/Code/abort`` until the outermost `transaction` returns,
    /// and that one throws too: nothing of the transaction is committed, not even its last statements.
    ///
    /// Inside the transaction, a statement that would end it (`COMMIT`, `END`, `ROLLBACK`) or release
    /// a savepoint not opened inside it throws ``SQLiteError/Code/misuse`` before it runs, alone or in
    /// a script: the transaction commits when `body` returns, or not at all.
    ///
    /// ```swift
    /// try conn.transaction(.immediate) { conn in
    ///     try conn.execute("UPDATE accounts SET balance = balance - 10 WHERE id = ?", arguments: [1])
    ///     try conn.execute("UPDATE accounts SET balance = balance + 10 WHERE id = ?", arguments: [2])
    /// }
    /// ```
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: (Connection) throws -> T) throws -> T {
        try checkUsable(sql: nil)
        if isInTransaction {
            return try savepoint(body)
        }
        try transactionParticipant?.willBegin(self)
        try runCached("BEGIN \(kind.rawValue) TRANSACTION")
        scopeSavepoints.removeAll(keepingCapacity: true)
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        let result: T
        do {
            result = try body(self)
            // `body` may have closed the connection (which rolled the transaction back), or been
            // interrupted after its last statement.
            try checkOpen()
        } catch {
            rollbackQuietly()
            throw error
        }
        guard isInTransaction else {
            throw Connection.rolledBackBySQLite
        }
        do {
            try transactionParticipant?.willCommit(self)
            try runCached("COMMIT TRANSACTION")
        } catch {
            rollbackQuietly()
            throw error
        }
        return result
    }

    /// Whether a change recorder is open on the connection (SQLite has one preupdate hook for it).
    var hasChangeRecorder: Bool { changeRecorder != nil }

    /// Keeps a weak reference to `recorder`, to close it before the connection closes.
    func keepUntilClose(_ recorder: ChangeRecorder) {
        changeRecorder = recorder
    }

    private func savepoint<T>(_ body: (Connection) throws -> T) throws -> T {
        // Named by depth, so that each level's statements are prepared once and cached.
        let name = "bindery_savepoint_\(transactionDepth + 1)"
        try runCached("SAVEPOINT \(name)")
        if transactionDepth == 0 {
            // An outermost scope inside a transaction begun without one (`BEGIN`, `SAVEPOINT`).
            scopeSavepoints.removeAll(keepingCapacity: true)
        }
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let result = try body(self)
            try checkOpen()
            guard isInTransaction else {
                throw Connection.rolledBackBySQLite
            }
            try runCached("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            // An error such as SQLITE_FULL may have rolled the whole transaction back already.
            if isInTransaction {
                status.possibleUndos &+= 1
                try? runCached("ROLLBACK TRANSACTION TO SAVEPOINT \(name)")
                try? runCached("RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
    }

    /// The error when SQLite rolled back a transaction that a ``transaction(_:_:)`` scope holds open
    /// (an `ON CONFLICT ROLLBACK`, a `RAISE(ROLLBACK)`, or an error such as `SQLITE_FULL` that the body
    /// caught): thrown by every statement the body runs afterwards, and by the transaction instead of
    /// committing. Nothing was committed, and saying so is better than a later "no transaction is
    /// active". Its extended code is `SQLITE_ABORT_ROLLBACK`.
    static let rolledBackBySQLite = SQLiteError(
        code: .abort, extendedCode: SQLITE_ABORT | (2 << 8),
        message: "the transaction was rolled back by SQLite before it could commit (ON CONFLICT ROLLBACK, "
            + "RAISE(ROLLBACK), or an error such as SQLITE_FULL caught inside the transaction); nothing was "
            + "committed, and no statement runs until the transaction ends")

    /// Runs a statement without arguments through the statement cache (transaction control, which
    /// runs on every write).
    func runCached(_ sql: String) throws {
        runsOwnControl = true
        defer { runsOwnControl = false }
        try withStatement(sql) { try $0.run() }
    }

    /// Rolls the open transaction back, if SQLite has not done so already.
    func rollbackQuietly() {
        guard !isClosed, isInTransaction else { return }
        try? runCached("ROLLBACK TRANSACTION")
    }
}
