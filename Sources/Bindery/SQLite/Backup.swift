import CSQLite

/// An online copy of one connection's `main` database into another's, a few pages at a time
/// (`sqlite3_backup_init`, `sqlite3_backup_step`, `sqlite3_backup_finish`).
///
/// Both connections must stay open until ``finish()`` and be used on one thread at a time, the
/// thread stepping the backup included. Where the copy's content comes from:
///
/// - When the source connection holds a read transaction across the steps, every step reads the
///   same snapshot, and the copy is the database as of that transaction's start, whatever other
///   connections write meanwhile (WAL mode lets them).
/// - Otherwise each step reads the latest committed state: writes made through the source connection
///   between steps are carried into the pages already copied, but a write through any other
///   connection makes the next step start the copy over.
final class Backup {
    /// The `sqlite3_backup` handle; valid until ``finish()``.
    private let handle: OpaquePointer
    /// The connection read from: a step refuses to run once it is closed (a progress closure may close
    /// it), and SQLite keeps its memory until ``finish()``.
    private let source: Connection
    /// The connection written to, for error messages.
    private let destination: Connection
    /// Whether `sqlite3_backup_finish` has run.
    private(set) var isFinished = false

    /// Starts a backup of `source`'s main database into `destination`'s, which it will replace.
    ///
    /// Throws when `destination` has a transaction open or is the same connection as `source`.
    init(from source: Connection, to destination: Connection) throws {
        try source.checkOpen()
        try destination.checkOpen()
        guard let handle = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            let code = sqlite3_errcode(destination.handle)
            throw SQLiteError(
                database: destination.handle, resultCode: code == SQLITE_OK ? SQLITE_ERROR : code, sql: nil)
        }
        self.handle = handle
        self.source = source
        self.destination = destination
    }

    deinit {
        if !isFinished {
            sqlite3_backup_finish(handle)
        }
    }

    /// Copies up to `pages` more pages (all that remain when `pages` is negative); returns `true` when
    /// the copy is complete.
    ///
    /// Throws the error SQLite reports, such as ``SQLiteError/Code/busy`` or
    /// ``SQLiteError/Code/locked`` when the source is locked, ``SQLiteError/Code/corrupt`` for a
    /// damaged source, or ``SQLiteError/Code/readOnly`` when the page sizes cannot be reconciled.
    func step(pages: Int32) throws -> Bool {
        guard !isFinished else {
            throw SQLiteError(code: .misuse, message: "the backup is already finished")
        }
        try source.checkOpen()
        try destination.checkOpen()
        let code = sqlite3_backup_step(handle, pages)
        switch code {
        case SQLITE_DONE:
            return true
        case SQLITE_OK:
            return false
        default:
            throw SQLiteError(database: destination.handle, resultCode: code, sql: nil)
        }
    }

    /// How many pages the source database had at the last step.
    var pageCount: Int {
        Int(sqlite3_backup_pagecount(handle))
    }

    /// How many pages were still to copy after the last step.
    var remaining: Int {
        Int(sqlite3_backup_remaining(handle))
    }

    /// The `pages` argument of ``step(pages:)`` for a caller's page count: below 1 means every page in
    /// one step (SQLite copies nothing for 0, and a loop over it would never end).
    static func stepSize(_ pagesPerStep: Int) -> Int32 {
        pagesPerStep < 1 ? -1 : Int32(clamping: pagesPerStep)
    }

    /// Steps until the copy is complete, calling `progress` with (pages copied, page count) after
    /// each step and `beforeStep` before each one (it throws to stop the copy, for cancellation).
    func run(pagesPerStep: Int, progress: ((Int, Int) -> Void)?, beforeStep: () throws -> Void = {}) throws {
        let pages = Backup.stepSize(pagesPerStep)
        var done = false
        while !done {
            try beforeStep()
            done = try step(pages: pages)
            progress?(pageCount - remaining, pageCount)
        }
    }

    /// Ends the backup and releases its resources; a copy that was not complete is rolled back on the
    /// destination. Later calls do nothing. Throws the error of a failed step, if any.
    func finish() throws {
        guard !isFinished else { return }
        isFinished = true
        let code = sqlite3_backup_finish(handle)
        guard code == SQLITE_OK else {
            throw SQLiteError(database: destination.handle, resultCode: code, sql: nil)
        }
    }
}
