import Foundation

extension Database {
    /// Why a read replica (``Database/replica(of:extensionPath:pollInterval:options:)``) could not open,
    /// or refused what was asked of it.
    ///
    /// ```swift
    /// do {
    ///     try await replica.insert(Student(id: nil, name: "Ana", year: 2024))
    /// } catch Database.ReplicaError.writeRefused(let url) {
    ///     print("\(url) is read on this machine: write on the primary")
    /// }
    /// ```
    public enum ReplicaError: Error, Sendable, Hashable, CustomStringConvertible {
        /// A write on a read replica: ``Database/write(_:)``, ``Database/writeWithoutTransaction(_:)``
        /// and everything built on them (inserts, migrations…) throw it before running anything, and
        /// so does a statement that would write inside ``Database/read(_:)`` or as the query of a
        /// ``DatabaseCursor``. Nothing is written.
        case writeRefused(replica: String)
        /// No `litestream-vfs` extension was found in the places listed (the `litestream_vfs` package
        /// of the Python environments on the `PATH`, `VIRTUAL_ENV`, `~/.local`, `/usr/local`, `/usr`):
        /// install it with `pip install litestream-vfs`, or give its path.
        case extensionNotFound(searched: [String])
        /// SQLite could not load the extension at `path`, with its message.
        case extensionFailed(path: String, message: String)
        /// The `file://` replica holds no backup yet (no LTX file): nothing was replicated to it. (The
        /// VFS would wait until one appears; a replica elsewhere, such as `s3://`, is waited for.)
        case noBackup(String)
        /// The poll interval is not a positive number of seconds.
        case invalidPollInterval(Double)

        /// A sentence describing the error.
        public var description: String {
            switch self {
            case .writeRefused(let replica):
                return "the database is a read replica of \(replica), which Litestream keeps up to date from the "
                    + "primary: it cannot be written (write on the primary database; for several writers, see Sync)"
            case .extensionNotFound(let searched):
                return "Litestream's VFS extension (litestream-vfs) was not found: install it with "
                    + "`pip install litestream-vfs`, or pass its path (searched: \(searched.joined(separator: ", ")))"
            case .extensionFailed(let path, let message):
                return "SQLite could not load Litestream's VFS extension at \(path): \(message)"
            case .noBackup(let replica):
                return "the replica \(replica) holds no backup yet: start `litestream replicate` on the primary, "
                    + "and open the replica once it has synced"
            case .invalidPollInterval(let seconds):
                return "the poll interval of a read replica must be a positive number of seconds, not \(seconds)"
            }
        }
    }
}

extension Database.ReplicaError: LocalizedError {
    /// The `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
