import Foundation

/// Copying the database while it is in use.
extension Database {
    /// Copies the database into the file at `path` while reads and writes go on, `pagesPerStep`
    /// pages at a time (`sqlite3_backup`), replacing whatever database was there.
    ///
    /// ```swift
    /// try await db.backup(to: "nightly.sqlite") { copied, total in
    ///     print("\(copied) of \(total) pages")
    /// }
    /// ```
    ///
    /// What the copy holds, and what waits for it:
    ///
    /// - **WAL mode with reader connections** (a file database, by default): the backup runs on a
    ///   reader connection inside one read transaction, so every step reads the same snapshot: the
    ///   copy is the database as it was when the backup got its reader and began, with every
    ///   transaction committed before the call and none that commits while it copies (when every
    ///   reader is busy, it waits for one, as a read does). Writes go on meanwhile on the writer
    ///   connection and never hold the copy up; they cannot restart it either (SQLite restarts a
    ///   backup when its source changes under it, which a pinned snapshot never does). The actor is
    ///   not blocked at all; the backup holds one reader until it is done.
    /// - **A file database without readers** (`readerCount` 0, another journal mode): each step is a
    ///   job of its own on the writer connection, and writes run between the steps. Because they go
    ///   through the very connection the backup reads, SQLite carries each one into the pages already
    ///   copied instead of starting over, so the copy is the database as it was after the last step:
    ///   every transaction committed before the call, and those committed while it ran. (Writes that
    ///   add pages faster than the steps copy them hold the copy up until they pause; a write by
    ///   another process makes SQLite start the copy over.)
    /// - **An in-memory database**: SQLite starts a backup of an in-memory database over at every
    ///   commit, so a copy stepped between writes might never finish. The steps run in one job on the
    ///   writer connection instead: writes wait for the copy, which runs at memory speed, and the
    ///   copy is the database as it was when the backup began.
    ///
    /// `progress` gets the pages copied so far and the database's page count after each step, on the
    /// database's queue: keep it short. Values of `pagesPerStep` below 1 copy everything in one step.
    /// Cancelling the task stops the copy between two steps and throws `CancellationError`; a copy
    /// that fails or is cancelled leaves the destination as it was, and removes it when it did not
    /// exist before. `path` must not be the database's own file.
    public nonisolated func backup(
        to path: String, pagesPerStep: Int = 100, progress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws {
        if hasReaders {
            try await backupInOneJob(onReader: true, to: path, pagesPerStep: pagesPerStep, progress: progress)
        } else if self.path == ":memory:" {
            try await backupInOneJob(onReader: false, to: path, pagesPerStep: pagesPerStep, progress: progress)
        } else {
            try await backupOnWriter(to: path, pagesPerStep: pagesPerStep, progress: progress)
        }
    }

    /// Writes a compacted copy of the database into a new file at `path` (`VACUUM INTO`), as of one
    /// consistent snapshot. The file must not exist, or be empty.
    ///
    /// ```swift
    /// try await db.vacuum(into: "compact.sqlite")
    /// ```
    ///
    /// SQLite runs `VACUUM INTO` outside any transaction, so it runs on the writer connection, in one
    /// step: writes wait until it is done. For a copy that lets writes go on, use
    /// ``backup(to:pagesPerStep:progress:)``.
    ///
    /// On a read replica, the copy holds the latest transaction the replica holds when it begins.
    public nonisolated func vacuum(into path: String) async throws {
        guard replicaURL != nil else {
            try await useWriter { conn in try conn.vacuum(into: path) }
            return
        }
        try await useWriter { conn in
            // The writer connection follows the replica only when it serves the reads (no readers): its
            // view is brought to the latest transaction first. And the copy is a file of the default VFS,
            // not of the connection's, Litestream's, which writes no file.
            try LitestreamVFS.rebuildView(of: conn)
            try conn.vacuum(into: LitestreamVFS.localFileURI(path))
        }
    }

    // MARK: Backup strategies

    /// The whole backup in one job, from one snapshot: a read on a reader connection, or a job on the
    /// writer connection (for an in-memory database, which SQLite would restart at every commit).
    private nonisolated func backupInOneJob(
        onReader: Bool, to path: String, pagesPerStep: Int, progress: (@Sendable (Int, Int) -> Void)?
    ) async throws {
        let cancellation = BackupCancellation()
        let job: @Sendable (Connection) throws -> Void = { conn in
            try conn.backup(to: path, pagesPerStep: pagesPerStep, progress: progress, beforeStep: cancellation.check)
        }
        try await withTaskCancellationHandler {
            if onReader {
                try await read(job)
            } else {
                try await useWriter(job)
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// One writer job per step, so that writes run between the steps.
    private nonisolated func backupOnWriter(
        to path: String, pagesPerStep: Int, progress: (@Sendable (Int, Int) -> Void)?
    ) async throws {
        let state = WriterBackup(path: path)
        do {
            try await useWriter { conn in try state.start(from: conn) }
            var done = false
            while !done {
                done = try await useWriter { _ in
                    try state.step(pagesPerStep: pagesPerStep, progress: progress)
                }
            }
            try await finish(state)
        } catch {
            try? await finish(state)
            throw error
        }
    }

    /// Ends a backup made on the writer connection, on the actor's executor (where the writer is
    /// used), whether or not the database was closed meanwhile.
    private func finish(_ state: WriterBackup) throws {
        try state.finish()
    }
}

/// A backup stepped on the writer connection of a ``Database``, one job per step.
private final class WriterBackup: @unchecked Sendable {
    // @unchecked Sendable is safe: after `init`, the properties are read and written only by `start`,
    // `step` and `finish`, which run on the database's executor (inside writer jobs, or an
    // actor-isolated method), one job at a time, in order; the executor's serial queue orders their
    // memory accesses.
    private let path: String
    /// Whether a file was at `path` before the backup: only a file the backup created is removed.
    private let existed: Bool
    private var destination: Connection?
    private var backup: Backup?
    private var completed = false

    init(path: String) {
        self.path = path
        self.existed = FileManager.default.fileExists(atPath: path)
    }

    /// Opens the destination and starts the backup from `source`, the writer connection.
    func start(from source: Connection) throws {
        let destination = try Connection(path: path, options: Connection.Options(foreignKeys: false))
        self.destination = destination
        backup = try Backup(from: source, to: destination)
    }

    /// Copies the next pages; returns true when the copy is complete.
    func step(pagesPerStep: Int, progress: (@Sendable (Int, Int) -> Void)?) throws -> Bool {
        guard let backup else {
            throw SQLiteError(code: .misuse, message: "the backup was not started")
        }
        completed = try backup.step(pages: Backup.stepSize(pagesPerStep))
        progress?(backup.pageCount - backup.remaining, backup.pageCount)
        return completed
    }

    /// Ends the backup (SQLite rolls an incomplete copy back) and closes the destination; when the
    /// copy did not complete, removes the destination file if the backup created it.
    func finish() throws {
        let opened = destination != nil
        defer {
            destination?.close()
            destination = nil
            backup = nil
            if opened, !completed, !existed {
                BackupDestination.removeFiles(at: path)
            }
        }
        try backup?.finish()
    }
}

/// Lets the cancellation of the task that awaits a backup stop the copy between two steps.
private final class BackupCancellation: Sendable {
    private let lock = NSLock()
    // nonisolated(unsafe) is safe: `cancelled` is only read and written while `lock` is held.
    private nonisolated(unsafe) var cancelled = false

    /// Marks the backup cancelled.
    func cancel() {
        lock.withLock { cancelled = true }
    }

    /// Throws `CancellationError` once the backup was cancelled.
    func check() throws {
        if lock.withLock({ cancelled }) {
            throw CancellationError()
        }
    }
}
