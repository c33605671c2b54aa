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
extension Connection {
    /// Whether a trigger program changed a row since ``totalChanges`` was `before`, by a one-row
    /// statement that changed at most one row itself.
    func triggersChangedRows(since before: Int) -> Bool {
        totalChanges &- before > 1
    }

    /// The row `returned` (a row `RETURNING *` gave) as stored now, found by its primary key; nil when
    /// the row cannot be found again: a trigger deleted it or changed its key, or the record has no
    /// primary-key value (what `RETURNING` gave is then kept).
    func storedAfterTriggers<T: Record>(_ returned: T, state: RecordTypeState) throws -> T? {
        // The key is encoded with an encoder of its own: the caller's is in use (see RecordTypeState).
        let key = try state.withEncoder { encoder -> [SQLiteValue]? in
            try encoder.encodeRow(returned)
            return try? state.primaryKeyValues(in: encoder.row)
        }
        guard let key else { return nil }
        return try fetchOne(T.self, sql: SQL(text: state.selectByKey, values: key))
    }
}
