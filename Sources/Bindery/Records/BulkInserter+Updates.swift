/// Updates in batches. ``Connection/update(contentsOf:)`` runs each run of records of one shape through
/// the multi-row upsert of ``Connection/upsert(contentsOf:)`` (`INSERT … VALUES (…), (…), … ON
/// CONFLICT(key) DO UPDATE SET …`): SQLite applies its rows in order, each to the row with its key as
/// the UPDATE by key would (the same columns set, NULL where the record holds nil; the hooks see an
/// update), at about 0.6× the instructions of one UPDATE a record (callgrind, 10 INTEGER columns).
///
/// The two differ where a record's key no row has: the upsert inserts a row, where the update throws
/// ``RecordError/notFound(table:key:)``. A batch runs inside a savepoint of its own with the
/// connection's last inserted rowid set to ``noInsert``, a value no row the batch could insert gets:
/// when the rowid moved, or the batch changed other than one row a record, or it failed, the savepoint
/// is rolled back and the records are updated one by one, which throws the error of the record that
/// fails. Whatever happens, the last inserted rowid is put back as it was.
///
/// A row inserted with its rowid left to SQLite never gets `Int64.min` (SQLite picks one above the
/// largest, or a random positive one), so only a row whose rowid is given can: a record that sets the
/// rowid (its `INTEGER PRIMARY KEY`, or a column named `rowid`, `_rowid_` or `oid` that is no column of
/// the table) is batched only with an INTEGER other than `Int64.min` there.
///
/// Batches are made only where nothing else can tell the statements apart: a table with a rowid, in
/// `main` or `temp`, not virtual, with no trigger (an INSERT trigger would fire for the upsert), no key
/// column of REAL affinity (the INSERT would turn a large integer key into a nearby REAL, which the
/// UPDATE's comparison does not), and whose schema (the table's and its indexes' SQL) says nothing of
/// `CONFLICT` or `REPLACE` (a constraint's own conflict clause could resolve the upsert's INSERT
/// otherwise than the UPDATE), `COLLATE` (a unique index whose collation is not its column's would
/// match other keys than the UPDATE's `WHERE`) or `AUTOINCREMENT` (the INSERT would move the table's
/// sequence on even for a row it only updates). The schema's text is searched in Swift, where no
/// setting of the connection (`PRAGMA case_sensitive_like`) or function of the app can change the
/// answer. Anything the upsert checks that the update would not (a NOT NULL or CHECK constraint on the
/// row it would insert, a key that is no PRIMARY KEY or UNIQUE constraint) only fails the batch, whose
/// records then go one by one. The schema is read inside the update's transaction and again after a
/// schema change, which also sends the batch made before it one by one and makes the next batch anew.
extension BulkInserter {
    /// What lets a table be updated in batches, read from its schema.
    struct UpdateBatchTable {
        /// The connection's ``Connection/schemaGeneration`` when read.
        let schemaGeneration: UInt64
        /// Whether batches may run.
        var allowed: Bool
        /// The table's insert profile (its columns and rowid alias).
        let profile: TableInsertProfile
    }

    /// The last inserted rowid a batch starts with: no row it could insert gets it (see above).
    static let noInsert = Int64.min

    /// Updates `records` in order, in batches where they can be, and gives the others to `oneByOne` as
    /// ranges of indices, to be updated one by one in order. Inlined like the batch walk it calls
    /// (measured: `update(contentsOf:)` +6.5% in instructions without it).
    @inline(__always)
    func updateAll<C: RandomAccessCollection>(_ records: C, oneByOne: (Int, Int) throws -> Void) throws
    where C.Element: Encodable, C.Index == Int {
        try inBatches(
            records, run: { statement, index in try runUpdateBatch(statement) ? nil : index },
            oneByOne: { start, end in
                // The UPDATE's encoding must not bind into the batch.
                row.stopBinding()
                try oneByOne(start, end)
            })
    }

