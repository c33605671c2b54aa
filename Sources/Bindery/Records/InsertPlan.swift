/// How `insert` runs a record's INSERT for one set of columns: whether the table stores the row as
/// given, so that a plain INSERT (no `RETURNING`) and the new rowid tell the row as stored, and, for
/// each slot of the encoded row, where its stored value comes from.
///
/// A plan is made from the table's ``TableInsertProfile`` when its plain INSERT statement is prepared,
/// and kept on that statement (its attachment) while SQLite does not re-prepare it and the connection
/// runs no statement that changes the schema. Its slots are those of one encoded row: it serves only
/// that row with the columns of one memo (``serves(_:memo:)``). Another record type, or another encoder of
/// the same type, can make the same INSERT text from a row whose slots are laid out otherwise (a
/// `Draft {note, score}` and a `Player {id, score}` both insert `("score")` when the first is nil): it
/// makes a plan of its own. A schema change made by another connection is seen only
/// when the statement steps and SQLite re-prepares it: `insert` then reads the row back as stored.
final class InsertPlan {
    /// The statement's re-prepare count when the plan was made.
    let reprepareCount: Int32
    /// The encoded row the plan was made for, whose slots ``slots`` describes (held, so that no other
    /// row can be allocated where it was while the plan lives).
    private let row: EncodedRow
    /// The memo of the INSERT the plan was made for (held, like ``row``, so that no other memo can be
    /// allocated where it was).
    private let memo: InsertMemo
    /// The slots of ``row`` the INSERT binds, ``memo``'s columns (one per slot: a row only ever adds
    /// slots, so an equal array means the same slots).
    private let columns: [Bool]
    /// The connection's ``Connection/schemaGeneration`` when the plan was made: a schema change made
    /// on the connection expires the statement, which SQLite re-prepares only when it next steps.
    let schemaGeneration: UInt64
    /// Whether rows of this shape can be inserted without `RETURNING`, when ``keepsValues(of:)``.
    let isPlain: Bool
    /// Where each slot's stored value comes from, one per slot of ``row``. The plan owns the buffer
    /// (freed in its `deinit`) and lends it to ``InsertedRowDecoder/decode(_:slots:rowid:)``, which
    /// keeps it only until it returns.
    let slots: FixedBuffer<InsertedRowDecoder.StoredSlot>
    /// The name that reads the rowid in this table (`rowid`, or `_rowid_` or `oid` when a column
    /// takes that name).
    let rowidName: String
    /// Whether every slot's stored value is known (no ``InsertedRowDecoder/StoredSlot/unknown``) and
    /// one slot is the table's `INTEGER PRIMARY KEY`, whose value is the rowid: what a
    /// ``StoredAsGiven`` record returned as given needs.
    let storesRowIDKnowingEverySlot: Bool
    /// Each bound slot and the kinds of value its column keeps (``TableInsertProfile/Column/keptKinds``),
    /// for the per-row affinity check.
    private let bound: [(slot: Int, keptKinds: UInt8)]
    /// The kinds of value every bound column keeps: a row whose values are all of these kinds
    /// (``EncodedRow/kinds``) is kept as given without a look at each value.
    private let keptByEveryColumn: UInt8

    /// The plan for inserting the slots of `row` marked in `memo`'s columns (its non-NULL ones) into the
    /// table of `profile`.
    init(
        profile: TableInsertProfile, row: EncodedRow, memo: InsertMemo, reprepareCount: Int32,
        schemaGeneration: UInt64
    ) {
        self.reprepareCount = reprepareCount
        self.schemaGeneration = schemaGeneration
        self.row = row
        self.memo = memo
        let columns = memo.columns
        self.columns = columns
        var isPlain = profile.storesRowsAsGiven
        var hasRowIDSlot = false
        var slots: [InsertedRowDecoder.StoredSlot] = []
        slots.reserveCapacity(row.count)
        var bound: [(slot: Int, keptKinds: UInt8)] = []
        let names = row.columns
        for slot in names.indices {
            let column = profile.index(ofColumn: names[slot])
            let isRowID = profile.rowidAlias.map { FoldedIdentifier.same($0, names[slot]) } ?? false
            hasRowIDSlot = hasRowIDSlot || isRowID
            if slot < columns.count && columns[slot] {
                guard let column else {
                    isPlain = false  // the INSERT names a column the table does not have: it fails
                    slots.append(.unknown)
                    continue
                }
                slots.append(.bound)
                bound.append((slot, profile.columns[column].keptKinds))
            } else if let column {
                if isRowID {
                    slots.append(.rowid)
                } else if profile.columns[column].fillsItself {
                    isPlain = false  // a DEFAULT or a generated value: only the stored row tells it
                    slots.append(.unknown)
                } else {
                    slots.append(.null)
                }
            } else {
                slots.append(.unknown)  // not a column of the table: the decoder gives up if asked
            }
        }
        let rowidName = ["rowid", "_rowid_", "oid"].first { name in profile.index(ofColumn: name) == nil }
        self.rowidName = rowidName ?? ""
        self.isPlain = isPlain && rowidName != nil
        self.storesRowIDKnowingEverySlot = hasRowIDSlot && !slots.contains(.unknown)
        self.slots = .allocate(copying: slots)
        self.bound = bound
        self.keptByEveryColumn = bound.reduce(UInt8.max) { $0 & $1.keptKinds }
    }

    deinit {
        slots.deallocate()
    }

    /// Whether the plan was made for `row` binding the slots marked in `memo`'s columns: its slot map
    /// then describes the row. Usually two identity comparisons: a memo's columns never change, so the
    /// same memo means the same slots. A record type keeps only its last memo, so rows of two shapes in
    /// turn make a new memo with the same columns each time: the columns are then compared.
    func serves(_ row: EncodedRow, memo: InsertMemo) -> Bool {
        self.row === row && (self.memo === memo || columns == memo.columns)
    }

    /// Whether the table stores every bound value of `row` unchanged (no affinity conversion).
    @inline(__always)
    func keepsValues(of row: EncodedRow) -> Bool {
        let kinds = row.kinds
        if kinds & keptByEveryColumn == kinds {
            return true
        }
        for (slot, keptKinds) in bound where !TableInsertProfile.keeps(row.value(at: slot), keptKinds: keptKinds) {
            return false
        }
        return true
    }
}

/// The non-NULL columns of a record `insert` ran, its conflict policy, and its two INSERTs: the plain
/// one and the one ending in `RETURNING *`.
final class InsertMemo {
    let columns: [Bool]
    let policy: ConflictPolicy
    let plainSQL: String
    let returningSQL: String
    /// The connection's ``Connection/schemaGeneration`` at which a plan found that rows of this shape
    /// need `RETURNING *` whatever their values (a DEFAULT, a trigger, …): until the connection changes
    /// the schema, `insert` goes straight to `RETURNING *`. (A schema change made elsewhere may keep it
    /// there longer than needed, which is never wrong.)
    var needsReturningAt: UInt64?
    /// The parameter of each slot in either statement: the slots marked in `columns`, in order.
    let parameters: SlotParameterMap
    /// A number naming `columns` among the memos of its record type's row, for
    /// ``EncodedRow/bindDirectly(to:slots:layout:)``.
    let layout: UInt64

    init(columns: [Bool], policy: ConflictPolicy, plainSQL: String, returningSQL: String, layout: UInt64) {
        self.layout = layout
        self.columns = columns
        self.policy = policy
        self.plainSQL = plainSQL
        self.returningSQL = returningSQL
        self.parameters = SlotParameterMap(columns: columns, keySlots: [])
    }
}
