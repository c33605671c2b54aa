import CSQLite
import Foundation

/// A prepared statement: a thin wrapper over `sqlite3_stmt` used by every layer above.
///
/// A statement belongs to one connection and is used on one thread at a time. Cached statements are
/// lent out by ``StatementCache`` and reset and cleared when they are given back.
final class Statement {
    /// The `sqlite3_stmt` handle; valid until ``finalize()``.
    let handle: OpaquePointer
    /// The connection's `sqlite3` handle, for error messages.
    let database: OpaquePointer
    /// The SQL text the statement was prepared from.
    let sql: String
    /// Whether ``sql`` is ASCII, for ``ExactText/same(_:knownIsASCII:_:)``.
    let sqlIsASCII: Bool
    /// Whether the statement is owned by a statement cache.
    let isCached: Bool
    /// Whether the statement is lent out; a cached statement in use is not lent a second time.
    var isInUse = false
    /// Whether `sqlite3_finalize` has run; a finalized statement must not be touched.
    private(set) var isFinalized = false
    /// The status of the statement's connection, checked before each step; once the statement is
    /// finalized, ``ConnectionStatus/finalized``.
    private(set) var status: ConnectionStatus
    /// The number of columns in a result row. Read it after stepping: SQLite re-prepares a statement
    /// whose schema changed inside `sqlite3_step`, and the columns may change with it.
    var columnCount: Int32 { sqlite3_column_count(handle) }
    /// The number of parameters (the largest parameter index).
    let parameterCount: Int32
    /// The last time the cache lent the statement out, for the least-recently-used eviction.
    var lastUse: UInt64 = 0
    /// Whether the cache still holds the statement: one it dropped while lent out is finalized when it
    /// comes back.
    var isHeldByCache = false
    /// Per-statement data that the layers above attach (a decoder's column look-up, say); read it with
    /// ``attachment(as:)``.
    var attachment: AnyObject? {
        didSet { attachmentLent = attachment.map(Lent.init) }
    }
    /// ``attachment``, to lend without counting a reference (see ``lentAttachment(as:)``).
    private var attachmentLent: Lent<AnyObject>?

    /// The attachment when it is a `T`.
    @inline(__always)
    func attachment<T: AnyObject>(as type: T.Type) -> T? {
        attachment as? T
    }

    /// The attachment when it is exactly of class `T`, lent without counting a reference: valid while
    /// it stays the statement's attachment and the statement lives.
    @inline(__always)
    func lentAttachment<T: AnyObject>(as type: T.Type) -> Lent<T>? {
        attachmentLent?.exactly(T.self)
    }
    /// What the statement does to the transaction, read from its first words when it is prepared.
    let transactionControl: TransactionControl
    /// Whether the statement is transaction control at all: the check made on every run inside a
    /// transaction scope, one byte to read where ``transactionControl`` copies an enum with a payload.
    let isTransactionControl: Bool
    /// Whether the statement changes the schema (see ``TransactionControl/changesSchema(sql:)``), read
    /// when the statement is prepared.
    let changesSchema: Bool

    /// Prepares `sql`, which must hold exactly one statement and no NUL byte, for the connection whose
    /// status is `status`.
    init(database: OpaquePointer, status: ConnectionStatus, sql: String, persistent: Bool) throws {
        try Statement.checkNoNUL(in: sql)
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let prepared = SQLiteMemory.prepare(database, sql, from: 0, flags: flags)
        let code = prepared.code
        let statement = prepared.statement
        let hasMore =
            code == SQLITE_OK && statement != nil
            && Statement.hasStatement(database: database, sql: sql, from: prepared.end)
        guard code == SQLITE_OK else {
            sqlite3_finalize(statement)
            throw SQLiteError(database: database, resultCode: code, sql: sql)
        }
        guard let statement else {
            throw SQLiteError(code: .misuse, message: "the SQL text holds no statement", sql: sql)
        }
        if hasMore {
            sqlite3_finalize(statement)
            throw SQLiteError(
                code: .misuse,
                message: "the SQL text holds more than one statement; use execute(script:) to run several",
                sql: sql)
        }
        self.handle = statement
        self.database = database
        self.status = status
        self.sql = sql
        self.sqlIsASCII = ExactText.isASCII(sql)
        self.isCached = persistent
        self.parameterCount = sqlite3_bind_parameter_count(statement)
        self.transactionControl = TransactionControl(sql: sql.utf8)
        self.isTransactionControl = transactionControl != .none
        self.changesSchema = TransactionControl.changesSchema(sql: sql.utf8)
        // The tables the authorizer saw written while it was prepared are this statement's, whenever
        // it runs.
        status.writeTracker?.statementPrepared(statement)
    }

