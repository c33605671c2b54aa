import Foundation

/// The one order all copies agree on: a log of the changesets copies pushed, each with a global
/// sequence number, kept in a SQLite database of its own.
///
/// A server app puts a hub behind its own HTTP stack: the body of a request goes to
/// ``handlePush(_:)`` or ``handlePull(_:)``, and what they return is the body of the response (see
/// <doc:SyncProtocol>). On one machine, ``FileSyncTransport`` opens the hub file directly, and
/// ``InProcessSyncTransport`` calls a hub of the same process.
///
/// ```swift
/// let hub = try await SyncHub(path: "/var/lib/app/hub.sqlite")
/// let transport = InProcessSyncTransport(hub: hub)
/// print(try await hub.head(), try await hub.entryCount)
/// try await hub.close()
/// ```
///
/// The hub never reads the changesets it stores, never changes or removes an entry, and never
/// reuses a sequence number. A push is one transaction: all of it is stored, or none of it.
///
/// Keep the hub file on a local disk: SQLite's locking is not reliable on a network folder (NFS,
/// SMB), and several processes that open one hub file through such a folder can corrupt it.
public actor SyncHub {
    /// The version of the hub's own tables, kept in `bindery_hub_meta`: a later Bindery that changes
    /// them migrates from it.
    static let schemaVersion: Int64 = 1
    /// The largest changeset a hub stores: 64 MiB.
    static let maximumChangesetSize = 64 << 20
    /// The most entries one pull returns, whatever its `limit`.
    static let maximumPullLimit = 10_000
    /// About how many changeset bytes one pull returns at most (it returns at least one entry).
    static let pullByteBudget = 32 << 20

    /// The database that holds the log. The hub has no other state: its methods are `nonisolated`,
    /// so that requests are decoded and encoded in parallel, and the database orders their work
    /// (one write at a time, reads beside it).
    nonisolated let database: Database

    /// Opens the hub database file at `path`, creating it and the hub's tables when they are
    /// missing.
    ///
    /// ```swift
    /// let hub = try await SyncHub(path: "/var/lib/app/hub.sqlite")
    /// ```
    ///
    /// Several hubs, in one process or in several, may open the same file: SQLite's locking (WAL
    /// mode, a busy timeout of 5 seconds) makes their pushes take turns. The file must be on a local
    /// disk, never on a network folder. A file written by a newer Bindery, whose hub tables this one
    /// does not know, throws ``SyncError/newerHub(path:version:supported:)``; one whose hub tables
    /// were damaged throws ``SyncError/corruptState(reason:)``.
    public init(path: String) async throws {
        try await self.init(database: Database(path: path))
    }

    /// Opens a hub whose log lives in memory, for tests and for copies of one process: it is gone
    /// when the hub is closed or released.
    ///
    /// ```swift
    /// let hub = try await SyncHub.inMemory()
    /// ```
    public static func inMemory() async throws -> SyncHub {
        try await SyncHub(database: Database.inMemory())
    }

    /// A hub on `database`, whose hub tables are created or checked first.
    private init(database: Database) async throws {
        do {
            try await database.write { conn in try SyncHub.prepareSchema(conn, path: database.path) }
        } catch {
            try? await database.close()
            throw error
        }
        self.database = database
    }

    // MARK: The protocol

    /// Stores the changesets of a push request (JSON, see <doc:SyncProtocol>) and returns the push
    /// response: the hub sequence of each changeset, and the hub's head.
    ///
    /// ```swift
    /// let response = try await hub.handlePush(requestBody)
    /// ```
    ///
    /// A push is one transaction. A changeset the copy pushed before (the same copy id and copy
    /// sequence, the same bytes) is not stored again: the response gives its hub sequence again, so a
    /// retried push is harmless. The same copy sequence with other bytes throws
    /// ``SyncError/conflictingRetry(copy:sequence:)``; a message that is not a push request of this
    /// protocol, an empty copy id, an empty changeset or one over 64 MiB, sequences that do not
    /// ascend, and a new changeset whose sequence is below one the copy pushed before each throw
    /// ``SyncError/malformedMessage(reason:)`` (``SyncError/unsupportedProtocolVersion(_:)`` for
    /// another protocol version). After any error nothing of the push is stored.
    public nonisolated func handlePush(_ request: Data) async throws -> Data {
        try await push(SyncPushRequest.decode(request)).encoded()
    }

    /// Answers a pull request (JSON, see <doc:SyncProtocol>): the entries after its `after`, in hub
    /// order, at most its `limit` (clamped to 1…10,000) and about 32 MiB of changesets (at least one
    /// entry), and the hub's head, all read from one snapshot of the log.
    ///
    /// ```swift
    /// let response = try await hub.handlePull(requestBody)
    /// ```
    ///
    /// A message that is not a pull request throws ``SyncError/malformedMessage(reason:)``, one of
    /// another protocol version ``SyncError/unsupportedProtocolVersion(_:)``.
    public nonisolated func handlePull(_ request: Data) async throws -> Data {
        try await pull(SyncPullRequest.decode(request)).encoded()
    }

    /// Stores a push: see ``handlePush(_:)``.
    nonisolated func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        try SyncHub.validate(request)
        return try await database.write { conn in try SyncHub.store(request, in: conn) }
    }

    /// Answers a pull: see ``handlePull(_:)``.
    nonisolated func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        try request.checkVersion()
        let limit = min(max(request.limit, 1), SyncHub.maximumPullLimit)
        return try await database.read { conn in
            try SyncHub.entries(after: request.after, limit: limit, in: conn)
        }
    }

    // MARK: The log

    /// The highest hub sequence stored, 0 while the hub is empty.
    ///
    /// ```swift
    /// let head = try await hub.head()
    /// ```
    public nonisolated func head() async throws -> Int64 {
        try await database.read { conn in try SyncHub.head(in: conn) }
    }

    /// The number of entries in the log.
    ///
    /// ```swift
    /// let count = try await hub.entryCount
    /// ```
    public nonisolated var entryCount: Int {
        get async throws {
            try await database.read { conn in
                try conn.rows("SELECT COUNT(*) FROM bindery_hub_log", arguments: []).first?[0] ?? 0
            }
        }
    }

    /// Waits for the work in flight, then closes the hub's database; later calls throw
    /// ``DatabaseError/closed``.
    ///
    /// ```swift
    /// try await hub.close()
    /// ```
    public nonisolated func close() async throws {
        try await database.close()
    }
}

