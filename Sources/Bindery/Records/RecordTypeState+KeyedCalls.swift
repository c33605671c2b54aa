/// What the calls made one record at a time (`insert`, `update`, `upsert`, `delete`) keep from one
/// record to the next: the columns and SQL of the last shape of row, and where the key columns are in
/// the row.
///
/// Each is kept only for ``RecordTypeState/encoder``'s row, whose slots name the same columns from one
/// record to the next; a row of another encoder (an operation started inside one under way) is
/// planned afresh every time, as before.
extension RecordTypeState {
    /// An update of every column of a row but the key.
    final class UpdatePlan {
        /// Which slots the row had (``EncodedRow/present``).
        let present: [Bool]
        /// The UPDATE, or nil when there is no column to set (the update only has to find the row).
        let sql: String?
        /// The slots of the key columns, in key order.
        let keySlots: [Int]
        /// The parameter of each slot in `sql`: the columns set (every slot present that is not a key
        /// column), then the key columns.
        let parameters: SlotParameterMap

        init(present: [Bool], columns: [Bool], sql: String?, keySlots: [Int]) {
            self.present = present
            self.sql = sql
            self.keySlots = keySlots
            self.parameters = SlotParameterMap(columns: columns, keySlots: keySlots)
        }
    }

    /// An upsert of a row.
    struct UpsertPlan {
        /// Which slots the row had (``EncodedRow/present``).
        let present: [Bool]
        /// Which slots the row had a value other than NULL in: the inserted columns.
        let nonNull: [Bool]
        /// The `INSERT … ON CONFLICT … RETURNING *`.
        let sql: String
    }

    /// The insert of `row` under `policy`: the last one when the row has the same non-NULL slots and
    /// the policy is the same.
    @inline(__always)
    func insertPlan(for row: EncodedRow, policy: ConflictPolicy) -> InsertMemo {
        if let memo = lastInsertPlan(for: row, policy: policy), row.nonNullSlotsEqual(memo.columns) {
            return memo
        }
        return newInsertPlan(for: row, policy: policy)
    }

    /// The last insert of `row` under `policy`, whatever the row's non-NULL slots: the memo kept for
    /// ``encoder``'s row with the same policy, or nil.
    @inline(__always)
    func lastInsertPlan(for row: EncodedRow, policy: ConflictPolicy) -> InsertMemo? {
        lastInsertLent(for: row, policy: policy)?.object
    }

    /// ``lastInsertPlan(for:policy:)`` lent without counting a reference: the memo stays
    /// ``lastInsert``, and alive, while the caller holds ``encoder`` and the state (only an insert of
    /// ``encoder``'s row replaces it).
    @inline(__always)
    func lastInsertLent(for row: EncodedRow, policy: ConflictPolicy) -> Lent<InsertMemo>? {
        guard let lent = lastInsertLent, row === encoder.row, lent.with({ $0.policy == policy }) else { return nil }
        return lent
    }

    @inline(never)
    private func newInsertPlan(for row: EncodedRow, policy: ConflictPolicy) -> InsertMemo {
        let columns = row.nonNullSlots
        insertLayouts &+= 1
        let memo = InsertMemo(
            columns: columns, policy: policy,
            plainSQL: insert(row: row, columns: columns, policy: policy, returning: false),
            returningSQL: insert(row: row, columns: columns, policy: policy, returning: true), layout: insertLayouts)
        if row === encoder.row {
            lastInsert = memo
        }
        return memo
    }

    /// The update of `row`: the last one when the row has the same slots as the last row updated.
    /// Throws ``RecordError/missingPrimaryKey(table:column:)`` as ``keySlots(in:)`` does.
    @inline(__always)
    func updatePlan(for row: EncodedRow) throws -> UpdatePlan {
        if let plan = lastUpdate, row === encoder.row, row.presentSlotsEqual(plan.present) {
            for (index, slot) in plan.keySlots.enumerated() where !row.isNonNull(slot) {
                throw RecordError.missingPrimaryKey(table: tableName, column: primaryKey[index])
            }
            return plan
        }
        return try newUpdatePlan(for: row)
    }

    @inline(never)
    private func newUpdatePlan(for row: EncodedRow) throws -> UpdatePlan {
        let keySlots = try keySlots(in: row)
        let columns = row.presentSlots(excluding: primaryKey)
        let sql = columns.contains(true) ? update(row: row, columns: columns) : nil
        let plan = UpdatePlan(present: row.present, columns: columns, sql: sql, keySlots: keySlots)
        if row === encoder.row {
            lastUpdate = plan
        }
        return plan
    }

    /// The upsert of `row`: the last one when the row has the same slots, NULL in the same ones, as the
    /// last row upserted.
    @inline(__always)
    func upsertPlan(for row: EncodedRow) -> UpsertPlan {
        if let plan = lastUpsert, row === encoder.row, row.nonNullSlotsEqual(plan.nonNull),
            row.presentSlotsEqual(plan.present)
        {
            return plan
        }
        return newUpsertPlan(for: row)
    }

    @inline(never)
    private func newUpsertPlan(for row: EncodedRow) -> UpsertPlan {
        let nonNull = row.nonNullSlots
        let present = row.present
        let plan = UpsertPlan(
            present: present, nonNull: nonNull, sql: upsert(row: row, nonNull: nonNull, present: present))
        if row === encoder.row {
            lastUpsert = plan
        }
        return plan
    }

    /// The slots of the primary-key columns in `row`, in key order, each checked to hold a value other
    /// than NULL: ``RecordError/missingPrimaryKey(table:column:)`` names the first key column that is
    /// not one of the row's, not encoded or NULL, as ``primaryKeyValues(in:)`` does.
    @inline(__always)
    func keySlots(in row: EncodedRow) throws -> [Int] {
        if let slots = sharedKeySlots, row === encoder.row {
            for index in slots.indices where !row.isNonNull(slots[index]) {
                throw RecordError.missingPrimaryKey(table: tableName, column: primaryKey[index])
            }
            return slots
        }
        return try findKeySlots(in: row)
    }

    @inline(never)
    private func findKeySlots(in row: EncodedRow) throws -> [Int] {
        let columns = row.columns
        let found = primaryKey.map { name in columns.firstIndex { $0.equalsIdentifier(name) } }
        var slots: [Int] = []
        for (index, slot) in found.enumerated() {
            guard let slot, row.isNonNull(slot) else {
                throw RecordError.missingPrimaryKey(table: tableName, column: primaryKey[index])
            }
            slots.append(slot)
        }
        if row === encoder.row {
            sharedKeySlots = slots
        }
        return slots
    }

    /// The values of `row` in `slots`, for an error that names the key.
    func values(in row: EncodedRow, slots: [Int]) -> [SQLiteValue] {
        slots.map { row.value(at: $0) }
    }
}