    /// Throws ``SQLiteError/Code/misuse`` when the SQL text `sql` holds a NUL byte: SQLite reads SQL
    /// text only up to its first NUL, so the rest would be dropped without a word (the text of a
    /// `\(raw:)` interpolation included). NUL bytes in bound values are fine.
    static func checkNoNUL(in sql: String) throws {
        guard let offset = sql.utf8.firstIndex(of: 0).map({ sql.utf8.distance(from: sql.utf8.startIndex, to: $0) })
        else { return }
        throw SQLiteError(
            code: .misuse,
            message: "the SQL text contains a NUL byte (at UTF-8 offset \(offset)), where SQLite would stop reading "
                + "it; bind text that holds NUL as an argument instead",
            sql: sql)
    }

    deinit {
        if !isFinalized {
            sqlite3_finalize(handle)
        }
    }

    /// Whether `sql` holds anything but white space, comments and semicolons from UTF-8 offset `offset`.
    private static func hasStatement(database: OpaquePointer, sql: String, from offset: Int) -> Bool {
        var offset = offset
        let count = sql.utf8.count
        while offset < count {
            let prepared = SQLiteMemory.prepare(database, sql, from: offset, flags: 0)
            sqlite3_finalize(prepared.statement)
            if prepared.code != SQLITE_OK || prepared.statement != nil {
                return true
            }
            if prepared.end <= offset { break }
            offset = prepared.end
        }
        return false
    }

