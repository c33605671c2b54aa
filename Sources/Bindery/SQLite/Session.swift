import CSQLite
import Foundation

/// A recording of the changes made to some tables of a connection: SQLite's session extension
/// (`sqlite3session_*`), which the sync layer builds change capture on.
///
/// A session records, for each row its connection inserts, updates or deletes in an attached table,
/// the row as it was before the first change; ``changeset()`` compares that with the row as it is
/// now, so that a change undone later (by another statement, or a rolled-back savepoint) is left
/// out. Tables without a declared primary key are not recorded (SQLite's rule): the sync layer
/// refuses to sync them.
///
/// Safety: the `sqlite3_session` must be deleted before its connection closes, and used only on the
/// connection's thread. The session is made by ``Connection/openSession(tables:)``, which keeps a weak
/// reference to it and calls ``close()`` before `sqlite3_close_v2`; after `close()` every method is
/// a no-op or throws, and `deinit` deletes a session still open.
final class Session {
    private var handle: OpaquePointer?
    /// The tables recorded.
    let tables: [String]

    /// The compile-time option the SQLite in use lacks for sessions (`SQLITE_ENABLE_SESSION` or
    /// `SQLITE_ENABLE_PREUPDATE_HOOK`), or nil when sessions work.
    static var missingCompileOption: String? {
        bindery_session_missing_option().map { String(cString: $0) }
    }

    init(database: OpaquePointer, tables: [String]) throws {
        if let missing = bindery_session_missing_option() {
            throw SQLiteError(
                code: .misuse, message: "SQLite was compiled without \(String(cString: missing))", sql: nil)
        }
        var session: OpaquePointer?
        let code = bindery_session_create(database, &session)
        guard code == SQLITE_OK, let session else {
            throw SQLiteError(database: database, resultCode: code, sql: nil)
        }
        handle = session
        self.tables = tables
        for table in tables {
            let code = bindery_session_attach(session, table)
            guard code == SQLITE_OK else {
                close()
                throw SQLiteError(database: database, resultCode: code, sql: nil)
            }
        }
    }

    deinit {
        close()
    }

    /// Deletes the session; later calls record nothing.
    func close() {
        if let handle {
            bindery_session_delete(handle)
        }
        handle = nil
    }

    /// Whether nothing was recorded (a row changed and changed back still counts as recorded).
    var isEmpty: Bool {
        guard let handle else { return true }
        return bindery_session_isempty(handle) != 0
    }

    /// The changes recorded, as a changeset (empty when no row differs from what it was).
    func changeset() throws -> [UInt8] {
        guard let handle else {
            throw SQLiteError(code: .misuse, message: "the session is closed", sql: nil)
        }
        var count: Int32 = 0
        var bytes: UnsafeMutableRawPointer?
        let code = bindery_session_changeset(handle, &count, &bytes)
        defer { sqlite3_free(bytes) }
        guard code == SQLITE_OK else {
            throw SQLiteError(
                code: SQLiteError.Code(rawValue: code), message: "the changeset could not be made", sql: nil)
        }
        guard let bytes, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(count)))
    }
}
