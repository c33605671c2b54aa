/// Reading back a row that a trigger changed.
///
/// `RETURNING` reports the row as the statement wrote it, before the table's AFTER triggers run: a
/// column a trigger fills comes back as it was given. SQLite counts each row a trigger program inserts,
/// updates or deletes in ``Connection/totalChanges`` (the count moves when the statement ends), where
/// the statement's own row counts one. So once a one-row INSERT or upsert has run, a count grown by more
/// than one says that a trigger changed something (this row, or another table): the row is then read
/// back by the primary key of the row `RETURNING` gave. When the count grew by one or less, no trigger
/// changed anything, the row `RETURNING` gave is the row as stored, and no other statement runs: no
/// look at the schema is needed, and a trigger added by another connection is seen as well.
///
/// A trigger may change the key itself (a TEXT key made lowercase, say): the row is then not found by
/// the key `RETURNING` gave. A one-row INSERT (or upsert that inserted) into a table with a rowid
/// moved the connection's last inserted rowid to its row's, which a trigger does not change (its own
/// inserts set it back when the trigger ends): the row is read back by that rowid. An upsert that
/// updated a row does not tell its row's rowid. A row a trigger deleted, or whose rowid (an
/// `INTEGER PRIMARY KEY`) or whose key in a table without a rowid it changed, cannot be found again: it
/// comes back as `RETURNING` gave it. A multi-row INSERT does not take its rows read back: a later
/// row's trigger may have changed an earlier row since its INSERT. Its rows are kept as `RETURNING`
/// gave them, when checked unchanged (``isStoredAsReturned(_:state:)``) or when no trigger may write the
/// table; otherwise its records go one by one (see `BulkInserter+Batches.swift`).
extension Connection {
    /// What a one-row statement's read-back compares with once it ran: ``totalChanges`` and
    /// ``lastInsertRowID`` before it.
    struct ReadBackMark {
        let totalChanges: Int
        let lastInsertRowID: Int64
    }

    /// The mark to take just before a one-row INSERT … RETURNING * or upsert runs.
    func readBackMark() -> ReadBackMark {
        ReadBackMark(totalChanges: totalChanges, lastInsertRowID: lastInsertRowID)
    }

    /// The row `returned` (the row a one-row statement's `RETURNING *` gave, run since `mark`) as
    /// stored: `returned` itself when no trigger changed a row (``totalChanges`` grew by one or less),
    /// else read back by its key or by the rowid the statement gave a row it inserted (the last
    /// inserted rowid moved), and `returned` when it cannot be found again.
    func storedAfterStatement<T: Record>(_ returned: T, state: RecordTypeState, since mark: ReadBackMark) throws -> T {
        guard totalChanges &- mark.totalChanges > 1 else { return returned }
        let rowid = lastInsertRowID
        return try storedAfterTriggers(returned, state: state, rowid: rowid == mark.lastInsertRowID ? nil : rowid)
            ?? returned
    }

    /// Whether `returned` (a row `RETURNING *` gave) is the row stored now under its primary key: that
    /// row, read back, encodes to the same values, the row as the record type reads it. False when no
    /// row has the key (or the record has no primary-key value). Encoded with an encoder of its own:
    /// the caller's is in use (see RecordTypeState); `returned` once, for its key and its values.
    func isStoredAsReturned<T: Record>(_ returned: T, state: RecordTypeState) throws -> Bool {
        let (key, values) = try state.withEncoder { encoder -> ([SQLiteValue]?, [SQLiteValue]) in
            try encoder.encodeRow(returned)
            return (try? state.primaryKeyValues(in: encoder.row), encoder.row.values)
        }
        guard let key, let stored = try fetchOne(T.self, sql: SQL(text: state.selectByKey, values: key)) else {
            return false
        }
        return try state.withEncoder { encoder in
            try encoder.encodeRow(stored)
            return encoder.row.values == values
        }
    }

    /// The row `returned` (a row `RETURNING *` gave) as stored now, found by its primary key, or else by
    /// `rowid`, the rowid the INSERT that returned it gave its row (nil when not known); nil when the
    /// row cannot be found again: a trigger deleted it or changed its key and rowid, or the record has
    /// no primary-key value (what `RETURNING` gave is then kept).
    func storedAfterTriggers<T: Record>(_ returned: T, state: RecordTypeState, rowid: Int64? = nil) throws -> T? {
        // The key is encoded with an encoder of its own: the caller's is in use (see RecordTypeState).
        let key = try state.withEncoder { encoder -> [SQLiteValue]? in
            try encoder.encodeRow(returned)
            return try? state.primaryKeyValues(in: encoder.row)
        }
        if let key, let found = try fetchOne(T.self, sql: SQL(text: state.selectByKey, values: key)) {
            return found
        }
        guard let rowid else { return nil }
        // The rowid under a name no column of the table takes.
        let columns = try insertProfile(ofTable: state.tableName)
        guard let name = ["rowid", "_rowid_", "oid"].first(where: { columns.index(ofColumn: $0) == nil }) else {
            return nil
        }
        return try fetchOne(T.self, sql: SQL(text: "SELECT * FROM \(state.table) WHERE \(name) = ?", values: [rowid]))
    }
}
