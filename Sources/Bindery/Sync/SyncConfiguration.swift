/// Which tables of a database are synced, set on ``Database/Options/sync`` before the database opens,
/// so that change capture is in place before the first write.
///
/// ```swift
/// var options = Database.Options()
/// options.sync = SyncConfiguration(tables: [SyncTable(Todo.self, policy: .fieldWise)])
/// let db = try Database(path: "todos.sqlite", options: options)
/// try await migrator.migrate(db)
/// let copy = try await SyncCopy(database: db, transport: InProcessSyncTransport(hub: hub))
/// ```
///
/// Opening the database then creates Bindery's sync tables (`bindery_sync_state`,
/// `bindery_sync_outbox`, `bindery_sync_conflicts`) and records every committed write transaction
/// that changes a synced table as one changeset in the outbox, in the same transaction. It throws
/// ``SyncError/sessionExtensionUnavailable(missingOption:)`` when SQLite lacks the session extension.
/// The synced tables themselves may be created later, by migrations: each is checked when a
/// ``SyncCopy`` opens and whenever the schema changes.
public struct SyncConfiguration: Sendable, DatabaseWriterExtension {
    /// The synced tables.
    public var tables: [SyncTable]

    /// Syncs `tables`.
    public init(tables: [SyncTable]) {
        self.tables = tables
    }

    /// The table named `name` (compared as SQLite compares names, ASCII case folded).
    func table(named name: String) -> SyncTable? {
        tables.first { FoldedIdentifier.same($0.name, name) }
    }

    /// Throws ``SyncError/duplicateTable(_:other:)`` for a table declared twice (names compared as
    /// SQLite compares them), which would be settled by the first declaration's policy alone, and
    /// ``SyncError/resolverOfAnotherTable(table:recordType:recordTable:)`` for a table whose resolver's
    /// record type is stored in another table: its merged records would be written there.
    func check() throws {
        var seen: [FoldedIdentifier: String] = [:]
        for table in tables {
            if let first = seen[FoldedIdentifier(table.name)] {
                throw SyncError.duplicateTable(first, other: table.name)
            }
            seen[FoldedIdentifier(table.name)] = table.name
        }
        for table in tables {
            guard case .resolver(let resolver) = table.policy.kind,
                !FoldedIdentifier.same(resolver.recordTable, table.name)
            else { continue }
            throw SyncError.resolverOfAnotherTable(
                table: table.name, recordType: resolver.recordType, recordTable: resolver.recordTable)
        }
    }

    /// Installs change capture; a database just copied from a template becomes a copy of its own
    /// (see ``SyncState/renewCopy(on:)``).
    func install(on writer: Connection, fromTemplate: Bool) throws {
        let capture = try SyncCapture(configuration: self, connection: writer, renewingCopy: fromTemplate)
        writer.setTransactionParticipant(capture)
    }
}

extension Database.Options {
    /// The tables this database syncs with other copies (see <doc:Sync>); nil (the default) for none.
    public var sync: SyncConfiguration? {
        get { writerExtension as? SyncConfiguration }
        set { writerExtension = newValue }
    }
}
