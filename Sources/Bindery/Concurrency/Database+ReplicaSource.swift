extension Database {
    /// Where ``Database/restore(from:to:at:replacing:litestream:collations:)`` finds the replica that Litestream
    /// streamed a database to.
    ///
    /// ```swift
    /// let backups: Database.ReplicaSource = .url("file:///mnt/backups/app")
    /// let fromConfiguration: Database.ReplicaSource = .configuration(
    ///     path: "/etc/litestream.yml", database: "/var/lib/app/app.sqlite")
    /// ```
    public enum ReplicaSource: Sendable, Hashable, CustomStringConvertible {
        /// A replica URL as Litestream reads it: `file:///mnt/backups/app` for a folder,
        /// `s3://bucket/app` for an S3-compatible store (its credentials come from Litestream's
        /// environment variables, `LITESTREAM_ACCESS_KEY_ID` and `LITESTREAM_SECRET_ACCESS_KEY`).
        case url(String)
        /// The replica of the database at `database` in the Litestream configuration file at `path`:
        /// the file that `litestream replicate -config path` runs with, so that restoring and
        /// replicating read the same settings.
        case configuration(path: String, database: String)

        /// The arguments of `litestream restore` that name this source.
        var restoreArguments: [String] {
            switch self {
            case .url(let url):
                return [url]
            case .configuration(let path, let database):
                return ["-config", path, database]
            }
        }

        /// The replica URL, or the configuration file and the database in it.
        public var description: String {
            switch self {
            case .url(let url):
                return url
            case .configuration(let path, let database):
                return "the replica of \(database) in \(path)"
            }
        }
    }
}
