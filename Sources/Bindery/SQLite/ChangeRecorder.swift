import CSQLite

/// A recording of the rows a connection changes in some tables, made with SQLite's preupdate hook and
/// turned into a changeset in SQLite's format (``changeset(layout:)``): the sync layer
/// records each transaction's changes with it.
///
/// The hook hands every change over whole: the row before (for an update or a delete) and after (for an
/// insert or an update), every column. The recorder copies their values into one buffer, in the
/// changeset record format, and does nothing else while the statement runs. When the changeset is
/// made, the changes are grouped by table and primary key: a row's first change gives the row as it
/// was when the recording began, its last change the row as it is, and a row that ends as it began
/// is left out (an insert then a delete, an update undone). Updates come out full-row: the old and
/// the new record define every column.
///
/// A change SQLite undoes afterwards calls no hook: a statement that fails (its changes are rolled
/// back), `ROLLBACK TO` a savepoint. The connection counts the events that may have undone changes
/// (``ConnectionStatus/possibleUndos``); when the count moved during the recording, or a row was
/// written by incremental blob I/O (whose new value the hook does not see), the changeset reads the
/// current row of every key it holds instead of trusting the last change. The first change of a row
/// is always right about the row as it was: nothing changed it in the recording before that change.
///
/// Safety: SQLite calls the hook with an unretained pointer to the recorder, so the hook must be
/// removed before the recorder is freed and before the connection closes. The recorder is made by
/// ``Connection/openChangeRecorder(tables:)``, which keeps a weak reference to it and calls
/// ``close()`` (which removes the hook) before `sqlite3_close_v2`; `deinit` closes a recorder still
/// open. The hook runs on the connection's thread, inside the statement that changes a row. The
/// values' bytes are copied inside the hook (by ``SQLiteMemory/appendBytes(of:_:to:prefix:)``), while
/// SQLite keeps the `sqlite3_value`s it hands out valid, and never kept.
final class ChangeRecorder {
    /// A recorded table's columns, as the layer above reads them when the changeset is made.
    struct Layout: Equatable {
        /// The table's name as the schema spells it (written in the changeset).
        var name: String
        /// For each column of the changeset, its position in the primary key (1 for the first), or 0.
        var keyFlags: [UInt8]
        /// For each column of the table as the hook gives them, generated ones included, whether the
        /// changeset holds it (a generated column is computed again where the changeset is applied);
        /// empty when the table has no generated column.
        var heldColumns: [Bool] = []

        /// For each column of the changeset, whether it has REAL affinity: SQLite stores a whole REAL
        /// as an integer, and the hook gives it so for an inserted row (SQLite 3.40), where a read of
        /// the column gives a REAL; empty when no column has REAL affinity.
        var realColumns: [Bool] = []
        /// For each column of the changeset, its default as a one-value record when it is NOT NULL
        /// and has one; empty when none is. A row written before `ALTER TABLE … ADD COLUMN` added a
        /// column has no value for it, and the hook gives NULL for it in the row before a change
        /// (SQLite 3.40), where a read of the column gives the default: a NOT NULL column cannot hold
        /// NULL, so that NULL is its default. (A nullable column's NULL is left as it is: it may be a
        /// NULL the row holds.)
        var requiredDefaults: [[UInt8]?] = []
        /// Whether the table's columns changed in the transaction (by a statement of its connection):
        /// a row changed before that cannot be told in the columns as they are now.
        var columnsChanged = false
        /// `SELECT` of the changeset's columns of the row whose key columns are each `IS ?` (in
        /// column order), in the `main` schema: a row is read again with it.
        var selectRowSQL: String

        /// The number of values the hook gives for a row of the table.
        var hookColumnCount: Int { heldColumns.isEmpty ? keyFlags.count : heldColumns.count }
    }

    /// One change the hook saw: where its records are in ``bytes``.
    struct Event {
        /// The index of the table in ``tables``.
        var table: Int
        /// `SQLITE_INSERT`, `SQLITE_UPDATE` or `SQLITE_DELETE`.
        var operation: Int32
        /// Whether a trigger or a foreign key action made it (the changeset's "indirect" flag).
        var indirect: Bool
        /// The number of columns of the table when the change was made.
        var columnCount: Int
        /// The row before the change (empty for an insert) and after it (empty for a delete).
        var old: Range<Int>
        var new: Range<Int>
        /// ``ConnectionStatus/schemaChanges`` when the change was made.
        var schemaChanges: UInt64
    }

