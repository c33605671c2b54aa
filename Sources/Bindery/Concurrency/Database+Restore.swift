import Foundation

/// Restoring a database from the replica a replicator (Litestream) streamed it to.
extension Database {
    /// Restores the database at `path` from the Litestream replica `source`, as of the latest
    /// transaction replicated or as of the point in time `time`, before the app opens it.
    ///
    /// ```swift
    /// let path = "/var/lib/app/app.sqlite"
    /// if !FileManager.default.fileExists(atPath: path) {
    ///     do {
    ///         try await Database.restore(from: .url("file:///mnt/backups/app"), to: path)
    ///     } catch Database.RestoreError.noBackup {
    ///         // The first start: nothing was replicated yet, the app starts empty.
    ///     }
    /// }
    /// let db = try Database(path: path, options: .init(checkpointing: .leftToReplicator))
    /// try await migrator.migrate(db)
    /// ```
    ///
    /// It runs `litestream restore` into a temporary folder beside `path`, opens the copy and runs
    /// `PRAGMA integrity_check` on it, flushes it to disk, then renames it to `path`, so that `path`
    /// holds either what it held before or the whole, checked copy, never a part of it. Migrate and open the
    /// database afterwards as usual.
    ///
    /// - Parameters:
    ///   - source: the replica: a replica URL, or a Litestream configuration file and the database in it.
    ///   - path: where the restored database goes.
    ///   - time: restore the database as it was at this moment (Litestream's `-timestamp`); `nil`, the
    ///     default, restores the latest transaction the replica holds.
    ///   - replacing: whether a database at `path` is replaced. Default `false`: an existing file throws
    ///     ``RestoreError/databaseExists(_:)`` and is left alone, and so does a `-wal` or `-journal`
    ///     file left beside `path` without its database (SQLite would apply it to the restored copy).
    ///     When `true`, nothing may have the database open: its `-wal`, `-shm` and `-journal` files are
    ///     removed with it (they belong to the old file), and a replicator that streamed the old file
    ///     must be restarted.
    ///   - litestream: the `litestream` executable: a path, or a name looked up on the `PATH`.
    ///     Default `"litestream"`.
    ///   - collations: the ``Collation``s the database's indexes use (those of its
    ///     ``Options-swift.struct/collations``): the integrity check reads the indexes by them.
    ///
    /// Errors are ``RestoreError``s: ``RestoreError/litestreamNotFound(_:)``,
    /// ``RestoreError/databaseExists(_:)``, ``RestoreError/noBackup(_:)`` (nothing replicated yet),
    /// ``RestoreError/litestreamFailed(status:output:)`` with what Litestream printed (a `time` older
    /// than the replica's first backup is one: "timestamp does not exist"), and
    /// ``RestoreError/integrityCheckFailed(_:)``; a file system error
    /// (a folder it cannot write to) is thrown as is. On any error the file at `path` is as it was,
    /// and the temporary folder is removed. Cancelling the task kills Litestream and throws
    /// `CancellationError`.
    public static func restore(
        from source: ReplicaSource, to path: String, at time: Date? = nil, replacing: Bool = false,
        litestream: String = "litestream", collations: [Collation] = []
    ) async throws {
        let files = FileManager.default
        guard let executable = executablePath(litestream) else {
            throw RestoreError.litestreamNotFound(litestream)
        }
        // A -wal file or a hot -journal left without its database still belongs to it: the first open
        // would apply the log, or roll the journal back, into the copy.
        if !replacing, ([""] + sideFileSuffixes).contains(where: { files.fileExists(atPath: path + $0) }) {
            throw RestoreError.databaseExists(path)
        }
        let destination = URL(fileURLWithPath: path)
        let folder = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).restore-\(UUID().uuidString)", isDirectory: true)
        try files.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? files.removeItem(at: folder) }
        let copy = folder.appendingPathComponent(destination.lastPathComponent).path

        var arguments = ["restore", "-if-replica-exists", "-o", copy]
        if let time {
            arguments += ["-timestamp", timestamp(time)]
        }
        arguments += source.restoreArguments
        let (status, output) = try await run(executable, arguments, logIn: folder)
        guard status == 0 else {
            throw RestoreError.litestreamFailed(status: status, output: output)
        }
        guard files.fileExists(atPath: copy) else {
            throw RestoreError.noBackup(source)
        }
        try checkRestoredCopy(at: copy, collations: collations)
        try install(copy, at: path, replacing: replacing, scratch: folder)
    }

    /// The files SQLite reads beside a database's path, as part of that database: its write-ahead log
    /// and its rollback journal. (A `-shm` file is only an index of the `-wal` file, rebuilt from it.)
    static let sideFileSuffixes = ["-wal", "-journal"]

    // MARK: Running Litestream

    /// `name` when it is a path to an executable file, or the first executable of that name on the
    /// `PATH`; nil when there is none.
    static func executablePath(_ name: String) -> String? {
        let files = FileManager.default
        if name.contains("/") {
            return files.isExecutableFile(atPath: name) ? name : nil
        }
        for folder in searchFolders {
            let candidate = "\(folder)/\(name)"
            var isFolder: ObjCBool = false
            if files.fileExists(atPath: candidate, isDirectory: &isFolder), !isFolder.boolValue,
                files.isExecutableFile(atPath: candidate)
            {
                return candidate
            }
        }
        return nil
    }

    /// The folders of the `PATH`, in order (`/usr/local/bin`, `/usr/bin` and `/bin` when it is not set).
    static var searchFolders: [String] {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return searchPath.split(separator: ":").filter { !$0.isEmpty }.map(String.init)
    }

    /// `time` in the RFC 3339 form Litestream's `-timestamp` reads, in UTC, to the millisecond.
    static func timestamp(_ time: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: time)
    }

    /// Runs `executable` with `arguments`, its output (standard output and error together) going to a
    /// file in `folder`; returns its exit status and that output. Cancelling the task terminates it.
    private static func run(_ executable: String, _ arguments: [String], logIn folder: URL) async throws -> (
        Int32, String
    ) {
        let logURL = folder.appendingPathComponent("litestream.log")
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: logURL.path])
        }
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        let status: Int32
        do {
            status = try await ChildProcess.run(executable, arguments, output: log)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw RestoreError.litestreamNotFound(executable)
        }
        let output = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return (status, output)
    }

    // MARK: Checking and installing the copy

    /// Throws ``RestoreError/integrityCheckFailed(_:)`` unless the database at `path` passes
    /// `PRAGMA integrity_check`; then flushes it to disk. Closing the connection folds any `-wal`
    /// file into the database file.
    static func checkRestoredCopy(at path: String, collations: [Collation]) throws {
        let problems: [String]
        do {
            let connection = try Connection(
                path: path, options: Connection.Options(foreignKeys: false, collations: collations))
            defer { connection.close() }
            problems = try connection.integrityCheck()
        } catch let error as SQLiteError {
            throw RestoreError.integrityCheckFailed(["\(error)"])
        }
        guard problems.isEmpty else {
            throw RestoreError.integrityCheckFailed(problems)
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.synchronize()
    }

    /// Renames the checked copy to `path`. Without `replacing`, a file that appeared at `path` in the
    /// meantime is kept (`link` fails rather than replace it). With `replacing`, the old file's `-wal`
    /// and `-shm` files are moved into `scratch` first, since SQLite would apply an old `-wal` to the
    /// new file, and put back when the rename fails.
    private static func install(_ copy: String, at path: String, replacing: Bool, scratch: URL) throws {
        guard replacing else {
            guard link(copy, path) == 0 else {
                let code = errno
                if code == EEXIST {
                    throw RestoreError.databaseExists(path)
                }
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            }
            return
        }
        var movedAside: [(String, String)] = []
        for suffix in ["-wal", "-shm", "-journal"] {
            let aside = scratch.appendingPathComponent("old\(suffix)").path
            if rename(path + suffix, aside) == 0 {
                movedAside.append((path + suffix, aside))
            } else if errno != ENOENT {
                let code = errno
                for (original, moved) in movedAside { _ = rename(moved, original) }
                throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            }
        }
        guard rename(copy, path) == 0 else {
            let code = errno
            for (original, moved) in movedAside { _ = rename(moved, original) }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }
}
