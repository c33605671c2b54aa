import CSQLite
import Foundation

/// Litestream's read-replica VFS: a SQLite extension (a shared library from the `litestream-vfs`
/// Python package) that registers a VFS named `litestream`, whose files are read from a Litestream
/// replica and follow it as new transactions arrive.
///
/// **Loading** happens once per process (the VFS is process-wide), on a private in-memory connection
/// on which extension loading is turned on (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION`, the C API only:
/// SQL's `load_extension()` stays off) for the load alone and off again. No other connection's
/// settings change.
///
/// **The automatic extension it installs is removed.** Its entry point also registers an automatic
/// extension (`sqlite3_auto_extension`) meant to add `litestream_*` SQL functions to each new
/// connection on the VFS; in 0.5.17 that extension fails for every connection on another VFS, so that
/// afterwards no other database of the process could open ("automatic extension loading failed").
/// `sqlite3_reset_auto_extension()` runs right after the load (it removes every automatic extension of
/// the process; Bindery registers none), and ``openLock`` keeps every connection Bindery opens from
/// opening between the load and the reset. The replica's position is read with the VFS's file-control
/// pragmas instead (``Connection/filePragma(_:)``), which need no SQL function.
enum LitestreamVFS {
    /// The name the extension registers its VFS under.
    static let name = "litestream"
    /// The extension's entry point.
    static let entryPoint = "sqlite3_litestreamvfs_init"

    /// Held while the extension loads, and by every `sqlite3_open_v2` of a connection (see the type's
    /// comment) except those on the VFS itself: they come after the load, and one may wait for a
    /// backup for ever, which must not hold up the other opens of the process. Opening is rare and
    /// short; the lock is not taken anywhere else.
    static let openLock = NSLock()

    /// Whether a VFS named `litestream` is registered in the process.
    static var isRegistered: Bool {
        sqlite3_vfs_find(name) != nil
    }

    /// Loads the extension at `path` into the process, unless a `litestream` VFS is registered already
    /// (the first load of a process serves every replica it opens). Throws ``LoadError`` with SQLite's
    /// message when the file cannot be loaded or registers no such VFS.
    static func load(from path: String) throws {
        try openLock.withLock {
            guard !isRegistered else { return }
            var boot: OpaquePointer?
            let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            guard sqlite3_open_v2(":memory:", &boot, flags, nil) == SQLITE_OK, let boot else {
                sqlite3_close_v2(boot)
                throw LoadError(message: "SQLite could not open the in-memory connection that loads the extension")
            }
            defer { sqlite3_close_v2(boot) }
            var setting: Int32 = 0
            _ = bindery_db_config_flag(boot, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, &setting)
            let (code, message) = SQLiteMemory.loadExtension(boot, path: path, entryPoint: entryPoint)
            _ = bindery_db_config_flag(boot, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &setting)
            // Even a failed entry point may have installed its automatic extension.
            sqlite3_reset_auto_extension()
            guard code == SQLITE_OK else {
                throw LoadError(message: message ?? String(cString: sqlite3_errstr(code)))
            }
            guard isRegistered else {
                throw LoadError(message: "the library loaded but registered no VFS named \(name)")
            }
        }
    }

    /// Rebuilds `connection`'s view of the replica from scratch, from the replica's restore plan as of
    /// its latest transaction (`PRAGMA litestream_time = 'latest'`), as opening the connection built it.
    /// Call it only when no read is in progress on the connection (``Connection/isIdle``).
    static func rebuildView(of connection: Connection) throws {
        _ = try connection.filePragma("litestream_time", value: "latest")
    }

    /// Why ``load(from:)`` failed: SQLite's message.
    struct LoadError: Error {
        let message: String
    }

    /// The URI that opens the replica at `replicaURL` through the VFS, checking it for new transactions
    /// every `pollInterval` seconds. `name` names the connection's file for the VFS's log and
    /// temporary files; nothing is read from or written to it.
    static func uri(replicaURL: String, pollInterval: Double, name: String) -> String {
        let milliseconds = max(1, Int((pollInterval * 1000).rounded()))
        return SQLiteURI.file(
            name, ["vfs": LitestreamVFS.name, "replica_url": replicaURL, "poll_interval": "\(milliseconds)ms"])
    }

    /// A URI naming the file at `path` on the default VFS (`unix`…), for a statement of a connection
    /// on Litestream's VFS that writes a file (`VACUUM INTO`), which SQLite would open on the
    /// connection's VFS.
    static func localFileURI(_ path: String) -> String {
        let vfs = sqlite3_vfs_find(nil).map { String(cString: $0.pointee.zName) } ?? "unix"
        return SQLiteURI.file(path, ["vfs": vfs])
    }
}