    private(set) var database: OpaquePointer?
    let status: ConnectionStatus
    /// The tables recorded, as given.
    let tables: [String]
    /// Their names as C strings, for the hook to compare with the name SQLite gives it.
    private let cNames: [[CChar]]
    /// The name of the main schema, the one whose changes are recorded.
    private static let mainSchema = Array("main".utf8CString)
    /// Whether changes are recorded now (off while sync applies changes that came from elsewhere).
    var isEnabled = true
    /// The records of every change, one after the other (taken out and given back by the hook and by
    /// ``changeset(layout:)`` while they add to them).
    var bytes: [UInt8] = []
    /// The changes, in the order they were made.
    private(set) var events: [Event] = []
    /// Whether a row was written by incremental blob I/O since ``reset()``.
    private(set) var sawBlobWrite = false
    /// The first failure inside the hook (out of memory reading a value), thrown by the changeset.
    private(set) var failure: SQLiteError?
    /// ``ConnectionStatus/possibleUndos`` at the last ``reset()``.
    private var undoMark: UInt64

    /// The compile-time option the SQLite in use lacks for recording and applying changesets
    /// (`SQLITE_ENABLE_PREUPDATE_HOOK` or `SQLITE_ENABLE_SESSION`), or nil when it has both.
    static var missingCompileOption: String? {
        bindery_session_missing_option().map { String(cString: $0) }
    }

    /// Whether the database stores text as UTF-8, the changeset's encoding, and had a page when the
    /// recorder was made (its encoding can no longer change): a text value's bytes are copied as they
    /// are (`sqlite3_value_blob`), not converted to a NUL-terminated copy first (`sqlite3_value_text`).
    let storesUTF8: Bool

    /// A recorder of `tables` on `database`, whose hook is set: throws when SQLite lacks the preupdate
    /// hook or the changeset functions. `storesUTF8`: see ``storesUTF8``.
    init(database: OpaquePointer, status: ConnectionStatus, tables: [String], storesUTF8: Bool) throws {
        if let missing = bindery_session_missing_option() {
            throw SQLiteError(
                code: .misuse, message: "SQLite was compiled without \(String(cString: missing))", sql: nil)
        }
        self.status = status
        self.tables = tables
        self.storesUTF8 = storesUTF8
        cNames = tables.map { Array($0.utf8CString) }
        undoMark = status.possibleUndos
        let code = bindery_preupdate_hook(
            database,
            { context, database, operation, schema, table, _, _ in
                guard let context, let database, let schema, let table else { return }
                CallbackContext.object(context, as: ChangeRecorder.self)
                    .record(
                        operation, schema: CallbackContext.Name(schema), table: CallbackContext.Name(table),
                        on: database)
            }, CallbackContext.pointer(to: self))
        guard code == SQLITE_OK else {
            throw SQLiteError(code: .misuse, message: "the preupdate hook could not be set", sql: nil)
        }
        self.database = database
    }

    deinit {
        close()
    }

    /// Removes the hook; nothing is recorded afterwards.
    func close() {
        if let database {
            _ = bindery_preupdate_hook(database, nil, nil)
        }
        database = nil
    }

    /// Whether no change was seen since ``reset()`` (a row changed and changed back counts as seen).
    var isEmpty: Bool { events.isEmpty && !sawBlobWrite }

    /// Forgets every change seen: the recording starts again from here.
    func reset() {
        bytes.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        sawBlobWrite = false
        failure = nil
        undoMark = status.possibleUndos
    }

    /// Whether a change seen may have been undone since ``reset()`` (a statement failed, a savepoint
    /// was rolled back), or a row was written whose new value the hook did not see: the rows must be
    /// read again.
    var needsRereading: Bool { sawBlobWrite || status.possibleUndos != undoMark }

    // MARK: The hook

