import CSQLite
import Foundation

/// An error reported by SQLite, or by Bindery's SQLite layer when a call cannot be made safely.
///
/// Match on the primary result code:
///
/// ```swift
/// do {
///     try conn.execute("INSERT INTO users(email) VALUES (\(email))")
/// } catch let error as SQLiteError where error.code == .constraint {
///     print("already registered:", error.message)
/// }
/// ```
///
/// The description holds the code, SQLite's message and the SQL text. Argument values, which may be
/// private data, appear only in `debugDescription`.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A primary SQLite result code, such as ``constraint`` or ``busy``.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric result code (the low eight bits of an extended code).
        public let rawValue: Int32

        /// Creates a code from its numeric value; an extended code is reduced to its primary code.
        public init(rawValue: Int32) {
            self.rawValue = rawValue & 0xFF
        }

        /// `SQLITE_ERROR`: a generic error, such as an SQL syntax error or a missing table.
        public static let error = Code(rawValue: SQLITE_ERROR)
        /// `SQLITE_INTERNAL`: an internal logic error in SQLite.
        public static let `internal` = Code(rawValue: SQLITE_INTERNAL)
        /// `SQLITE_PERM`: the requested access mode could not be provided.
        public static let permission = Code(rawValue: SQLITE_PERM)
        /// `SQLITE_ABORT`: an operation was aborted, for example by a `RAISE(ABORT)` or a rollback.
        public static let abort = Code(rawValue: SQLITE_ABORT)
        /// `SQLITE_BUSY`: the database file is locked by another connection.
        public static let busy = Code(rawValue: SQLITE_BUSY)
        /// `SQLITE_LOCKED`: a conflict inside this connection or with a shared-cache connection.
        public static let locked = Code(rawValue: SQLITE_LOCKED)
        /// `SQLITE_NOMEM`: SQLite could not allocate memory.
        public static let noMemory = Code(rawValue: SQLITE_NOMEM)
        /// `SQLITE_READONLY`: a write was attempted on a read-only database.
        public static let readOnly = Code(rawValue: SQLITE_READONLY)
        /// `SQLITE_INTERRUPT`: the operation was interrupted (`sqlite3_interrupt`).
        public static let interrupt = Code(rawValue: SQLITE_INTERRUPT)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioError = Code(rawValue: SQLITE_IOERR)
        /// `SQLITE_CORRUPT`: the database file is malformed.
        public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        /// `SQLITE_NOTFOUND`: an unknown opcode or file-control operation.
        public static let notFound = Code(rawValue: SQLITE_NOTFOUND)
        /// `SQLITE_FULL`: the disk is full, or the database reached `max_page_count`.
        public static let full = Code(rawValue: SQLITE_FULL)
        /// `SQLITE_CANTOPEN`: the database file could not be opened.
        public static let cannotOpen = Code(rawValue: SQLITE_CANTOPEN)
        /// `SQLITE_PROTOCOL`: a problem with the file-locking protocol.
        public static let `protocol` = Code(rawValue: SQLITE_PROTOCOL)
        /// `SQLITE_EMPTY`: not used by current SQLite versions.
        public static let empty = Code(rawValue: SQLITE_EMPTY)
        /// `SQLITE_SCHEMA`: the schema changed while a statement was prepared.
        public static let schema = Code(rawValue: SQLITE_SCHEMA)
        /// `SQLITE_TOOBIG`: a string or blob exceeds the size limit.
        public static let tooBig = Code(rawValue: SQLITE_TOOBIG)
        /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL, CHECK, PRIMARY KEY or FOREIGN KEY constraint failed.
        public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        /// `SQLITE_MISMATCH`: a value has the wrong type, for example a column read as the wrong Swift type.
        public static let mismatch = Code(rawValue: SQLITE_MISMATCH)
        /// `SQLITE_MISUSE`: the library was used incorrectly, for example the wrong number of arguments.
        public static let misuse = Code(rawValue: SQLITE_MISUSE)
        /// `SQLITE_NOLFS`: large files are not supported by the host.
        public static let noLargeFileSupport = Code(rawValue: SQLITE_NOLFS)
        /// `SQLITE_AUTH`: an authorizer callback denied the statement.
        public static let authorization = Code(rawValue: SQLITE_AUTH)
        /// `SQLITE_FORMAT`: not used by current SQLite versions.
        public static let format = Code(rawValue: SQLITE_FORMAT)
        /// `SQLITE_RANGE`: a parameter or column index is out of range, or a column name is unknown.
        public static let range = Code(rawValue: SQLITE_RANGE)
        /// `SQLITE_NOTADB`: the file is not a SQLite database.
        public static let notADatabase = Code(rawValue: SQLITE_NOTADB)
        /// `SQLITE_NOTICE`: a notice from the logging callback.
        public static let notice = Code(rawValue: SQLITE_NOTICE)
        /// `SQLITE_WARNING`: a warning from the logging callback.
        public static let warning = Code(rawValue: SQLITE_WARNING)

        /// SQLite's own English name for the code, such as "constraint failed".
        public var description: String {
            String(cString: sqlite3_errstr(rawValue))
        }
    }

    /// The primary result code.
    public let code: Code
    /// The extended result code (for example `SQLITE_CONSTRAINT_UNIQUE`, 2067); equal to the primary
    /// code when SQLite gave no extended one.
    public let extendedCode: Int32
    /// SQLite's message, or Bindery's when the error was found before SQLite was called.
    public let message: String
    /// The SQL text of the statement that failed, when there is one.
    public let sql: String?
    /// The argument values bound to the statement; shown only by `debugDescription`.
    let arguments: [SQLiteValue]?
    /// The position, in the sequence given, of the record whose row the statement failed on, when a
    /// call that writes many records failed (``Connection/insert(contentsOf:onConflict:)`` and the
    /// other `contentsOf:` calls); nil otherwise.
    public private(set) var recordIndex: Int?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: the primary result code.
    ///   - extendedCode: the extended result code; defaults to the primary code.
    ///   - message: the message to show.
    ///   - sql: the SQL text involved, if any.
    public init(code: Code, extendedCode: Int32? = nil, message: String, sql: String? = nil) {
        self.init(code: code, extendedCode: extendedCode, message: message, sql: sql, arguments: nil)
    }

    init(code: Code, extendedCode: Int32?, message: String, sql: String?, arguments: [SQLiteValue]?) {
        self.code = code
        self.extendedCode = extendedCode ?? code.rawValue
        self.message = message
        self.sql = sql
        self.arguments = arguments
    }

    /// Reads the error of the most recent failed call on `db`.
    init(database db: OpaquePointer?, resultCode: Int32, sql: String?, arguments: [SQLiteValue]? = nil) {
        let extended: Int32
        let message: String
        if let db {
            extended = sqlite3_extended_errcode(db)
            message = String(cString: sqlite3_errmsg(db))
        } else {
            extended = resultCode
            message = String(cString: sqlite3_errstr(resultCode))
        }
        // sqlite3_errmsg describes the most recent call; when it no longer matches the result code
        // (a later call succeeded in between), fall back to the code's own text.
        let primary = Code(rawValue: resultCode)
        let matches = Code(rawValue: extended) == primary
        self.init(
            code: primary,
            extendedCode: matches ? extended : resultCode,
            message: matches ? message : String(cString: sqlite3_errstr(resultCode)),
            sql: sql,
            arguments: arguments
        )
    }

    /// The same error with the argument values that were bound, for `debugDescription`.
    func with(arguments: [SQLiteValue]) -> SQLiteError {
        var error = SQLiteError(
            code: code, extendedCode: extendedCode, message: message, sql: sql, arguments: arguments)
        error.recordIndex = recordIndex
        return error
    }

    /// The same error naming the record it failed on: its position in the sequence given.
    func with(recordIndex: Int) -> SQLiteError {
        var error = self
        error.recordIndex = recordIndex
        return error
    }

    /// The same error with the SQL text set, when it had none.
    func with(sql: String) -> SQLiteError {
        var error = SQLiteError(
            code: code, extendedCode: extendedCode, message: message, sql: self.sql ?? sql, arguments: arguments)
        error.recordIndex = recordIndex
        return error
    }

    /// "SQLite error 19 (constraint failed, extended 2067): UNIQUE constraint failed: users.email — in `INSERT …`"
    public var description: String {
        var text = "SQLite error \(code.rawValue) (\(code)"
        if extendedCode != code.rawValue {
            text += ", extended \(extendedCode)"
        }
        text += "): \(message)"
        if let recordIndex {
            text += " (the record at index \(recordIndex) of the sequence given)"
        }
        if let sql {
            text += " — in `\(sql)`"
        }
        return text
    }

    /// The description followed by the argument values that were bound, if any.
    public var debugDescription: String {
        guard let arguments, !arguments.isEmpty else { return description }
        return description + " with arguments " + arguments.map(\.debugDescription).joined(separator: ", ")
    }
}

extension SQLiteError: LocalizedError {
    /// The `description`, for `localizedDescription`: the code, SQLite's message and the SQL,
    /// without argument values (those stay in `debugDescription`).
    public var errorDescription: String? { description }
}
