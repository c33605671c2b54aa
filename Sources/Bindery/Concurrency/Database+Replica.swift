import CSQLite
import Foundation

/// Read replicas: a `Database` that reads a Litestream replica through Litestream's VFS.
extension Database {
    /// Opens a read replica: a database whose connections read the Litestream replica at
    /// `replicaURL` (`file:///mnt/backups/app`, `s3://bucket/app`…) through Litestream's VFS, and follow
    /// the transactions the primary commits, seconds behind it, with no restore and no local copy.
    ///
    /// ```swift
    /// let replica = try await Database.replica(of: "s3://backups/app")
    /// let recent = try await replica.fetchAll(Order.self, where: "date > \(since)", orderBy: "date DESC")
    /// for try await count in replica.observe({ try $0.count(Order.self) }) {
    ///     print("orders:", count)    // again each time the primary's new orders arrive
    /// }
    /// ```
    ///
    /// Every read works on it as on a local file: ``read(_:)``, records, requests, associations,
    /// search, cursors, with ``Options/readerCount`` readers reading at the same time, and
    /// ``observe(_:)->DatabaseObservation<T>``, which gives a new value when new transactions arrive
    /// from the replica (within `pollInterval` plus a quarter of it, at most 0.25 s, after they reach
    /// the replica). Writes throw
    /// ``ReplicaError/writeRefused(replica:)`` and write nothing: ``write(_:)``,
    /// ``writeWithoutTransaction(_:)``, everything built on them (inserts, migrations), and a statement
    /// that would write inside ``read(_:)`` or as a cursor's query. ``backup(to:pagesPerStep:progress:)``
    /// and ``vacuum(into:)`` write a local copy of the replica. ``replicaStatus()`` tells its position
    /// and freshness.
    ///
    /// - Parameters:
    ///   - replicaURL: the replica, as `litestream replicate` writes it (the `url` of the replica in its
    ///     configuration). Credentials for an object store come from the environment, as for
    ///     Litestream (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`…).
    ///   - extensionPath: the VFS extension, `litestream-vfs.so` (`.dylib` on macOS), from the PyPI
    ///     package `litestream-vfs`. Default nil: found in the `litestream_vfs` package of a Python
    ///     environment: `VIRTUAL_ENV`'s, that of each folder on the `PATH` (a virtual environment's
    ///     `bin`, `/usr/local/bin`…), `~/.local`'s, `/usr/local`'s or `/usr`'s.
    ///   - pollInterval: how often each connection checks the replica for new transactions, in
    ///     seconds. Default 1, Litestream's.
    ///   - options: the readers, coding and trust of the connections, as for a local file;
    ///     `readOnly`, `journalMode`, `templatePath` and `checkpointing` do not apply.
    ///
    /// The open waits until the replica holds a first backup: a `file://` replica that holds none
    /// throws ``ReplicaError/noBackup(_:)`` at once; elsewhere, cancel the task to stop waiting. The
    /// extension is loaded once per process, on a private connection with extension loading turned on
    /// for the load alone; every other connection keeps Bindery's defaults (no extension loading).
    /// Errors: ``ReplicaError/extensionNotFound(searched:)``,
    /// ``ReplicaError/extensionFailed(path:message:)``, ``ReplicaError/noBackup(_:)``,
    /// ``ReplicaError/invalidPollInterval(_:)``, and ``SQLiteError`` from SQLite (a URL the VFS
    /// cannot read).
    public static func replica(
        of replicaURL: String, extensionPath: String? = nil, pollInterval: Double = 1, options: Options = Options()
    ) async throws -> Database {
        guard pollInterval > 0, pollInterval.isFinite else {
            throw ReplicaError.invalidPollInterval(pollInterval)
        }
        try checkHasBackup(replicaURL)
        let library = try extensionPath ?? litestreamVFSPath()
        guard FileManager.default.fileExists(atPath: library) else {
            throw ReplicaError.extensionNotFound(searched: [library])
        }
        do {
            try LitestreamVFS.load(from: library)
        } catch let error as LitestreamVFS.LoadError {
            throw ReplicaError.extensionFailed(path: library, message: error.message)
        }
        let name = "bindery-replica-\(UUID().uuidString).sqlite"
        // The connections that serve reads never poll (a day); the lookout polls (see `ReplicaWatcher`).
        let serving = LitestreamVFS.uri(replicaURL: replicaURL, pollInterval: 86_400, name: name)
        let lookout = LitestreamVFS.uri(replicaURL: replicaURL, pollInterval: pollInterval, name: name)
        let opened = try await AbandonableWork.run(
            { try ReplicaConnections(serving: serving, lookout: lookout, replicaURL: replicaURL, options: options) },
            discard: { $0.close() })
        let watcher = ReplicaWatcher(
            lookout: opened.lookout, interval: min(0.25, pollInterval / 4), pollInterval: pollInterval)
        let database = Database(
            path: replicaURL, options: options, writer: opened.writer, readers: opened.readers,
            replicaURL: replicaURL, replicaWatcher: watcher)
        watcher.start(database: database)
        return database
    }

