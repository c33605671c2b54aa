import Foundation

/// One copy of a synced database, and the calls that bring it and its hub together: ``push()``
/// sends the changesets written here, ``pull()`` applies everyone's in the hub's order and rebases
/// this copy's unpushed changes on top, ``sync()`` does both. See <doc:Sync>.
///
/// ```swift
/// var options = Database.Options()
/// options.sync = SyncConfiguration(tables: [SyncTable(Todo.self, policy: .fieldWise)])
/// let db = try Database(path: "todos.sqlite", options: options)
/// try await migrator.migrate(db)
///
/// let copy = try await SyncCopy(database: db, transport: FileSyncTransport(hubPath: "hub.sqlite"))
/// try await db.insert(Todo(id: UUID(), title: "Buy milk", done: false))   // recorded for sync
/// try await copy.sync()                                                    // when online
/// ```
///
/// Writes go through the ``Database`` as usual, online or not; each committed write transaction
/// that changes a synced table waits in the database's outbox until it is pushed and seen back.
/// Pushes and pulls of one copy run one at a time. A copy is one database file used by one process.
public actor SyncCopy {
    /// The synced database.
    public nonisolated let database: Database
    /// This copy's id, made when its database was first opened with ``Database/Options/sync``.
    public nonisolated let copyID: String
    private let transport: any SyncTransport
    /// The push or pull running now; the next waits for it.
    private var running: Task<Void, Never>?
    /// How many changesets one push sends, and one pull request asks for.
    private let batch = 256
    /// How many pull requests' changesets one transaction of a pull applies at most.
    private let batchesPerTransaction = 16
    /// How many bytes of changesets one transaction of a pull applies at most (at least one
    /// changeset).
    private static let bytesPerTransaction = 64 << 20

    /// A copy of `database` (opened with ``Database/Options/sync``) that reaches its hub through
    /// `transport`. Checks every synced table: each must exist and have a key copies cannot give to
    /// two rows (``SyncError/unsafeKey(table:reason:)``).
    public init(database: Database, transport: any SyncTransport) async throws {
        self.database = database
        self.transport = transport
        copyID = try await database.write { connection in
            guard let capture = connection.transactionParticipant as? SyncCapture else {
                throw SyncError.notSynced
            }
            for table in capture.configuration.tables {
                _ = try capture.schema(of: table.name, on: connection)
            }
            return try SyncState.read(on: connection).copy
        }
    }

    // MARK: Syncing

    /// Pushes, pulls, and pushes what the pull rebased: afterwards the hub has every change of this
    /// copy, and this copy every change the hub had.
    public func sync() async throws {
        try await push()
        try await pull()
        try await push()
    }

    /// Sends the changesets not yet pushed to the hub, oldest first; returns how many. A retried
    /// push (after a lost answer) is never applied twice: the hub knows each changeset by this
    /// copy's id and its sequence.
    @discardableResult
    public func push() async throws -> Int {
        try await exclusively { try await self.pushNow() }
    }

    private func pushNow() async throws -> Int {
        do {
            var pushed = 0
            while true {
                let outgoing = try await database.read { connection in
                    try connection.rows(
                        """
                        SELECT sequence, schema_version, changeset FROM bindery_sync_outbox WHERE pushed = 0
                        ORDER BY sequence LIMIT ?
                        """, arguments: [.integer(Int64(batch))]
                    ).map { row -> SyncOutgoingChangeset in
                        guard case .integer(let sequence) = row.values[0], case .integer(let version) = row.values[1],
                            case .blob(let bytes) = row.values[2]
                        else {
                            throw SyncError.corruptState(
                                reason: "a row of bindery_sync_outbox does not hold a changeset")
                        }
                        return SyncOutgoingChangeset(sequence: sequence, schemaVersion: Int(version), changeset: bytes)
                    }
                }
                guard let last = outgoing.last else { return pushed }
                let request = SyncPushRequest(copy: copyID, changesets: outgoing)
                do {
                    let response = try await send(request)
                    guard response.sequences.count == outgoing.count else {
                        throw SyncError.malformedMessage(
                            reason:
                                "push response: \(response.sequences.count) sequences for \(outgoing.count) changesets")
                    }
                    try await database.write { try SyncState.markPushed(through: last.sequence, on: $0) }
                    pushed += outgoing.count
                } catch SyncError.conflictingRetry(let copy, let sequence) where copy == copyID {
                    // The hub has this changeset as first pushed; the one here was rebased since (a
                    // pull that stopped early). The hub's is the one every copy applies.
                    try await database.write { try SyncState.markPushed(through: sequence, on: $0) }
                }
            }
        }
    }

    /// Applies the hub's changesets after the last one applied, in hub order, and rebases this
    /// copy's unpushed changes on top; returns how many hub changesets were applied. Each batch is
    /// one transaction: whole changesets or none. A changeset that cannot be applied (made by a newer
    /// schema, or refused by a resolver) stops the pull there: the ones before it stay applied, it and
    /// the later ones stay pending, and the pull throws the typed error (also in ``status()``).
    @discardableResult
    public func pull() async throws -> Int {
        try await exclusively { try await self.pullNow() }
    }

    private func pullNow() async throws -> Int {
        do {
            var applied = 0
            while true {
                // Pages of the log up to the head, or up to a transaction's worth: each transaction
                // takes this copy's pending changes off and puts them back once.
                var after = try await database.read { try SyncState.read(on: $0).lastApplied }
                var entries: [SyncLogEntry] = []
                var bytes = 0
                var head: Int64 = 0
                repeat {
                    let response = try await send(SyncPullRequest(after: after, limit: batch))
                    head = response.head
                    guard let last = response.changesets.last else { break }
                    entries += response.changesets
                    bytes += response.changesets.reduce(0) { $0 + $1.changeset.count }
                    after = last.sequence
                } while after < head && entries.count < batchesPerTransaction * batch
                    && bytes < SyncCopy.bytesPerTransaction
                guard !entries.isEmpty else { return applied }
                let batch = entries
                let outcome: SyncPull.Outcome
                do {
                    outcome = try await database.write { connection in
                        guard let capture = connection.transactionParticipant as? SyncCapture else {
                            throw SyncError.notSynced
                        }
                        return try SyncPull(capture: capture, connection: connection).apply(batch)
                    }
                } catch {
                    // Nothing of the batch was applied; say why in the status.
                    let message = (error as? SyncError)?.description ?? "\(error)"
                    try? await database.write { try SyncState.setLastError(message, on: $0) }
                    throw error
                }
                applied += outcome.applied
                if let stop = outcome.stop {
                    throw stop
                }
                if outcome.lastApplied >= head {
                    return applied
                }
            }
        }
    }

    /// Sends a push through the transport: as the message itself to a hub of this process, as
    /// JSON to any other.
    private func send(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        if let local = transport as? any SyncHubInProcess {
            return try await local.localHub().push(request)
        }
        return try SyncPushResponse.decode(try await transport.push(request.encoded()))
    }

    /// Sends a pull through the transport (see ``send(_:)-(SyncPushRequest)``).
    private func send(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        if let local = transport as? any SyncHubInProcess {
            return try await local.localHub().pull(request)
        }
        return try SyncPullResponse.decode(try await transport.pull(request.encoded()))
    }

    // MARK: State

    /// Where this copy stands: pending changesets, the last hub sequence applied, the last error.
    public func status() async throws -> SyncStatus {
        let copyID = self.copyID
        return try await database.read { connection in
            let state = try SyncState.read(on: connection)
            let counts = try connection.rows(
                "SELECT count(*), count(*) FILTER (WHERE pushed = 0) FROM bindery_sync_outbox", arguments: [])
            guard case .integer(let pending) = counts.first?.values[0],
                case .integer(let unpushed) = counts.first?.values[1]
            else {
                throw SyncError.corruptState(reason: "bindery_sync_outbox cannot be counted")
            }
            return SyncStatus(
                copyID: copyID, pendingChangesets: Int(pending), unpushedChangesets: Int(unpushed),
                lastAppliedSequence: state.lastApplied, lastError: state.lastError)
        }
    }

    /// Every conflict decision the merges on this copy made, oldest first.
    public func conflicts() async throws -> [SyncConflictRecord] {
        try await database.read { connection in
            try connection.rows(
                "SELECT hub_sequence, table_name, key, kind, decision, dropped FROM bindery_sync_conflicts ORDER BY id",
                arguments: []
            ).map { row in
                guard case .text(let table) = row.values[1], case .text(let key) = row.values[2],
                    case .text(let kind) = row.values[3], case .text(let decision) = row.values[4]
                else {
                    throw SyncError.corruptState(reason: "a row of bindery_sync_conflicts is damaged")
                }
                var sequence: Int64?
                if case .integer(let value) = row.values[0] {
                    sequence = value
                }
                var dropped: String?
                if case .text(let value) = row.values[5] {
                    dropped = value
                }
                return SyncConflictRecord(
                    hubSequence: sequence, table: table, key: key, kind: kind, decision: decision, dropped: dropped)
            }
        }
    }

    /// Runs `body` after the push or pull in progress, so that one copy's pushes and pulls never
    /// overlap (an actor alone would interleave them at each `await`).
    private func exclusively<T: Sendable>(_ body: @Sendable @escaping () async throws -> T) async throws -> T {
        let previous = running
        let task = Task<T, any Error> {
            await previous?.value
            return try await body()
        }
        running = Task { _ = try? await task.value }
        return try await task.value
    }
}
