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
    /// Whether ``close()`` has run: the closed flag of the connection's status, which
    /// `close()` raises and nothing lowers (one atomic load, read by every insert and transaction check).
    public var isClosed: Bool { status.flags.contains(.closed) }
    /// Whether the connection is lent to a job of its owner (``beginLending(closeRefusal:)``), during
    /// which ``close()`` does not close it.
    private(set) var isLent = false
    /// Whether statements that would write are refused (``refusingWrites(_:)``).
    var refusesWrites = false
    /// Whether ``refusingWrites(_:)`` turned `PRAGMA query_only` on.
    var isQueryOnly = false
    /// Per-connection state kept by the layers above (record SQL, coding options), by type.
    let extensionStore = ExtensionStore()
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
    /// How many ``transaction(_:_:)`` scopes (the transaction and its savepoints) are open; while it
    /// is above 0, SQLite being in autocommit mode means SQLite rolled the transaction back under them.
    /// Counted by ``transaction(_:_:)`` and its savepoints only (`Connection+Transactions.swift`).
    var transactionDepth = 0
    /// The savepoints that statements (alone or in a script) opened inside the current transaction
    /// scope, innermost last: only those may be released by a statement (see
    /// ``guardTransactionControl(of:)`` and ``execute(script:)``). Emptied when an outermost scope begins.
    var scopeSavepoints: [String] = []
    /// Moves on each time a statement that changes the schema (`CREATE`, `DROP`, `ALTER`) is prepared to
    /// run on this connection: what was read from the schema before is read again (see `InsertPlan`).
    private(set) var schemaGeneration: UInt64 = 0
    /// Whether Bindery runs a transaction-control statement of its own (``runCached(_:)``), which the
    /// check of ``guardTransactionControl(of:)`` lets through. Set by ``runCached(_:)`` only.
    var runsOwnControl = false

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
        bindery_watch_interrupts(db, status.word.address, Connection.interruptCheckInterval)
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
        status.raise(.closed)
        // Statements lent out are finalized when they come back; until then `sqlite3_close_v2`
        // keeps the connection as a zombie, whose statements never step (`status` says closed).
        statementCache.removeAll()
        extensionStore.removeAll()
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
        guard status.isClear else {
            throw status.error(sql: nil)
        }
    }

    /// Throws when the connection was closed, or when SQLite rolled back the transaction of an open
    /// ``transaction(_:_:)`` scope (``rolledBackBySQLite``, with `sql`): a statement run then would
    /// run in autocommit mode and commit on its own, apart from the rest of the transaction.
    @inline(__always)
    func checkUsable(sql: String?) throws {
        guard status.isClear else {
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

    /// Sets what ``lastInsertRowID`` returns until the next successful INSERT
    /// (`sqlite3_set_last_insert_rowid`).
    func setLastInsertRowID(_ rowid: Int64) {
        if !isClosed {
            sqlite3_set_last_insert_rowid(handle, rowid)
        }
    }

    /// How many rows the most recent INSERT, UPDATE or DELETE changed.
    public var changes: Int {
        isClosed ? 0 : Int(sqlite3_changes64(handle))
    }

    /// The most parameters a statement may have on this connection (`SQLITE_LIMIT_VARIABLE_NUMBER`).
    var parameterLimit: Int {
        Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
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

    /// Records that a statement that changes the schema is about to run (see ``schemaGeneration``).
    func noteSchemaChange() {
        schemaGeneration &+= 1
        status.schemaChanges &+= 1
    }

    /// Whether a change recorder is open on the connection (SQLite has one preupdate hook for it).
    var hasChangeRecorder: Bool { changeRecorder != nil }

    /// Keeps a weak reference to `recorder`, to close it before the connection closes.
    func keepUntilClose(_ recorder: ChangeRecorder) {
        changeRecorder = recorder
    }
}