    /// Throws ``ReplicaError/noBackup(_:)`` for a `file://` replica with no LTX file in it (the VFS
    /// would wait for one).
    private static func checkHasBackup(_ replicaURL: String) throws {
        guard let folder = litestreamFolder(of: replicaURL) else { return }
        let hasBackup = FileManager.default.enumerator(atPath: folder)?.contains { entry in
            (entry as? String)?.hasSuffix(".ltx") == true
        }
        guard hasBackup == true else {
            throw ReplicaError.noBackup(replicaURL)
        }
    }

    /// The folder of LTX files that Litestream reads for a `file://` replica URL (any case of the
    /// scheme), as Litestream 0.5.17 reads it: the host, if any, is the path's first folder
    /// (`file://localhost/x` is `/localhost/x`), and the path is taken percent-encoded (`file:///a b`
    /// and `file:///a%20b` are both `/a%20b`). Nil for another scheme.
    static func litestreamFolder(of replicaURL: String) -> String? {
        // A URL with a space or another character that must be percent-encoded is read as Litestream
        // reads it: with that character encoded.
        var allowed = CharacterSet.urlFragmentAllowed
        allowed.insert(charactersIn: "#%")
        guard
            let components = URLComponents(string: replicaURL)
                ?? replicaURL.addingPercentEncoding(withAllowedCharacters: allowed).flatMap(URLComponents.init(string:)),
            components.scheme?.lowercased() == "file"
        else {
            return nil
        }
        let host = components.percentEncodedHost ?? ""
        var path = (host.isEmpty ? "" : "/" + host) + components.percentEncodedPath
        while path.count > 1, path.hasSuffix("/") {
            path.removeLast()
        }
        return path + "/ltx"
    }

    /// The extension in the `litestream_vfs` package of the first Python environment that has it
    /// (see ``replica(of:extensionPath:pollInterval:options:)``); throws
    /// ``ReplicaError/extensionNotFound(searched:)`` with the package folders looked for.
    static func litestreamVFSPath() throws -> String {
        let files = FileManager.default
        let environment = ProcessInfo.processInfo.environment
        #if os(macOS)
            let library = "litestream-vfs.dylib"
        #else
            let library = "litestream-vfs.so"
        #endif
        var roots: [String] = []
        if let venv = environment["VIRTUAL_ENV"], !venv.isEmpty {
            roots.append(venv)
        }
        for folder in searchFolders {
            roots.append(URL(fileURLWithPath: folder).deletingLastPathComponent().path)
        }
        if let home = environment["HOME"], !home.isEmpty {
            roots.append(home + "/.local")
        }
        roots += ["/usr/local", "/usr"]
        var searched: [String] = []
        for root in roots {
            let lib = root + "/lib"
            let pythons = ((try? files.contentsOfDirectory(atPath: lib)) ?? []).filter { $0.hasPrefix("python3") }
            for python in pythons.sorted() {
                for packages in ["site-packages", "dist-packages"] {
                    let folder = "\(lib)/\(python)/\(packages)/litestream_vfs"
                    guard !searched.contains(folder) else { continue }
                    searched.append(folder)
                    if files.fileExists(atPath: "\(folder)/\(library)") {
                        return "\(folder)/\(library)"
                    }
                }
            }
            if pythons.isEmpty, !searched.contains(lib) {
                searched.append(lib)
            }
        }
        throw ReplicaError.extensionNotFound(searched: searched)
    }
}

/// The connections of a read replica, opened together, every one read-only through the VFS: the
/// writer connection (which serves reads when there are no readers, and Bindery's own jobs), the
/// readers, and the lookout that polls the replica (see `ReplicaWatcher`).
private final class ReplicaConnections: @unchecked Sendable {
    // @unchecked Sendable is safe: the connections are made on one thread and handed over once, to the
    // database that uses them from then on (or to `close()` when the open was abandoned).
    let writer: Connection
    let readers: ReaderPool?
    let lookout: ReaderConnection

    /// Opens the connections (`serving` and `lookout` are their URIs); the first waits until the
    /// replica holds a backup.
    init(serving: String, lookout: String, replicaURL: String, options: Database.Options) throws {
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        let connectionOptions = options.connectionOptions(readOnly: true)
        func open(_ uri: String) throws -> Connection {
            do {
                let connection = try Connection(path: uri, flags: flags, options: connectionOptions, onLoadedVFS: true)
                connection.codingOptions = options.coding
                return connection
            } catch let error as SQLiteError {
                throw error.explained("opening the read replica \(replicaURL) through Litestream's VFS")
            }
        }
        var opened: [Connection] = []
        do {
            for _ in 0..<(2 + max(0, options.readerCount)) {
                let connection = try open(opened.isEmpty ? lookout : serving)
                opened.append(connection)
                if opened.count > 2 {
                    try connection.execute(script: "PRAGMA query_only = ON")
                }
            }
        } catch {
            opened.forEach { $0.close() }
            throw error
        }
        let label = "Bindery.Database(\(replicaURL))"
        self.lookout = ReaderConnection(connection: opened[0], label: label + ".lookout")
        self.writer = opened[1]
        let readers = opened.dropFirst(2).enumerated().map { index, connection in
            ReaderConnection(connection: connection, label: "\(label).reader\(index)")
        }
        self.readers = readers.isEmpty ? nil : ReaderPool(readers: readers)
    }

    /// Closes every connection; for an open abandoned by its task.
    func close() {
        writer.close()
        let readers = self.readers
        let lookout = self.lookout
        Task {
            await readers?.close()
            await lookout.close()
        }
    }
}
