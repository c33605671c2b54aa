import Foundation

/// Copying a database while it is in use (`sqlite3_backup`, `VACUUM INTO`).
extension Connection {
    /// Copies this connection's database into the file at `path`, `pagesPerStep` pages at a time,
    /// replacing whatever database was there.
    ///
    /// ```swift
    /// try conn.backup(to: "backup.sqlite") { copied, total in
    ///     print("\(copied) of \(total) pages")
    /// }
    /// ```
    ///
    /// The copy is made inside one read transaction (a savepoint of the transaction already open, if
    /// any), so it is the database exactly as it was when the backup started, even if other
    /// connections write meanwhile: in WAL mode their writes go on, in the other journal modes they
    /// wait for the read lock, up to their busy timeout. `progress` is called after each step with the
    /// pages copied so far and the database's page count. Values of `pagesPerStep` below 1 copy
    /// everything in one step.
    ///
    /// Throws ``SQLiteError`` when the destination cannot be opened or written
    /// (``SQLiteError/Code/busy`` while another connection uses it), or ``SQLiteError/Code/busy``
    /// when this connection has a write transaction open. When the copy fails, a destination file that
    /// did not exist before is removed. `path` must not be this database's own file.
    public func backup(to path: String, pagesPerStep: Int = 100, progress: ((Int, Int) -> Void)? = nil) throws {
        try backup(to: path, pagesPerStep: pagesPerStep, progress: progress, beforeStep: {})
    }

    /// ``backup(to:pagesPerStep:progress:)``, calling `beforeStep` before each step; it throws to stop
    /// the copy (for cancellation).
    func backup(
        to path: String, pagesPerStep: Int, progress: ((Int, Int) -> Void)?, beforeStep: () throws -> Void
    ) throws {
        try checkOpen()
        try BackupDestination.write(to: path) { destination in
            try transaction(.deferred) { source in
                try source.beginReadSnapshot()
                let backup = try Backup(from: source, to: destination)
                do {
                    try backup.run(pagesPerStep: pagesPerStep, progress: progress, beforeStep: beforeStep)
                } catch {
                    try? backup.finish()
                    throw error
                }
                try backup.finish()
            }
        }
    }

    /// Writes a compacted copy of this connection's database into a new file at `path`
    /// (`VACUUM INTO`), as of one consistent snapshot. The file must not exist, or be empty.
    ///
    /// ```swift
    /// try conn.vacuum(into: "compact.sqlite")
    /// ```
    ///
    /// SQLite cannot run it inside a transaction: it throws ``SQLiteError`` (code
    /// ``SQLiteError/Code/error``) then, and when the file exists and is not empty.
    public func vacuum(into path: String) throws {
        try execute("VACUUM INTO ?", arguments: [.text(path)])
    }

    /// Starts the read transaction of a `BEGIN DEFERRED` transaction now, by reading the schema, so
    /// that every later statement (and backup step) sees the database as it is at this moment.
    func beginReadSnapshot() throws {
        try execute(script: "SELECT count(*) FROM sqlite_schema")
    }
}

/// Opens the destination file of a backup, and removes it again when the backup fails and the file
/// did not exist before.
enum BackupDestination {
    /// Opens a connection to `path` that `body` fills, closes it, and cleans up after a failure.
    static func write<T>(to path: String, _ body: (Connection) throws -> T) throws -> T {
        let existed = FileManager.default.fileExists(atPath: path)
        do {
            let destination = try Connection(path: path, options: Connection.Options(foreignKeys: false))
            defer { destination.close() }
            return try body(destination)
        } catch {
            if !existed {
                removeFiles(at: path)
            }
            throw error
        }
    }

    /// Removes the database file at `path` and the journal files SQLite keeps beside it.
    static func removeFiles(at path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
