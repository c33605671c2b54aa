import CSQLite

/// What a ``ColumnWriter`` shares with every copy of it: the count of `encodeColumns(to:)` calls that
/// ended, and the plan a bulk insert's records of one shape follow.
///
/// A plan is learned from one record of a ``ColumnEncodable`` type, checked against its Codable form
/// (see ``RowEncoderCore``), that a batch bound whole: the coding keys its `encodeColumns(to:)` wrote, in
/// the order it wrote them, each with its parameter in its row of the multi-row statement (0 for a key
/// written NULL, which has none). A later record of the batch that writes the same keys in the same
/// order, each INTEGER or REAL where the plan has a parameter and NULL where it has none, binds each
/// value the moment it is written, to the plan's parameter in that record's row of the statement,
/// without storing it in the row's slots: see ``EncodedRow/bindFollowingPlan(_:forKey:writer:)``.
/// Anything else (another key, a key too many or too few, NULL where the plan binds, a value that
/// needs converting or is TEXT or a BLOB, an error) ends the record's following: the record is then
/// encoded again as any other, which binds it, checks it or finds it of another shape.
///
/// It lives in a ``FixedBox`` of ``EncodedRow``'s, whose safety argument it shares: the row makes it in
/// its `init` and frees it, and its entries, in its `deinit`.
struct ColumnPlan {
    /// One key of the plan and its parameter in the first row of the statement, 0 for a NULL.
    struct Entry {
        var key = ""
        var parameter: Int32 = 0
    }

    /// What the writers of the current record do with each value.
    enum Mode: UInt8 {
        /// Store it in the row's slots.
        case normal
        /// Store it, and note its key and its slot's parameter as the next entry of the plan.
        case learning
        /// Bind it to the plan's parameter, in the row ``rowOffset`` names.
        case following
        /// Nothing: the record left the plan, and is to be encoded again.
        case left
    }

    /// Counts the `encodeColumns(to:)` calls that ended: a ``ColumnWriter`` made during one holds the
    /// count it started with and refuses to write once it has changed.
    var writerGeneration: UInt64 = 0
    var mode = Mode.normal
    /// The next entry a following record writes; ``idle`` (above any count) when no record follows
    /// the plan, so that the writer's first comparison, the cursor's with ``count``, fails on every
    /// other record. A record follows only a plan that has a ``target``: a writer that passes that
    /// comparison binds to it without looking at it again.
    var cursor = Self.idle
    /// How many entries the plan has; 0 when there is none.
    var count = 0
    /// How many entries the record being learned wrote.
    var learned = 0
    /// Whether the record being learned wrote a value a plan cannot bind as it goes (TEXT or a BLOB,
    /// bound after the record) or more keys than the plan holds: no plan is made for the statement.
    var refused = false
    /// The statement the plan binds, and the parameters before the current record's row of it.
    var target: OpaquePointer?
    var rowOffset: Int32 = 0
    /// The plan's entries; the first ``count`` are the plan.
    var entries: FixedBuffer<Entry>

    /// The most keys a plan holds.
    static let capacity = 64
    /// The cursor while no record follows the plan.
    static let idle = Int.max

    init() {
        entries = .allocate(count: Self.capacity, repeating: Entry())
    }

    /// The parameter the plan gives the next key, in the statement's first row, when the record
    /// follows the plan, its next key is `key` and the writer's generation is `generation`; 0 when the
    /// key is written NULL, or otherwise (nothing is changed).
    func parameter(forKey key: String, writer generation: UInt64) -> Int32 {
        guard cursor < count, writerGeneration == generation else { return 0 }
        let entry = entries.place(at: cursor)
        guard entry.element.key == key else { return 0 }
        return entry.element.parameter
    }

    /// Whether the plan's next key is `key`, written NULL, with the writer's generation `generation`.
    func expectsNull(forKey key: String, writer generation: UInt64) -> Bool {
        guard cursor < count, writerGeneration == generation else { return false }
        let entry = entries.place(at: cursor)
        return entry.element.parameter == 0 && entry.element.key == key
    }

    /// Forgets the plan: the statement or its parameters changed.
    mutating func forget() {
        cursor = Self.idle
        count = 0
        refused = false
        target = nil
    }
}