// MARK: - The statements, on the database's connections

extension SyncHub {
    /// Creates the hub's tables in a new database, or checks their version in an existing one.
    private static func prepareSchema(_ conn: Connection, path: String) throws {
        try conn.execute(
            """
            CREATE TABLE IF NOT EXISTS bindery_hub_meta(
                key TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL) WITHOUT ROWID
            """, arguments: [])
        let hasLog = try !conn.rows(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'bindery_hub_log'", arguments: []
        ).isEmpty
        let version: SQLiteValue? =
            try conn.rows("SELECT value FROM bindery_hub_meta WHERE key = 'schema_version'", arguments: []).first?[0]
        switch version {
        case nil:
            guard !hasLog else {
                throw SyncError.corruptState(
                    reason: "the hub database \(path) has a bindery_hub_log table but no schema_version row in "
                        + "bindery_hub_meta")
            }
            try conn.execute(
                """
                CREATE TABLE bindery_hub_log(
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    copy TEXT NOT NULL,
                    copy_sequence INTEGER NOT NULL,
                    schema_version INTEGER NOT NULL,
                    changeset BLOB NOT NULL,
                    pushed_at TEXT NOT NULL,
                    UNIQUE(copy, copy_sequence))
                """, arguments: [])
            try conn.execute(
                "INSERT INTO bindery_hub_meta(key, value) VALUES ('schema_version', ?)",
                arguments: [.integer(schemaVersion)])
        case .integer(let found) where found == schemaVersion:
            guard hasLog else {
                throw SyncError.corruptState(
                    reason: "the hub database \(path) has no bindery_hub_log table: it was dropped")
            }
        case .integer(let found) where found > schemaVersion:
            throw SyncError.newerHub(path: path, version: found, supported: schemaVersion)
        case .some(let found):
            throw SyncError.corruptState(
                reason: "the hub database \(path) has the schema_version \(found) in bindery_hub_meta, which no "
                    + "Bindery writes")
        }
    }

