import CSQLite
import Foundation

/// A conflict SQLite met while applying a changeset (``Connection/applyChangeset(_:_:)``): which
/// kind, on which table, and the row values involved, read while SQLite's iterator is valid.
struct ChangesetConflict {
    /// The kinds of conflict of `sqlite3changeset_apply_v2`.
    enum Kind: Equatable {
        /// An update or delete found the row, but not with the old values the change expects.
        case data
        /// An update or delete found no row with the change's key.
        case notFound
        /// An insert found a row with its key already.
        case conflict
        /// A change broke a UNIQUE, CHECK or NOT NULL constraint (or a foreign key, for a delete).
        case constraint
        /// At the end of the changeset, `count` foreign-key constraints are violated.
        case foreignKey(count: Int)
    }

    /// What to do about a conflict.
    enum Action {
        /// Leave the change out and go on.
        case omit
        /// Apply the change over the conflicting row (only for ``Kind/data`` and ``Kind/conflict``).
        case replace
        /// Stop and undo the whole changeset.
        case abort
    }

    var kind: Kind
    /// The table of the change (empty for ``Kind/foreignKey(count:)``).
    var table: String
    /// `SQLITE_INSERT`, `SQLITE_UPDATE` or `SQLITE_DELETE` (0 for a foreign-key conflict).
    var operation: Int32
    /// The change's old values (a nil is undefined); empty for an insert.
    var old: [SQLiteValue?]
    /// The change's new values; empty for a delete.
    var new: [SQLiteValue?]
    /// The row in the database the change conflicts with (``Kind/data`` and ``Kind/conflict``).
    var current: [SQLiteValue?]

    /// Reads the conflict of `kind` from SQLite's iterator; throws ``SQLiteError/Code/noMemory`` when
    /// SQLite could not hand over a value.
    init(kind code: Int32, iterator: OpaquePointer) throws {
        if code == BINDERY_CHANGESET_FOREIGN_KEY {
            var count: Int32 = 0
            _ = bindery_changeset_fk_conflicts(iterator, &count)
            self.init(kind: .foreignKey(count: Int(count)), table: "", operation: 0, old: [], new: [], current: [])
            return
        }
        var name: UnsafePointer<CChar>?
        var columns: Int32 = 0
        var operation: Int32 = 0
        _ = bindery_changeset_op(iterator, &name, &columns, &operation)
        let kind: Kind
        switch code {
        case BINDERY_CHANGESET_DATA: kind = .data
        case BINDERY_CHANGESET_NOTFOUND: kind = .notFound
        case BINDERY_CHANGESET_CONFLICT: kind = .conflict
        default: kind = .constraint
        }
        func read(_ reader: (OpaquePointer, Int32, UnsafeMutablePointer<OpaquePointer?>) -> Int32) throws
            -> [SQLiteValue?]
        {
            try (0..<columns).map { column in
                var value: OpaquePointer?
                guard reader(iterator, column, &value) == SQLITE_OK, let value else { return nil }
                return try SQLiteValue(value: value)
            }
        }
        self.init(
            kind: kind, table: name.map { String(cString: $0) } ?? "", operation: operation,
            old: operation == SQLITE_INSERT ? [] : try read(bindery_changeset_old),
            new: operation == SQLITE_DELETE ? [] : try read(bindery_changeset_new),
            current: kind == .data || kind == .conflict ? try read(bindery_changeset_conflict) : [])
    }

    init(
        kind: Kind, table: String, operation: Int32, old: [SQLiteValue?], new: [SQLiteValue?],
        current: [SQLiteValue?]
    ) {
        self.kind = kind
        self.table = table
        self.operation = operation
        self.old = old
        self.new = new
        self.current = current
    }
}

extension SQLiteValue {
    /// The value held by a protected or unprotected `sqlite3_value`. As for columns
    /// (``Statement/emptyOrNoMemory(_:_:column:byteCount:)``), a TEXT or BLOB without a pointer is
    /// empty only when it has no bytes; otherwise SQLite ran out of memory converting it, which throws
    /// ``SQLiteError/Code/noMemory`` rather than read the value as empty.
    init(value: OpaquePointer) throws {
        let type = sqlite3_value_type(value)
        switch type {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT, SQLITE_BLOB:
            let pointer = type == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_value_text(value)) : sqlite3_value_blob(value)
            let count = Int(sqlite3_value_bytes(value))
            guard let pointer else {
                guard count == 0 else {
                    throw SQLiteError(
                        code: .noMemory, extendedCode: SQLITE_NOMEM,
                        message: "SQLite could not allocate the memory to read a changeset's value (out of memory)")
                }
                self = type == SQLITE_TEXT ? .text("") : .blob(Data())
                return
            }
            let bytes = UnsafeRawBufferPointer(start: pointer, count: count)
            self = type == SQLITE_TEXT ? .text(String(decoding: bytes, as: UTF8.self)) : .blob(Data(bytes))
        default:
            self = .null
        }
    }
}
