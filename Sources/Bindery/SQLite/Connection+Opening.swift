import CSQLite
import Foundation

/// Opening a database file, and saying what to do when a folder's permissions stand in the way.
extension Connection {
    /// `SQLITE_READONLY_DIRECTORY`: SQLite could not create a file (a `-wal`, `-shm` or journal) beside
    /// the database because the folder is not writable.
    static let readOnlyDirectory = SQLITE_READONLY | (6 << 8)

    /// Opens `path` with `flags`, sets the connection-wide settings of `options` and reads the schema
    /// once, so that a file that is not a database fails here rather than at the first query.
    ///
    /// A WAL database in a folder the process cannot write to cannot be read normally: SQLite must
    /// create its `-wal` and `-shm` files there. Read-only, with no `-wal` file left (so that every
    /// committed transaction is in the database file itself), it is opened as immutable instead;
    /// otherwise the error says that the folder must be writable.
    ///
    /// A file the process cannot write to, opened read-write, would open read-only without a word and
    /// fail at the first write: it throws ``SQLiteError/Code/readOnly`` here instead, saying so.
    ///
    /// `onLoadedVFS`: see ``Connection/init(path:flags:options:onLoadedVFS:)``.
    static func openHandle(path: String, flags: Int32, options: Options, onLoadedVFS: Bool = false) throws
        -> OpaquePointer
    {
        let db = try openWithExplanations(path: path, flags: flags, options: options, onLoadedVFS: onLoadedVFS)
        if flags & SQLITE_OPEN_READWRITE != 0, sqlite3_db_readonly(db, "main") == 1 {
            sqlite3_close_v2(db)
            throw SQLiteError(
                code: .readOnly, extendedCode: SQLITE_READONLY,
                message: "attempt to write a readonly database (the database file \(path) cannot be written by this "
                    + "process: make it writable, or open the database with readOnly: true to read it)")
        }
        return db
    }

    private static func openWithExplanations(path: String, flags: Int32, options: Options, onLoadedVFS: Bool) throws
        -> OpaquePointer
    {
        do {
            return try openAndReadSchema(
                name: path, flags: flags, options: options, path: path, onLoadedVFS: onLoadedVFS)
        } catch let error as SQLiteError {
            let files = FileManager.default
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            if error.extendedCode == readOnlyDirectory, options.readOnly, !files.fileExists(atPath: path + "-wal") {
                return try openAndReadSchema(
                    name: immutableURI(path), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                    options: options, path: path)
            }
            if error.extendedCode == readOnlyDirectory {
                throw error.explained(
                    "the database at \(path) is in WAL mode, and SQLite must create \(path)-wal and \(path)-shm "
                        + "beside it to read it: the folder \(folder) must be writable"
                        + (options.readOnly
                            ? ""
                            : " (or open the database with readOnly: true, which reads it as it is when no -wal file "
                                + "is left there)"))
            }
            if error.code == .cannotOpen, options.readOnly, files.fileExists(atPath: path + "-wal"),
                !files.fileExists(atPath: path + "-shm")
            {
                throw error.explained(
                    "SQLite cannot read the WAL database at \(path) without its -shm file, which it cannot create: "
                        + "the folder \(folder) must be writable (or hold \(path)-shm), so that the transactions "
                        + "still in \(path)-wal can be read")
            }
            if error.code == .cannotOpen, flags & SQLITE_OPEN_CREATE != 0, !files.fileExists(atPath: path) {
                throw error.explained(
                    "no database exists at \(path) and none can be created there: the folder \(folder) must exist "
                        + "and be writable")
            }
            throw error.explained("opening \(path)")
        }
    }

    /// Opens `name` (the path, or a URI for it) and reads its schema; closes it again on failure.
    private static func openAndReadSchema(
        name: String, flags: Int32, options: Options, path: String, onLoadedVFS: Bool = false
    ) throws -> OpaquePointer {
        var db: OpaquePointer?
        // Under the lock, so that no connection opens while Litestream's VFS extension loads (see
        // `LitestreamVFS`); but not an open on that VFS, loaded already, which may wait for a backup
        // for as long as it likes (and would hold up every other open of the process).
        let code =
            onLoadedVFS
            ? sqlite3_open_v2(name, &db, flags, nil)
            : LitestreamVFS.openLock.withLock { sqlite3_open_v2(name, &db, flags, nil) }
        guard code == SQLITE_OK, let db else {
            let error = SQLiteError(database: db, resultCode: code, sql: nil)
            sqlite3_close_v2(db)
            throw error
        }
        do {
            sqlite3_extended_result_codes(db, 1)
            sqlite3_busy_timeout(db, milliseconds(options.busyTimeout))
            try configureDoubleQuotedStrings(db, accept: options.acceptsDoubleQuotedStringLiterals)
            try configureSchemaTrust(db, trust: options.schemaTrust)
            for collation in options.collations {
                try collation.register(on: db)
            }
            // Reading the schema reads the header: a file that is not a database fails now.
            let script = "SELECT count(*) FROM sqlite_schema"
            let code = sqlite3_exec(db, script, nil, nil, nil)
            guard code == SQLITE_OK else {
                throw SQLiteError(database: db, resultCode: code, sql: script)
            }
            return db
        } catch {
            sqlite3_close_v2(db)
            throw error
        }
    }

    /// A URI that opens the file at `path` as immutable: read as it is, without locks, `-wal` or `-shm`.
    static func immutableURI(_ path: String) -> String {
        SQLiteURI.file(path, ["immutable": "1"])
    }
}

extension SQLiteError {
    /// The same error with `explanation` after SQLite's message.
    func explained(_ explanation: String) -> SQLiteError {
        SQLiteError(
            code: code, extendedCode: extendedCode, message: "\(message) (\(explanation))", sql: sql,
            arguments: arguments)
    }
}
