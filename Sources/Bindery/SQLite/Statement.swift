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
    /// Whether the statement is owned by a statement cache.
    let isCached: Bool
    /// Whether the statement is lent out; a cached statement in use is not lent a second time.
    var isInUse = false
    /// Whether `sqlite3_finalize` has run; a finalized statement must not be touched.
    private(set) var isFinalized = false
    /// The status of the statement's connection, checked before each step; once the statement is
    /// finalized, ``ConnectionStatus/finalized``. Only `step` and `finalize` touch it, on the
    /// connection's thread: no dynamic exclusivity check.
    @exclusivity(unchecked) private(set) var status: ConnectionStatus
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
        didSet { attachmentReference = attachment.map(Unmanaged.passUnretained) }
    }
    /// ``attachment``, to lend without counting a reference (see ``attachmentReference(as:)``).
    private var attachmentReference: Unmanaged<AnyObject>?

    /// The attachment when it is a `T`. Run for every statement a record call runs: an attachment of
    /// exactly class `T` is recognised by comparing classes, without the runtime's cast, which only
    /// another class takes.
    @inline(__always)
    func attachment<T: AnyObject>(as type: T.Type) -> T? {
        guard let attachment else { return nil }
        if Swift.type(of: attachment) == T.self {
            return unsafeDowncast(attachment, to: T.self)
        }
        return attachment as? T
    }

    /// The attachment when it is exactly of class `T`, without counting a reference: valid while it
    /// stays the statement's attachment and the statement lives.
    @inline(__always)
    func attachmentReference<T: AnyObject>(as type: T.Type) -> Unmanaged<T>? {
        guard let attachmentReference, attachmentReference._withUnsafeGuaranteedRef({ Swift.type(of: $0) == T.self })
        else { return nil }
        return Unmanaged<T>.fromOpaque(attachmentReference.toOpaque())
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
        var statement: OpaquePointer?
        var hasMore = false
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sql.withCString { text -> Int32 in
            // The tail points into this temporary C string: it must be read inside the closure.
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(database, text, -1, flags, &statement, &tail)
            if code == SQLITE_OK, statement != nil, let tail {
                hasMore = Statement.hasStatement(database: database, text: tail)
            }
            return code
        }
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
        self.isCached = persistent
        self.parameterCount = sqlite3_bind_parameter_count(statement)
        self.transactionControl = TransactionControl(sql: sql.utf8)
        self.isTransactionControl = transactionControl != .none
        self.changesSchema = TransactionControl.changesSchema(sql: sql.utf8)
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

    /// Whether `text` holds anything but white space, comments and semicolons.
    private static func hasStatement(database: OpaquePointer, text: UnsafePointer<CChar>) -> Bool {
        var rest: UnsafePointer<CChar>? = text
        while let current = rest, current.pointee != 0 {
            var statement: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(database, current, -1, 0, &statement, &tail)
            sqlite3_finalize(statement)
            if code != SQLITE_OK || statement != nil {
                return true
            }
            rest = tail
            if tail == current { break }
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
        guard _fastPath(status.isClear) else {
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

    /// How many rows the last INSERT, UPDATE or DELETE on the statement's connection changed
    /// (`sqlite3_changes64`, counted per connection): read it right after running this statement.
    var changes: Int { Int(sqlite3_changes64(database)) }

    /// Resets the statement so that it can run again; bindings stay.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Whether a TEXT or BLOB parameter is bound: SQLite holds a copy of it until the parameter is
    /// bound again or cleared.
    private var holdsCopies = false

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

    // MARK: Binding

    /// Binds `value` to the 1-based parameter `index`.
    func bind(_ value: SQLiteValue, at index: Int32) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let int): try bind(int, at: index)
        case .real(let double): try bind(double, at: index)
        case .text(let text): try bind(text, at: index)
        case .blob(let data): try bind(data, at: index)
        }
    }

    /// Binds `value` with the integer and real cases inlined: record inserts and updates bind through it.
    @inline(__always)
    func bindFast(_ value: SQLiteValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
        case .real(let double): code = sqlite3_bind_double(handle, index, double)
        default: return try bind(value, at: index)
        }
        if code != SQLITE_OK {
            try check(code, index: index)
        }
    }

    /// Binds NULL.
    @inline(__always)
    func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index), index: index)
    }

    /// Binds an INTEGER.
    @inline(__always)
    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value), index: index)
    }

    /// Binds a REAL.
    @inline(__always)
    func bind(_ value: Double, at index: Int32) throws {
        try check(sqlite3_bind_double(handle, index, value), index: index)
    }

    /// Binds TEXT; the bytes are copied, NUL bytes included.
    @inline(__always)
    func bind(_ value: String, at index: Int32) throws {
        holdsCopies = true
        var value = value
        let code = value.withUTF8 { bytes -> Int32 in
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, bindery_sqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                sqlite3_bind_text64(
                    handle, index, chars, sqlite3_uint64(bytes.count), bindery_sqlite_transient(),
                    UInt8(SQLITE_UTF8))
            }
        }
        try check(code, index: index)
    }

    /// Binds a BLOB; an empty `Data` is an empty blob, not NULL.
    @inline(__always)
    func bind(_ value: Data, at index: Int32) throws {
        holdsCopies = true
        let code = value.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(bytes.count), bindery_sqlite_transient())
        }
        try check(code, index: index)
    }

    @inline(__always)
    func check(_ code: Int32, index: Int32) throws {
        guard code != SQLITE_OK else { return }
        throw SQLiteError(database: database, resultCode: code, sql: sql).withParameter(index)
    }

    /// The name of the 1-based parameter `index` (with its `:`, `@` or `$` prefix), or nil for `?`.
    func parameterName(at index: Int32) -> String? {
        guard let name = sqlite3_bind_parameter_name(handle, index) else { return nil }
        return String(cString: name)
    }

    /// Binds positional arguments after checking that they match the parameters one for one.
    func bind(arguments: [SQLiteValue]) throws {
        guard status.isClear else {
            throw status.error(sql: sql)
        }
        guard arguments.count == Int(parameterCount) else {
            throw SQLiteError(
                code: .range,
                message:
                    "the statement has \(parameterCount) parameter(s) but \(arguments.count) argument(s) were given",
                sql: sql)
        }
        for (offset, value) in arguments.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds named arguments; each key may be written with or without its prefix (`name` or `:name`).
    /// Every parameter must be named and given, and every key must name a parameter.
    func bind(namedArguments arguments: [String: SQLiteValue]) throws {
        guard status.isClear else {
            throw status.error(sql: sql)
        }
        var used = Set<String>()
        for index in 1...max(parameterCount, 1) where index <= parameterCount {
            guard let name = parameterName(at: index) else {
                throw SQLiteError(
                    code: .range, message: "parameter \(index) is positional; named arguments need named parameters",
                    sql: sql)
            }
            let bare = String(name.dropFirst())
            let key: String
            if arguments[name] != nil {
                key = name
            } else if arguments[bare] != nil {
                key = bare
            } else {
                throw SQLiteError(code: .range, message: "no argument given for parameter \(name)", sql: sql)
            }
            used.insert(key)
            // Checked above: the key is present.
            try bind(arguments[key] ?? .null, at: index)
        }
        let unknown = Set(arguments.keys).subtracting(used)
        if !unknown.isEmpty {
            throw SQLiteError(
                code: .range, message: "no parameter named \(unknown.sorted().joined(separator: ", "))", sql: sql)
        }
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
        guard let text = sqlite3_column_text(handle, index) else {
            return try Statement.emptyOrNoMemory(
                "", handle, column: index, byteCount: sqlite3_column_bytes(handle, index))
        }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The bytes of column `index`.
    @inline(__always)
    func data(at index: Int32) throws -> Data {
        guard let bytes = sqlite3_column_blob(handle, index) else {
            return try Statement.emptyOrNoMemory(
                Data(), handle, column: index, byteCount: sqlite3_column_bytes(handle, index))
        }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Data(bytes: bytes, count: count)
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

extension SQLiteError {
    /// The same error with the parameter index in its message.
    fileprivate func withParameter(_ index: Int32) -> SQLiteError {
        SQLiteError(
            code: code, extendedCode: extendedCode, message: "\(message) (binding parameter \(index))", sql: sql,
            arguments: arguments)
    }
}
