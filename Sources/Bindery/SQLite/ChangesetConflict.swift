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
    /// The first column, by position, where one of ``old``, ``new`` and ``current`` holds TEXT that is
    /// not valid UTF-8 (SQLite's TEXT holds any bytes), which its `String` holds repaired (U+FFFD in
    /// place of the invalid bytes): such a value is not the one stored, and must not be compared or
    /// written back as if it were. Nil when every text is valid.
    var invalidTextColumn: Int? = nil

    /// Reads the conflict of `kind` from SQLite's iterator; throws ``SQLiteError/Code/noMemory`` when
    /// SQLite could not hand over a value.
    init(kind code: Int32, iterator: OpaquePointer) throws {
        if code == BINDERY_CHANGESET_FOREIGN_KEY {
            var count: Int32 = 0
            _ = bindery_changeset_fk_conflicts(iterator, &count)
            self.init(kind: .foreignKey(count: Int(count)), table: "", operation: 0, old: [], new: [], current: [])
            return
        }
        let (table, columns, operation) = SQLiteMemory.changesetOperation(iterator)
        let kind: Kind
        switch code {
        case BINDERY_CHANGESET_DATA: kind = .data
        case BINDERY_CHANGESET_NOTFOUND: kind = .notFound
        case BINDERY_CHANGESET_CONFLICT: kind = .conflict
        default: kind = .constraint
        }
        /// The values of the row SQLite's iterator holds: the old row, the new one, or the current one.
        enum Row { case old, new, current }
        var invalidTextColumn: Int?
        func read(_ row: Row) throws -> [SQLiteValue?] {
            try (0..<columns).map { column in
                var value: OpaquePointer?
                let code =
                    switch row {
                    case .old: bindery_changeset_old(iterator, column, &value)
                    case .new: bindery_changeset_new(iterator, column, &value)
                    case .current: bindery_changeset_conflict(iterator, column, &value)
                    }
                guard code == SQLITE_OK, let value else { return nil }
                if sqlite3_value_type(value) == SQLITE_TEXT, SQLiteMemory.isValidText(ofValue: value) == false {
                    invalidTextColumn = Swift.min(invalidTextColumn ?? Int(column), Int(column))
                }
                return try SQLiteValue(value: value)
            }
        }
        self.init(
            kind: kind, table: table, operation: operation,
            old: operation == SQLITE_INSERT ? [] : try read(.old),
            new: operation == SQLITE_DELETE ? [] : try read(.new),
            current: kind == .data || kind == .conflict ? try read(.current) : [])
        self.invalidTextColumn = invalidTextColumn
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
            let read: SQLiteValue? =
                type == SQLITE_TEXT
                ? SQLiteMemory.string(ofValue: value).map { .text($0) }
                : SQLiteMemory.data(ofValue: value).map { .blob($0) }
            guard let read else {
                throw SQLiteError(
                    code: .noMemory, extendedCode: SQLITE_NOMEM,
                    message: "SQLite could not allocate the memory to read a changeset's value (out of memory)")
            }
            self = read
        default:
            self = .null
        }
    }
}
