import CSQLite
import Foundation

/// Recording changes (SQLite's preupdate hook) and applying changesets (its session extension): the
/// sync layer's capture and merge are built on these.
extension Connection {
    /// A recorder of the changes this connection makes to `tables` (see ``ChangeRecorder``). The
    /// connection closes it before it closes itself. Throws when SQLite lacks the preupdate hook or the
    /// session extension, or when the connection has a recorder open already.
    func openChangeRecorder(tables: [String]) throws -> ChangeRecorder {
        try checkUsable(sql: nil)
        guard !hasChangeRecorder else {
            throw SQLiteError(code: .misuse, message: "the connection records its changes already", sql: nil)
        }
        // A database's text encoding is fixed once it has a page: a recorder of a UTF-8 one copies a
        // text value's bytes as they are stored.
        let encoding = try rows("PRAGMA main.encoding", arguments: []).first?.values.first
        let pages = try rows("PRAGMA main.page_count", arguments: []).first?.values.first
        let storesUTF8: Bool
        if case .text("UTF-8") = encoding, case .integer(let count) = pages, count > 0 {
            storesUTF8 = true
        } else {
            storesUTF8 = false
        }
        let recorder = try ChangeRecorder(database: handle, status: status, tables: tables, storesUTF8: storesUTF8)
        keepUntilClose(recorder)
        return recorder
    }

    /// Applies `changeset` in a savepoint of its own: SQLite calls `resolve` for each conflict, and
    /// the whole changeset is undone when `resolve` throws or answers ``ChangesetConflict/Action/abort``
    /// (the error `resolve` threw is rethrown). `resolve` may run statements on this connection,
    /// writes included (SQLite allows it).
    func applyChangeset(
        _ changeset: [UInt8], _ resolve: (ChangesetConflict) throws -> ChangesetConflict.Action
    ) throws {
        try checkUsable(sql: nil)
        guard !changeset.isEmpty else { return }
        // The statements SQLite runs to apply a changeset may fail and be undone inside the call (a
        // conflict answered by omitting the change): a change recorder must read its rows again.
        status.possibleUndos &+= 1
        guard changeset.count <= Int(Int32.max) else {
            throw SQLiteError(code: .tooBig, message: "a changeset of \(changeset.count) bytes", sql: nil)
        }
        try withoutActuallyEscaping(resolve) { resolve in
            let context = ChangesetApplyContext(resolve: resolve)
            var bytes = changeset
            // SQLite reads the bytes and calls the handler only during this call, and the unretained
            // `context` lives until the call returns (it is used below).
            let code = bindery_changeset_apply(
                handle, Int32(bytes.count), &bytes,
                { context, kind, iterator in
                    guard let context, let iterator else { return BINDERY_CHANGESET_ABORT }
                    return CallbackContext.object(context, as: ChangesetApplyContext.self)
                        .handle(kind: kind, iterator: iterator)
                }, CallbackContext.pointer(to: context))
            if let error = context.error {
                throw error
            }
            guard code == SQLITE_OK else {
                throw SQLiteError(database: handle, resultCode: code, sql: nil)
            }
        }
    }
}

/// What a changeset's conflict handler needs while `sqlite3changeset_apply_v2` runs.
private final class ChangesetApplyContext {
    let resolve: (ChangesetConflict) throws -> ChangesetConflict.Action
    var error: (any Error)?

    init(resolve: @escaping (ChangesetConflict) throws -> ChangesetConflict.Action) {
        self.resolve = resolve
    }

    func handle(kind: Int32, iterator: OpaquePointer) -> Int32 {
        guard error == nil else { return BINDERY_CHANGESET_ABORT }
        do {
            switch try resolve(try ChangesetConflict(kind: kind, iterator: iterator)) {
            case .omit: return BINDERY_CHANGESET_OMIT
            case .replace: return BINDERY_CHANGESET_REPLACE
            case .abort: return BINDERY_CHANGESET_ABORT
            }
        } catch {
            self.error = error
            return BINDERY_CHANGESET_ABORT
        }
    }
}
