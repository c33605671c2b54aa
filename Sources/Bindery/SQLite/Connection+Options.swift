/// The options a connection is opened with.
extension Connection {
    /// How a connection opens its database.
    public struct Options: Sendable, Hashable {
        /// Open the file read-only; writes throw ``SQLiteError/Code/readOnly``. Default `false`.
        public var readOnly: Bool
        /// How long a statement waits for another connection's lock before failing with
        /// ``SQLiteError/Code/busy``, in seconds. Default 5.
        public var busyTimeout: Double
        /// Whether foreign key constraints are enforced (`PRAGMA foreign_keys`). Default `true`.
        public var foreignKeys: Bool
        /// How many prepared statements the connection keeps. Default 128.
        public var statementCacheCapacity: Int
        /// Whether SQLite's legacy rule that reads a double-quoted name matching no column as a string
        /// literal is on (`SQLITE_DBCONFIG_DQS_DML` and `_DDL`). Default `false`: a misspelt
        /// `"\(identifier: name)"` throws "no such column" instead of matching its own spelling. Turn
        /// it on only for a database whose schema (a view, a trigger) was written relying on the rule;
        /// see <doc:Reliability#Double-quoted-names-are-identifiers>.
        public var acceptsDoubleQuotedStringLiterals: Bool
        /// How far the connection trusts its file's schema: ``SchemaTrust/untrusted`` by default,
        /// SQLite's advice for files that may come from elsewhere (an import, a shared file, a
        /// download); ``SchemaTrust/trustedSchema`` for a file your app created whose triggers or views
        /// need it (a search table's triggers do); ``SchemaTrust/full`` for a file you wrote whose
        /// schema relies on more. See <doc:Reliability#Files-from-elsewhere>.
        public var schemaTrust: SchemaTrust
        /// The collations defined in Swift that the connection knows from the start (see
        /// ``Collation``). Default none.
        public var collations: [Collation]
        /// Whether the database file and the SQL run on it are fully trusted: the same as
        /// ``schemaTrust`` being ``SchemaTrust/full``. Default `false`: a view, a trigger or another
        /// part of the schema may call only functions marked innocuous (no application function with
        /// side effects; `SQLITE_DBCONFIG_TRUSTED_SCHEMA` off), no SQL can corrupt the file through
        /// `PRAGMA writable_schema` or `sqlite_dbpage` (`SQLITE_DBCONFIG_DEFENSIVE` on), and
        /// extensions cannot be loaded (`SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` off). `true` lifts all
        /// three; ``SchemaTrust/trustedSchema`` lifts only the first.
        public var trustsSchema: Bool {
            get { schemaTrust == .full }
            set { schemaTrust = newValue ? .full : .untrusted }
        }

        /// Creates options; every parameter has the default described on its property. `trustsSchema:
        /// true` sets ``schemaTrust`` to ``SchemaTrust/full`` whatever `schemaTrust` says.
        public init(
            readOnly: Bool = false, busyTimeout: Double = 5, foreignKeys: Bool = true,
            statementCacheCapacity: Int = 128,
            acceptsDoubleQuotedStringLiterals: Bool = false, trustsSchema: Bool = false,
            schemaTrust: SchemaTrust = .untrusted, collations: [Collation] = []
        ) {
            self.collations = collations
            self.readOnly = readOnly
            self.busyTimeout = busyTimeout
            self.foreignKeys = foreignKeys
            self.statementCacheCapacity = statementCacheCapacity
            self.acceptsDoubleQuotedStringLiterals = acceptsDoubleQuotedStringLiterals
            self.schemaTrust = trustsSchema ? .full : schemaTrust
        }
    }
}
