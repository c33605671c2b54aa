/// Updating and upserting many records in one call.
extension Connection {
    /// Updates the rows with the primary keys of `records`, each as ``update(_:)`` does (every other
    /// column written, NULL where a record holds nil), in one transaction (a savepoint inside an open
    /// transaction).
    ///
    /// Runs of records with the same columns (the same ones nil) go in batches of up to 100 through one
    /// multi-row `INSERT … ON CONFLICT(key) DO UPDATE`, which changes each row as the UPDATE by key
    /// would, and which is rolled back and replaced by the records one by one when one of them has no
    /// row (the upsert would have inserted it) or the batch fails; as with
    /// ``insert(contentsOf:onConflict:)``, the records of a batch undone are encoded a second time.
    /// Tables where the two statements could differ otherwise (a trigger, no rowid, a REAL key column,
    /// or `ON CONFLICT`, `REPLACE`, `COLLATE` or `AUTOINCREMENT` in the table's or its indexes' SQL) are
    /// updated one record at a time, through one UPDATE re-bound for each record of the same shape.
    ///
    /// All or nothing: ``RecordError/notFound(table:key:)`` for the first record whose key no row has,
    /// and any other error, leave every row as it was. An ``SQLiteError`` names the record's position in
    /// `records` (``SQLiteError/recordIndex``).
    ///
    /// ```swift
    /// try conn.update(contentsOf: students.map { var s = $0; s.year += 1; return s })
    /// ```
    public func update<S: Sequence>(contentsOf records: S) throws where S.Element: Record {
        let state = recordContext.state(for: S.Element.self)
        try transaction(.immediate) { conn in
            let batches = BulkInserter(connection: conn, state: state, policy: .abort, updating: true)
            defer { batches.finish() }
            let updater = BulkUpdater(connection: conn, state: state, encoder: batches.encoder)
            defer { updater.finish() }
            // An array's records are encoded where they lie, without a copy.
            let done = try records.withContiguousStorageIfAvailable { buffer in
                try batches.updateAll(buffer) { try updater.update(buffer, from: $0, to: $1, first: 0) }
                return true
            }
            if done == nil {
                try Self.inChunks(records) { chunk, first in
                    try batches.updateAll(chunk) { try updater.update(chunk, from: $0, to: $1, first: first) }
                }
            }
        }
    }

    /// Upserts `records`, each as ``upsert(_:)`` does (inserted, or, when a row has its primary key,
    /// every other column of that row updated), in one transaction (a savepoint inside an open
    /// transaction). Nothing is returned per record.
    ///
    /// Runs of records with the same columns (the same ones nil) go in batches of up to 100 through one
    /// multi-row `INSERT … ON CONFLICT(key) DO UPDATE`, which SQLite applies row by row in order, as the
    /// records one by one would be; the others go one by one. When a record fails, nothing is stored
    /// and the error is that record's, with its position in `records` (``SQLiteError/recordIndex``),
    /// as ``insert(contentsOf:onConflict:)`` does.
    ///
    /// ```swift
    /// try conn.upsert(contentsOf: fromServer)
    /// ```
    public func upsert<S: Sequence>(contentsOf records: S) throws where S.Element: Record {
        let state = recordContext.state(for: S.Element.self)
        try transaction(.immediate) { conn in
            let upserter = BulkInserter(connection: conn, state: state, policy: .abort, upserting: true)
            defer { upserter.finish() }
            let done = try records.withContiguousStorageIfAvailable { buffer in
                try upserter.insertAll(buffer, first: 0)
                return true
            }
            if done == nil {
                try Self.inChunks(records) { chunk, first in try upserter.insertAll(chunk, first: first) }
            }
        }
    }
}
