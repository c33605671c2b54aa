import CSQLite
import Foundation

/// The SQLite callbacks of one connection that find which tables its statements read and which
/// tables its committed writes changed; used through ``Connection/recordingReads(_:)`` and
/// ``Connection/startTrackingChanges()``.
///
/// **Reads** are found by an authorizer (`sqlite3_set_authorizer`): SQLite calls it with
/// `SQLITE_READ` and the table's name for every table a statement reads, views resolved to their
/// tables, `count(*)` included. The authorizer runs when a statement is *prepared*, not when it runs,
/// so a statement prepared before the recording began would report nothing. Setting an authorizer
/// makes SQLite expire every prepared statement of the connection (`sqlite3_set_authorizer` calls
/// `sqlite3ExpirePreparedStatements`), and an expired statement is prepared again at its next step,
/// calling the authorizer then. So a recording sets the authorizer at its start, and every statement
/// it runs, cached or not, reports its tables; the cost is one re-preparation per statement used.
///
/// **Writes** are found by three means together, since none sees every change alone:
/// - the update hook (`sqlite3_update_hook`) names the table of every row inserted, updated or
///   deleted in a rowid table;
/// - the authorizer names the table of every `INSERT`, `UPDATE` and `DELETE` (and of `CREATE`,
///   `DROP` and `ALTER TABLE`) when a statement is prepared; a trace callback (`SQLITE_TRACE_STMT`)
///   tells when a statement starts, so the tables a statement writes are kept by its SQL text and
///   counted each time it runs, cached or not. This covers `WITHOUT ROWID` tables and DDL, which the
///   update hook never reports;
/// - the authorizer answers `SQLITE_IGNORE` to `SQLITE_DELETE` on user tables, which SQLite documents
///   as turning off the truncate optimization: `DELETE FROM t` without `WHERE` deletes row by row, so
///   the update hook sees it (at some cost for very large tables).
///
/// The tables the authorizer sees while a ``Statement`` is prepared are kept for its SQL text as soon
/// as it is prepared (``statementPrepared(_:)``), not given to the next statement that starts: a
/// statement is often prepared, then left while others run (a bulk insert reads the schema between
/// preparing its batch and running it; a batch that a record of another shape ends runs later, from
/// the cache), and those others would take its tables. What the authorizer sees outside a
/// ``Statement``'s preparation (a script's statements, one prepared again inside `sqlite3_step` after
/// a schema change) belongs to the next statement that starts, which is the one prepared.
///
/// Changes count only once committed: the commit hook moves the changes of the transaction aside,
/// the rollback hook drops them, and whether a commit really happened (a `COMMIT` can fail with
/// `SQLITE_BUSY` and leave the transaction open) is settled afterwards from `sqlite3_get_autocommit`.
/// A rolled-back savepoint (`ROLLBACK TO`) calls no hook, so its changes still count when the
/// transaction commits; so does a write statement that changed no row. Both can only make an
/// observation run once more than needed.
///
/// The callbacks get an unretained pointer to this object. The connection keeps it as extension state
/// and nothing else does; its `deinit` removes every callback, and the connection releases its
/// extension state in `close()` before `sqlite3_close_v2`, so no callback can run after the object is
/// gone, nor any call reach a closed handle.
final class ConnectionHooks {
    private let handle: OpaquePointer
    /// Whether write tracking is on (it stays on until the connection closes).
    private(set) var isTrackingChanges = false
    /// The tables read since the recording began; nil when no recording runs.
    private var readRegion: DatabaseRegion?

    // MARK: Write tracking state (used only while tracking changes)

    /// The tables the authorizer saw written by statements prepared since the last statement started.
    private var preparedWrites = DatabaseRegion()
    /// Whether the authorizer's last call was the action code of a DROP TABLE or DROP VIEW, whose
    /// SQLITE_DELETE check on the dropped table comes next.
    private var droppingTable = false
    /// The tables each write statement changes, by SQL text, with when it last ran.
    private var statementWrites: [String: (region: DatabaseRegion, lastUse: UInt64)] = [:]
    /// Counts the statements looked up in `statementWrites`.
    private var useClock: UInt64 = 0
    /// How many SQL texts `statementWrites` keeps before it forgets the least recently run half.
    private let statementWritesCapacity: Int
    /// The last statement looked up in `statementWrites`, to skip the look-up when a statement runs
    /// again and again (a bulk insert).
    private var lastStatement: (sql: String, region: DatabaseRegion)?
    /// Whether `open` holds the tables of `lastStatement` already: a statement run again and again
    /// then adds nothing to `open`, and hashes no table name per run.
    private var openHoldsLastStatement = false
    /// The name of the last table the update hook reported since `open` was emptied.
    private var lastUpdatedTable: String?
    /// The changes of the transaction in progress.
    private var open = DatabaseRegion()
    /// The changes whose commit began (the commit hook ran) but is not known to have succeeded.
    private var committing: DatabaseRegion?
    /// The changes known to be committed and not yet taken.
    private var committed = DatabaseRegion()
    /// Asked by the commit hook whether the commit may happen (sync's change capture refuses a
    /// commit whose changes it has not recorded). The connection holds it.
    weak var commitGuard: (any TransactionParticipant)?