    /// Refuses a push whose fields break the protocol, before anything is written.
    private static func validate(_ request: SyncPushRequest) throws(SyncError) {
        try request.checkVersion()
        guard !request.copy.isEmpty else {
            throw SyncError.malformedMessage(reason: "push request: the copy id is empty")
        }
        var previous: Int64?
        for outgoing in request.changesets {
            let name = "changeset \(outgoing.sequence) of copy \(request.copy)"
            guard outgoing.sequence >= 0 else {
                throw SyncError.malformedMessage(reason: "push request: \(name) has a negative sequence")
            }
            if let previous, outgoing.sequence <= previous {
                throw SyncError.malformedMessage(
                    reason: "push request: the sequences of copy \(request.copy) do not ascend: "
                        + "\(outgoing.sequence) follows \(previous)")
            }
            previous = outgoing.sequence
            guard outgoing.schemaVersion >= 0 else {
                throw SyncError.malformedMessage(
                    reason: "push request: \(name) has the negative schema version \(outgoing.schemaVersion)")
            }
            guard !outgoing.changeset.isEmpty else {
                throw SyncError.malformedMessage(reason: "push request: \(name) is empty")
            }
            guard outgoing.changeset.count <= maximumChangesetSize else {
                throw SyncError.malformedMessage(
                    reason: "push request: \(name) has \(outgoing.changeset.count) bytes, more than the "
                        + "\(maximumChangesetSize) (64 MiB) a hub stores")
            }
        }
    }

    /// Stores the changesets of a valid push, in the write transaction of `conn`.
    private static func store(_ request: SyncPushRequest, in conn: Connection) throws -> SyncPushResponse {
        let copy = SQLiteValue.text(request.copy)
        let rows = try conn.rows("SELECT MAX(copy_sequence) FROM bindery_hub_log WHERE copy = ?", arguments: [copy])
        var highest: Int64? = nil
        if let row = rows.first {
            highest = try row[0] as Int64?
        }
        var sequences: [Int64] = []
        sequences.reserveCapacity(request.changesets.count)
        for outgoing in request.changesets {
            let stored = try conn.rows(
                "SELECT sequence, schema_version, changeset FROM bindery_hub_log WHERE copy = ? AND copy_sequence = ?",
                arguments: [copy, .integer(outgoing.sequence)])
            if let row = stored.first {
                let schemaVersion: Int = try row[1]
                let changeset: Data = try row[2]
                guard schemaVersion == outgoing.schemaVersion, changeset == outgoing.changeset else {
                    throw SyncError.conflictingRetry(copy: request.copy, sequence: outgoing.sequence)
                }
                sequences.append(try row[0])
                continue
            }
            if let highest, outgoing.sequence < highest {
                throw SyncError.malformedMessage(
                    reason: "push request: changeset \(outgoing.sequence) of copy \(request.copy) is new, but the "
                        + "hub has its changeset \(highest) already: it would be ordered after changes it came "
                        + "before")
            }
            try conn.execute(
                """
                INSERT INTO bindery_hub_log(copy, copy_sequence, schema_version, changeset, pushed_at)
                VALUES (?, ?, ?, ?, strftime('%Y-%m-%d %H:%M:%f', 'now'))
                """,
                arguments: [
                    copy, .integer(outgoing.sequence), .integer(Int64(outgoing.schemaVersion)),
                    .blob(outgoing.changeset),
                ])
            sequences.append(conn.lastInsertRowID)
            highest = outgoing.sequence
        }
        return SyncPushResponse(sequences: sequences, head: try head(in: conn))
    }

    /// The entries after `after`, at most `limit` and about ``pullByteBudget`` bytes of them (at least
    /// one), and the head, in the read transaction of `conn`.
    private static func entries(after: Int64, limit: Int, in conn: Connection) throws -> SyncPullResponse {
        let head = try head(in: conn)
        let cursor = try conn.rowCursor(
            """
            SELECT sequence, copy, copy_sequence, schema_version, changeset FROM bindery_hub_log
            WHERE sequence > ? ORDER BY sequence LIMIT ?
            """,
            arguments: [.integer(after), .integer(Int64(limit))])
        var entries: [SyncLogEntry] = []
        var bytes = 0
        while let row = try cursor.next() {
            let changeset: Data = try row[4]
            if !entries.isEmpty && bytes + changeset.count > pullByteBudget {
                break
            }
            bytes += changeset.count
            entries.append(
                SyncLogEntry(
                    sequence: try row[0], copy: try row[1], copySequence: try row[2], schemaVersion: try row[3],
                    changeset: changeset))
        }
        return SyncPullResponse(changesets: entries, head: head)
    }

    /// The highest hub sequence stored, 0 while the log is empty.
    private static func head(in conn: Connection) throws -> Int64 {
        try conn.rows("SELECT COALESCE(MAX(sequence), 0) FROM bindery_hub_log", arguments: []).first?[0] ?? 0
    }
}