    /// Records one change SQLite is about to make (called by the hook).
    private func record(
        _ operation: Int32, schema: CallbackContext.Name, table: CallbackContext.Name, on database: OpaquePointer
    ) {
        guard isEnabled, schema.isSameIgnoringCase(as: Self.mainSchema) else { return }
        guard let index = cNames.firstIndex(where: { table.isSameIgnoringCase(as: $0) }) else { return }
        let columnCount = Int(bindery_preupdate_count(database))
        var operation = operation
        let isBlobWrite = operation == SQLITE_DELETE && bindery_preupdate_blobwrite(database) >= 0
        if isBlobWrite {
            // A blob written in place: the row stays, with a value the hook does not give.
            sawBlobWrite = true
            operation = SQLITE_UPDATE
        }
        // The records are written into a local array, taken from `bytes` and given back: one
        // exclusive access to the property for the whole change, not one for each value.
        var buffer: [UInt8] = []
        swap(&buffer, &bytes)
        defer { swap(&buffer, &bytes) }
        var failure: SQLiteError?
        let start = buffer.count
        if operation != SQLITE_INSERT {
            Self.appendRecord(columnCount, from: database, old: true, storesUTF8, to: &buffer, &failure)
        }
        let middle = buffer.count
        if isBlobWrite {
            // The new record is read again with every other row when the changeset is made.
            buffer.append(contentsOf: buffer[start..<middle])
        } else if operation != SQLITE_DELETE {
            Self.appendRecord(columnCount, from: database, old: false, storesUTF8, to: &buffer, &failure)
        }
        if let failure, self.failure == nil {
            self.failure = failure
        }
        events.append(
            Event(
                table: index, operation: operation, indirect: bindery_preupdate_depth(database) > 0,
                columnCount: columnCount, old: start..<middle, new: middle..<buffer.count,
                schemaChanges: status.schemaChanges))
    }

    /// Appends the `columnCount` values of the row before the change (`old`: `sqlite3_preupdate_old`)
    /// or after it (`sqlite3_preupdate_new`) as a record.
    private static func appendRecord(
        _ columnCount: Int, from database: OpaquePointer, old: Bool, _ storesUTF8: Bool,
        to bytes: inout [UInt8], _ failure: inout SQLiteError?
    ) {
        for column in 0..<Int32(columnCount) {
            var value: OpaquePointer?
            let code =
                old ? bindery_preupdate_old(database, column, &value) : bindery_preupdate_new(database, column, &value)
            guard code == SQLITE_OK, let value else {
                failure = SQLiteError(
                    code: SQLiteError.Code(rawValue: code), message: "a changed row could not be read", sql: nil)
                bytes.append(ChangesetEncoding.null)
                continue
            }
            append(value, storesUTF8, to: &bytes, &failure)
        }
    }

    /// Appends one value in the changeset format.
    static func append(
        _ value: OpaquePointer, _ storesUTF8: Bool, to bytes: inout [UInt8], _ failure: inout SQLiteError?
    ) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            bytes.append(ChangesetEncoding.integer)
            ChangesetEncoding.appendBigEndian(UInt64(bitPattern: sqlite3_value_int64(value)), to: &bytes)
        case SQLITE_FLOAT:
            bytes.append(ChangesetEncoding.real)
            ChangesetEncoding.appendBigEndian(sqlite3_value_double(value).bitPattern, to: &bytes)
        case SQLITE_TEXT where storesUTF8:
            // The stored UTF-8 bytes (`sqlite3_value_blob` of a TEXT value).
            appendLengthPrefixed(ChangesetEncoding.text, value, .stored, to: &bytes, &failure)
        case SQLITE_TEXT:
            appendLengthPrefixed(ChangesetEncoding.text, value, .utf8Text, to: &bytes, &failure)
        case SQLITE_BLOB:
            appendLengthPrefixed(ChangesetEncoding.blob, value, .stored, to: &bytes, &failure)
        default:
            bytes.append(ChangesetEncoding.null)
        }
    }

    /// Appends `type`, the byte count of `value` as a varint, then its bytes read as `kind` says.
    private static func appendLengthPrefixed(
        _ type: UInt8, _ value: OpaquePointer, _ kind: SQLiteMemory.ValueBytes, to bytes: inout [UInt8],
        _ failure: inout SQLiteError?
    ) {
        let read = SQLiteMemory.appendBytes(of: value, kind, to: &bytes) { count, bytes in
            bytes.append(type)
            ChangesetEncoding.appendVarint(UInt64(count), to: &bytes)
        }
        if !read {
            // A value with bytes and no pointer to them: SQLite ran out of memory converting it.
            failure = SQLiteError(code: .noMemory, message: "a changed row's value could not be read", sql: nil)
        }
    }
}