    /// Runs the bound batch inside its savepoint; returns whether it updated one row a record and
    /// inserted none. Otherwise the savepoint is rolled back and false returned.
    private func runUpdateBatch(_ statement: Statement) throws -> Bool {
        // A schema change made while the batch was encoded (by an `encode(to:)`) is seen here: the
        // batch's rowid columns were found under the old schema, so it is made again.
        let readAt = updateTable?.schemaGeneration
        guard try tableAllowsUpdateBatches(), updateTable?.schemaGeneration == readAt else {
            releaseBatch()
            return false
        }
        let rows = batchRows
        let lastRowID = connection.lastInsertRowID
        connection.setLastInsertRowID(Self.noInsert)
        defer { connection.setLastInsertRowID(lastRowID) }
        return try runInSavepoint(statement) {
            connection.lastInsertRowID == Self.noInsert && statement.changes == rows
        }
    }

    /// Whether the row just encoded may start an update batch: the table allows batches, the row has
    /// a value in every key column and at least one other column to set.
    func mayBatchUpdate() throws -> Bool {
        guard try tableAllowsUpdateBatches(), (try? state.keySlots(in: row)) != nil else { return false }
        return row.presentSlots(excluding: state.primaryKey).contains(true)
    }

    /// Whether the table allows update batches, read from the schema when not yet read or changed since.
    private func tableAllowsUpdateBatches() throws -> Bool {
        if let table = updateTable, table.schemaGeneration == connection.schemaGeneration {
            return table.allowed
        }
        let generation = connection.schemaGeneration
        let profile = try connection.insertProfile(ofTable: state.tableName)
        var allowed =
            profile.storesRowsAsGiven
            && !state.primaryKey.contains { key in
                profile.index(ofColumn: key).map { profile.columns[$0].keptKinds == Self.realAffinity } ?? false
            }
        if allowed {
            allowed = try !tableSchemaMentions(Self.refusedWords)
        }
        updateTable = UpdateBatchTable(schemaGeneration: generation, allowed: allowed, profile: profile)
        return allowed
    }

    /// Whether the SQL of the table, its indexes or its triggers (in `main` or `temp`) holds one of
    /// `words` (uppercase), in any case; true for SQL that is not text.
    func tableSchemaMentions(_ words: [String]) throws -> Bool {
        let texts = try connection.rows(
            "SELECT sql FROM main.sqlite_schema WHERE tbl_name = ?1 COLLATE NOCASE AND sql IS NOT NULL "
                + "UNION ALL SELECT sql FROM temp.sqlite_schema WHERE tbl_name = ?1 COLLATE NOCASE "
                + "AND sql IS NOT NULL",
            arguments: [.text(state.tableName)])
        return texts.contains { row in
            guard case .text(let sql) = row.values.first else { return true }
            let upper = FoldedIdentifier.asciiUppercased(sql)
            return words.contains { upper.contains($0) }
        }
    }

    /// The words of a table's schema that keep it from update batches (see above).
    private static let refusedWords = ["CONFLICT", "REPLACE", "COLLATE", "AUTOINCREMENT"]

    /// The kinds a column of REAL affinity keeps (``TableInsertProfile/keptKinds(declaredType:)``).
    private static let realAffinity = TableInsertProfile.keptKinds(declaredType: "REAL")

    /// Stops update batches until the schema changes.
    func refuseUpdateBatches() {
        updateTable?.allowed = false
    }

    /// The slots among `columns` (those the batch inserts) that set the rowid: the table's rowid alias,
    /// or `rowid`, `_rowid_` or `oid` where the table has no column of that name.
    func rowidSlots(among columns: [Bool]) -> [Int] {
        guard let profile = updateTable?.profile else { return [] }
        let names = row.columns
        return columns.indices.filter { slot in
            guard columns[slot] else { return false }
            let name = names[slot]
            if let alias = profile.rowidAlias, name.equalsIdentifier(alias) {
                return true
            }
            return Self.rowidNames.contains { name.equalsIdentifier($0) } && profile.index(ofColumn: name) == nil
        }
    }

    private static let rowidNames = ["rowid", "_rowid_", "oid"]

    /// Whether the row just encoded gives each column that sets the rowid (``batchRowidSlots``) an
    /// INTEGER other than ``noInsert``: true for every row unless updating (read from the constant
    /// ``updating`` first: the stored array would cost an access check on every record inserted).
    func hasBatchableRowid() -> Bool {
        !updating || rowidSlotsHoldBatchableRowids()
    }

    private func rowidSlotsHoldBatchableRowids() -> Bool {
        batchRowidSlots.allSatisfy { slot in
            guard case .integer(let rowid) = row.value(at: slot) else { return false }
            return rowid != Self.noInsert
        }
    }
}