    /// Hooks for the connection `handle`, whose statement cache keeps `cacheCapacity` statements.
    init(handle: OpaquePointer, cacheCapacity: Int) {
        self.handle = handle
        self.statementWritesCapacity = max(1024, 8 * cacheCapacity)
    }

    deinit {
        // The connection is still open here: it drops its extension state before closing.
        removeCallbacks()
    }

    // MARK: Reads

    /// Starts recording the tables read by the statements that run from now on.
    func beginRecordingReads() {
        readRegion = DatabaseRegion()
        // Setting the authorizer, even the one already set, expires the connection's prepared
        // statements, so that cached statements report their tables when they next run.
        installAuthorizer()
    }

    /// Stops recording reads and returns the tables read since ``beginRecordingReads()``.
    func endRecordingReads() -> DatabaseRegion {
        let region = readRegion ?? DatabaseRegion()
        readRegion = nil
        if !isTrackingChanges {
            sqlite3_set_authorizer(handle, nil, nil)
        }
        return region
    }

    // MARK: Writes

    /// Turns write tracking on, for the life of the connection.
    func startTrackingChanges() {
        guard !isTrackingChanges else { return }
        isTrackingChanges = true
        let context = CallbackContext.pointer(to: self)
        installAuthorizer()
        sqlite3_update_hook(
            handle,
            { context, _, _, table, _ in
                guard let context, let table else { return }
                CallbackContext.object(context, as: ConnectionHooks.self).rowChanged(in: CallbackContext.Name(table))
            }, context)
        sqlite3_commit_hook(
            handle,
            { context in
                guard let context else { return 0 }
                let hooks = CallbackContext.object(context, as: ConnectionHooks.self)
                if let commitGuard = hooks.commitGuard, !commitGuard.allowsCommit() {
                    return 1
                }
                hooks.willCommit()
                return 0
            }, context)
        sqlite3_rollback_hook(
            handle,
            { context in
                guard let context else { return }
                CallbackContext.object(context, as: ConnectionHooks.self).didRollback()
            }, context)
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_STMT),
            { _, context, statement, _ in
                guard let context, let statement else { return 0 }
                CallbackContext.object(context, as: ConnectionHooks.self)
                    .statementStarted(OpaquePointer(statement))
                return 0
            }, context)
    }

    /// The tables changed by the transactions committed since the last call, and forgets them.
    func takeCommittedChanges() -> DatabaseRegion {
        settle()
        defer { committed = DatabaseRegion() }
        return committed
    }

    // MARK: Callbacks

    private func installAuthorizer() {
        sqlite3_set_authorizer(
            handle,
            { context, action, first, second, _, _ in
                guard let context else { return SQLITE_OK }
                return CallbackContext.object(context, as: ConnectionHooks.self)
                    .authorize(action, first.map(CallbackContext.Name.init), second.map(CallbackContext.Name.init))
            }, CallbackContext.pointer(to: self))
    }

    private func removeCallbacks() {
        sqlite3_set_authorizer(handle, nil, nil)
        guard isTrackingChanges else { return }
        sqlite3_update_hook(handle, nil, nil)
        sqlite3_commit_hook(handle, nil, nil)
        sqlite3_rollback_hook(handle, nil, nil)
        sqlite3_trace_v2(handle, 0, nil, nil)
    }

    /// Records what a statement being prepared reads and writes. It must answer `SQLITE_OK` (or
    /// `SQLITE_IGNORE` where that only changes how SQLite does the work): this authorizer observes,
    /// it never denies.
    private func authorize(
        _ action: Int32, _ first: CallbackContext.Name?, _ second: CallbackContext.Name?
    ) -> Int32 {
        switch action {
        case SQLITE_READ:
            if readRegion != nil, let first {
                readRegion?.insert(first)
            }
        case SQLITE_INSERT, SQLITE_UPDATE:
            if isTrackingChanges, let first {
                preparedWrites.insert(first)
            }
        case SQLITE_DELETE:
            if isTrackingChanges, let first {
                preparedWrites.insert(first)
                // SQLITE_IGNORE turns the truncate optimization off for this DELETE, so the update
                // hook sees every row. Never for SQLite's own tables, nor for the table a DROP drops:
                // DROP TABLE, DROP INDEX and the like check SQLITE_DELETE on sqlite_master, and DROP
                // TABLE and DROP VIEW check it on the table right after their own action code; they
                // would silently do nothing.
                let isDrop = droppingTable
                droppingTable = false
                if !isDrop, !first.hasPrefixIgnoringCase("sqlite_") {
                    return SQLITE_IGNORE
                }
            }
            return SQLITE_OK
        case SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_TABLE:
            if isTrackingChanges, let first {
                preparedWrites.insert(first)
            }
        case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE:
            if isTrackingChanges, let first {
                preparedWrites.insert(first)
                droppingTable = true
                return SQLITE_OK
            }
        case SQLITE_ALTER_TABLE:
            if isTrackingChanges, let second {
                preparedWrites.insert(second)
            }
        default:
            break
        }
        droppingTable = false
        return SQLITE_OK
    }

    private func rowChanged(in table: CallbackContext.Name) {
        settle()
        if let lastUpdatedTable, table.isSame(as: lastUpdatedTable) {
            return
        }
        let name = table.string
        open.insert(name)
        lastUpdatedTable = name
    }

    /// Keeps the tables the authorizer saw written while `statement` was prepared for its SQL text,
    /// where ``statementStarted(_:)`` finds them each time it runs. A read-only statement's are
    /// dropped (the authorizer reports SQLite's own reads of its schema as writes).
    func statementPrepared(_ statement: OpaquePointer) {
        guard isTrackingChanges, !preparedWrites.isEmpty else { return }
        let prepared = preparedWrites
        preparedWrites = DatabaseRegion()
        droppingTable = false
        guard sqlite3_stmt_readonly(statement) == 0, let text = sqlite3_sql(statement) else { return }
        let sql = String(cString: text)
        let region = keep(prepared, for: sql)
        if lastStatement?.sql == sql {
            // The next run of the statement run last adds its new tables to the transaction's.
            lastStatement = (sql, region)
            openHoldsLastStatement = false
        }
    }

    private func statementStarted(_ statement: OpaquePointer) {
        settle()
        let prepared = preparedWrites
        preparedWrites = DatabaseRegion()
        guard sqlite3_stmt_readonly(statement) == 0, let text = sqlite3_sql(statement) else {
            return
        }
        if prepared.isEmpty, let lastStatement, lastStatement.sql.withCString({ strcmp($0, text) }) == 0 {
            if !openHoldsLastStatement {
                open.formUnion(lastStatement.region)
                openHoldsLastStatement = true
            }
            return
        }
        let sql = String(cString: text)
        // A statement prepared (or prepared again after a schema change) just before it starts
        // brings the tables the authorizer saw; a cached one finds them kept from its first run.
        let region = keep(prepared, for: sql)
        lastStatement = (sql, region)
        open.formUnion(region)
        openHoldsLastStatement = true
    }

    /// Adds `prepared` to the tables kept for the statement `sql`, marked as used now; returns them all.
    private func keep(_ prepared: DatabaseRegion, for sql: String) -> DatabaseRegion {
        useClock &+= 1
        var region = statementWrites[sql]?.region ?? DatabaseRegion()
        region.formUnion(prepared)
        statementWrites[sql] = (region, useClock)
        if statementWrites.count > statementWritesCapacity {
            forgetLeastRecentStatements()
        }
        return region
    }

    /// Forgets the least recently run half of `statementWrites`. The capacity is at least eight times
    /// the statement cache's, which keeps only recently used statements: forgetting one that is still
    /// cached takes that many other write statements run from scripts, which bypass the cache. Its
    /// writes to `WITHOUT ROWID` tables would go unseen until it is prepared again; the update hook
    /// still sees its writes to other tables.
    private func forgetLeastRecentStatements() {
        let byUse = statementWrites.sorted { $0.value.lastUse < $1.value.lastUse }
        for (sql, _) in byUse.prefix(byUse.count / 2) {
            statementWrites[sql] = nil
        }
    }

    private func willCommit() {
        var changes = committing ?? DatabaseRegion()
        changes.formUnion(open)
        committing = changes
        open = DatabaseRegion()
        openHoldsLastStatement = false
        lastUpdatedTable = nil
    }

    private func didRollback() {
        commitGuard?.didRollBack()
        open = DatabaseRegion()
        openHoldsLastStatement = false
        committing = nil
        lastUpdatedTable = nil
    }

    /// Decides whether the commit whose hook ran last succeeded: SQLite is back in autocommit mode
    /// after a commit that succeeded, and still in the transaction after one that failed with
    /// `SQLITE_BUSY` (whose changes then belong to the transaction again).
    private func settle() {
        guard let changes = committing else { return }
        committing = nil
        if sqlite3_get_autocommit(handle) != 0 {
            committed.formUnion(changes)
        } else {
            open.formUnion(changes)
            lastUpdatedTable = nil
        }
    }
}