    /// Finalizes the statement; later calls do nothing.
    func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        status = ConnectionStatus.finalized
        sqlite3_finalize(handle)
    }

    // MARK: Running

    /// Steps once: `true` when a row is available, `false` when the statement is done.
    ///
    /// A statement whose connection was closed (or refused to close, or was interrupted) since the
    /// last step, or that was finalized, does not step: it throws ``SQLiteError/Code/misuse`` (or
    /// ``SQLiteError/Code/interrupt``) instead. The check costs one load and one branch per step.
    @inline(__always)
    func step() throws -> Bool {
        guard status.isClear else {
            throw status.error(sql: sql)
        }
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw failure(code)
    }

    /// The error of a step that failed with `code`, counted as a possible undo (SQLite rolls the
    /// statement's changes back): out of line, off the path of every step that succeeds.
    private func failure(_ code: Int32) -> SQLiteError {
        status.possibleUndos &+= 1
        return SQLiteError(database: database, resultCode: code, sql: sql)
    }

    /// Steps until the statement is done, ignoring any rows.
    @inline(__always)
    func run() throws {
        while try step() {}
    }

    /// Steps until the statement is done and resets it, succeeded or not; the error of a step that
    /// failed carries the `arguments` bound (for `debugDescription`).
    func runAndReset(arguments: @autoclosure () -> [SQLiteValue]) throws {
        defer { reset() }
        do {
            try run()
        } catch let error as SQLiteError {
            throw error.with(arguments: arguments())
        }
    }

    /// How many rows the last INSERT, UPDATE or DELETE on the statement's connection changed
    /// (`sqlite3_changes64`, counted per connection): read it right after running this statement.
    var changes: Int { Int(sqlite3_changes64(database)) }

    /// Resets the statement so that it can run again; bindings stay.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Whether a TEXT or BLOB parameter is bound: SQLite holds a copy of it until the parameter is
    /// bound again or cleared.
    var holdsCopies = false

    /// Resets the statement, and sets every parameter back to NULL when one holds a copy of TEXT or a
    /// BLOB, so that a cached statement keeps no large value alive. Bindings of integers and reals stay:
    /// every use binds all parameters again (a statement run with fewer arguments than parameters is
    /// refused), and clearing them would cost a call on every record-sized statement.
    func resetAndClear() {
        sqlite3_reset(handle)
        if holdsCopies {
            sqlite3_clear_bindings(handle)
            holdsCopies = false
        }
    }

    /// How many times SQLite re-prepared the statement after a schema change; layers that remember
    /// column positions compare it to know when to look them up again.
    var reprepareCount: Int32 {
        sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
    }

    // MARK: Reading columns

    /// The name of the 0-based result column `index`.
    func columnName(at index: Int32) -> String {
        guard let name = sqlite3_column_name(handle, index) else { return "" }
        return String(cString: name)
    }

    /// The names of every result column.
    var columnNames: [String] {
        (0..<columnCount).map { columnName(at: $0) }
    }

    /// The storage class of the value in column `index` of the current row (`SQLITE_INTEGER` …).
    @inline(__always)
    func columnType(at index: Int32) -> Int32 {
        sqlite3_column_type(handle, index)
    }

    /// The value in column `index` as an INTEGER (only meaningful when its type is INTEGER).
    @inline(__always)
    func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The value in column `index` as a REAL.
    @inline(__always)
    func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// The value in column `index` as text; invalid UTF-8 is repaired with U+FFFD.
    @inline(__always)
    func string(at index: Int32) throws -> String {
        guard let text = SQLiteMemory.string(column: index, of: handle) else {
            return try Statement.emptyOrNoMemory(
                "", handle, column: index, byteCount: sqlite3_column_bytes(handle, index))
        }
        return text
    }

    /// The bytes of column `index`.
    @inline(__always)
    func data(at index: Int32) throws -> Data {
        guard let bytes = SQLiteMemory.data(column: index, of: handle) else {
            return try Statement.emptyOrNoMemory(
                Data(), handle, column: index, byteCount: sqlite3_column_bytes(handle, index))
        }
        return bytes
    }

    /// The value in column `index` of the current row.
    func value(at index: Int32) throws -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT: return .text(try string(at: index))
        case SQLITE_BLOB: return .blob(try data(at: index))
        default: return .null
        }
    }

    /// What to do when SQLite returned no pointer for the TEXT or BLOB value in `column` of
    /// `statement`, whose size is now `byteCount`: every reader of `sqlite3_column_text`/`_blob` and
    /// `sqlite3_value_text`/`_blob` comes here. A zero-length BLOB has no pointer: `empty` is returned.
    /// Otherwise SQLite could not allocate the memory to convert or copy the value (`SQLITE_NOMEM`;
    /// empty text does have a pointer), and this throws ``SQLiteError/Code/noMemory`` naming the column
    /// rather than read the value as empty.
    static func emptyOrNoMemory<T>(_ empty: T, _ statement: OpaquePointer, column: Int32, byteCount: Int32) throws -> T
    {
        let database = sqlite3_db_handle(statement)
        if byteCount == 0, sqlite3_errcode(database) != SQLITE_NOMEM {
            return empty
        }
        let name = sqlite3_column_name(statement, column).map { String(cString: $0) } ?? "\(column)"
        throw SQLiteError(
            code: .noMemory, extendedCode: SQLITE_NOMEM,
            message: "SQLite could not allocate the memory to read the value of column \"\(name)\" (out of memory)",
            sql: sqlite3_sql(statement).map { String(cString: $0) })
    }

    /// The name of SQLite's storage class for a `sqlite3_column_type` code.
    static func typeName(of type: Int32) -> String {
        switch type {
        case SQLITE_INTEGER: return "INTEGER"
        case SQLITE_FLOAT: return "REAL"
        case SQLITE_TEXT: return "TEXT"
        case SQLITE_BLOB: return "BLOB"
        default: return "NULL"
        }
    }
}
