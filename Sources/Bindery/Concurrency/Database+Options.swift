extension Database {
    /// How a ``Database`` opens its file and its connections.
    ///
    /// ```swift
    /// var options = Database.Options()
    /// options.busyTimeout = 1
    /// options.coding.keyStrategy = .snakeCase
    /// let db = try Database(path: "app.sqlite", options: options)
    /// ```
    public struct Options: Sendable {
        /// How many reader connections serve ``Database/read(_:)`` at the same time in WAL mode.
        /// Default 4; with 0, reads go through the writer connection.
        public var readerCount: Int
        /// How long a statement waits for a lock held by another connection or process before failing
        /// with ``SQLiteError/Code/busy``, in seconds. Default 5.
        public var busyTimeout: Double
        /// Whether foreign key constraints are enforced (`PRAGMA foreign_keys`). Default `true`.
        public var foreignKeys: Bool
        /// Open the file read-only: every write throws ``SQLiteError/Code/readOnly``, and the journal
        /// mode is left as the file has it. Default `false`. A WAL database in a folder the process
        /// cannot write to opens read-only when no `-wal` file is left beside it (see
        /// <doc:Reliability#A-database-in-a-read-only-folder>).
        public var readOnly: Bool
        /// The journal mode set when the file opens. Default ``JournalMode/wal``, the only mode in
        /// which reads run on reader connections beside the writer. In-memory databases ignore it.
        public var journalMode: JournalMode
        /// How records and interpolated ``SQL`` values are converted, on every connection.
        public var coding: CodingOptions
        /// A database file copied to the database's path when no file exists there yet, to start
        /// from a prepared schema and data. Default `nil`. Only the file itself is copied: a
        /// template in WAL mode must be checkpointed (closed by every writer), or its latest
        /// transactions, still in its `-wal` file, are not part of the copy. A template missing at
        /// this path throws ``SQLiteError`` with code ``SQLiteError/Code/cannotOpen`` naming it. With
        /// ``sync``, a database copied from a template that was synced is a copy of its own (a new copy
        /// id), which pushes the template's unpushed changes as its own.
        public var templatePath: String?
        /// Whether SQLite's legacy rule that reads a double-quoted name matching no column as a string
        /// literal is on, on every connection. Default `false`: a misspelt `"\(identifier: name)"`
        /// throws "no such column". See ``Connection/Options/acceptsDoubleQuotedStringLiterals``.
        public var acceptsDoubleQuotedStringLiterals: Bool
        /// How far every connection trusts the file's schema: ``SchemaTrust/untrusted`` by default;
        /// ``SchemaTrust/trustedSchema`` for a database with search tables kept in step by triggers.
        /// See ``Connection/Options/schemaTrust``.
        public var schemaTrust: SchemaTrust
        /// Whether the database file and the SQL run on it are fully trusted, on every connection: the
        /// same as ``schemaTrust`` being ``SchemaTrust/full``. Default `false`: views and triggers may
        /// call only innocuous functions, no SQL can corrupt the schema through
        /// `PRAGMA writable_schema`, and extensions cannot be loaded. See
        /// ``Connection/Options/trustsSchema``.
        public var trustsSchema: Bool {
            get { schemaTrust == .full }
            set { schemaTrust = newValue ? .full : .untrusted }
        }
        /// Who checkpoints the WAL: ``Checkpointing/automatic`` (SQLite and Bindery, the default), or
        /// ``Checkpointing/leftToReplicator``, for a database that Litestream replicates (see
        /// <doc:BeyondOneMachine>).
        public var checkpointing: Checkpointing
        /// The collations defined in Swift that every connection (the writer and each reader) knows
        /// (see ``Collation``). Default none.
        public var collations: [Collation]
        /// What a layer above sets up on the writer connection when the database opens, before any
        /// write (sync's change capture: ``sync``). Default nil.
        var writerExtension: (any DatabaseWriterExtension)?

        /// Creates options; every parameter has the default described on its property. `trustsSchema:
        /// true` sets ``schemaTrust`` to ``SchemaTrust/full`` whatever `schemaTrust` says.
        public init(
            readerCount: Int = 4, busyTimeout: Double = 5, foreignKeys: Bool = true, readOnly: Bool = false,
            journalMode: JournalMode = .wal, coding: CodingOptions = CodingOptions(), templatePath: String? = nil,
            acceptsDoubleQuotedStringLiterals: Bool = false, trustsSchema: Bool = false,
            checkpointing: Checkpointing = .automatic, schemaTrust: SchemaTrust = .untrusted,
            collations: [Collation] = []
        ) {
            self.collations = collations
            self.checkpointing = checkpointing
            self.acceptsDoubleQuotedStringLiterals = acceptsDoubleQuotedStringLiterals
            self.schemaTrust = trustsSchema ? .full : schemaTrust
            self.readerCount = readerCount
            self.busyTimeout = busyTimeout
            self.foreignKeys = foreignKeys
            self.readOnly = readOnly
            self.journalMode = journalMode
            self.coding = coding
            self.templatePath = templatePath
        }

        /// The options of the connections the database opens.
        func connectionOptions(readOnly: Bool) -> Connection.Options {
            Connection.Options(
                readOnly: readOnly, busyTimeout: busyTimeout, foreignKeys: foreignKeys,
                acceptsDoubleQuotedStringLiterals: acceptsDoubleQuotedStringLiterals, schemaTrust: schemaTrust,
                collations: collations)
        }
    }

    /// SQLite's journal modes (`PRAGMA journal_mode`).
    public enum JournalMode: String, Sendable, Hashable, CaseIterable {
        /// Write-ahead log: readers and the writer work at the same time. The default.
        case wal = "WAL"
        /// A rollback journal deleted at the end of each transaction; SQLite's own default.
        case delete = "DELETE"
        /// A rollback journal truncated to zero bytes at the end of each transaction.
        case truncate = "TRUNCATE"
        /// A rollback journal whose header is zeroed at the end of each transaction.
        case persist = "PERSIST"
        /// A rollback journal kept in memory: a crash mid-transaction may corrupt the file.
        case memory = "MEMORY"
        /// No journal: no rollback, and a crash mid-transaction may corrupt the file.
        case off = "OFF"
    }
}
