import CSQLite

/// The columns and values of one encoded row, reused from one record to the next.
///
/// Slots are learned from the first value encoded, in the order its keys arrive; later values of the
/// same type find their slot by key tag (see ``KeyTagTable``) or, failing that, with one string
/// comparison against the predicted slot. The values live in a ``FixedBox`` and ``FixedBuffer``s that
/// the row owns (made in its `init`, freed in its `deinit`), so that writing one costs no exclusivity
/// check.
///
/// A bulk insert, or `insert` of one record of the last shape inserted, can also aim the row at its
/// statement (``bindDirectly(to:slots:startingAt:)``): each INTEGER or REAL value is then bound the
/// moment it is encoded, and ``isBound(to:)`` says afterwards whether the row had the statement's
/// shape, so that nothing is left to bind.
final class EncodedRow {
    private struct Storage {
        /// How many slots are learned: the first `count` of ``slots`` and ``keys`` (the others hold
        /// `Slot()` and "", room for the next keys).
        var count = 0
        var cursor = 0
        /// Each slot's value, parameter and row number, side by side so that setting one value reaches
        /// them in one place.
        var slots: FixedBuffer<Slot>
        /// The row being encoded: a slot is present when its `row` equals it, so starting a row is one
        /// increment.
        var generation: UInt64 = 1
        /// The coding key of each slot; in a buffer so that comparing one retains nothing.
        var keys: FixedBuffer<String>
        /// Whether two learned keys are equal as `String`s but differ in their bytes (Unicode
        /// normalization: "é" composed and decomposed), so that a predicted key must be confirmed byte
        /// for byte too.
        var hasEquivalentKeys = false
        var columns: [String] = []
        /// The statement values are bound to as they are encoded, or nil.
        var target: OpaquePointer?
        /// How many slots are parameters of `target`.
        var parameterCount = 0
        /// Added to each slot's parameter: the parameters of the row's earlier rows in a multi-row
        /// statement (see ``aim(atRowOffset:)``); 0 otherwise.
        var rowOffset: Int32 = 0
        /// How many parameters of `target` the current row has given a value.
        var bound = 0
        /// Whether a parameter of the current row holds TEXT or a BLOB, which is bound afterwards.
        var deferred = false
        /// Whether the current row does not have `target`'s shape (a NULL where it has a parameter,
        /// a value where it has none, a slot encoded twice).
        var offShape = false
        /// The layout the slots' parameters were last set from (see ``bindDirectly(to:slots:layout:)``);
        /// 0 when they were set otherwise.
        var layout: UInt64 = 0
        /// The kinds of value set in the current row, one bit each (``TableInsertProfile/keptKindBit(of:)``).
        var kinds: UInt8 = 0
    }

    /// One slot: the value last encoded for it, the row it was encoded in and its parameter in the
    /// target statement (0 for a slot that is not one of its columns).
    private struct Slot {
        var value: SQLiteValue = .null
        var parameter: Int32 = 0
        var row: UInt64 = 0
    }

    /// The row's state; the row owns it and its two buffers, and frees them in its `deinit`.
    private let storage: FixedBox<Storage>
    /// What the ``ColumnWriter``s of the row share, and the plan of a bulk insert's records (see
    /// `EncodedRow+Plan.swift`); the row owns it and its entries, and frees them in its `deinit`.
    let plan: FixedBox<ColumnPlan>
    private let options: CodingOptions
    /// The conversions of the encoder that owns the row, for ``ColumnWriter``.
    let conversions: ValueEncoder

    init(options: CodingOptions, values: ValueEncoder) {
        self.options = options
        self.conversions = values
        let capacity = 16
        storage = .allocate(
            Storage(
                slots: .allocate(count: capacity, repeating: Slot()), keys: .allocate(count: capacity, repeating: "")))
        plan = .allocate(ColumnPlan())
    }

    deinit {
        plan.value.entries.deallocate()
        plan.deallocate()
        storage.value.slots.deallocate()
        storage.value.keys.deallocate()
        storage.deallocate()
    }

    /// How many slots (columns) have been learned.
    @inline(__always)
    var count: Int { storage.value.count }

    /// The column names, one per slot.
    var columns: [String] { storage.value.columns }

    /// The value of `slot` in the current row; `.null` where nothing was encoded.
    @inline(__always)
    func value(at slot: Int) -> SQLiteValue {
        storage.value.slots[slot].value
    }

    /// Whether `slot` was encoded in the current row (a key skipped by a custom `encode(to:)` was not).
    @inline(__always)
    func isPresent(_ slot: Int) -> Bool {
        storage.value.slots[slot].row == storage.value.generation
    }

    /// Whether `slot` was encoded with a value other than NULL.
    @inline(__always)
    func isNonNull(_ slot: Int) -> Bool {
        let slots = storage.value.slots
        guard slots[slot].row == storage.value.generation else { return false }
        if case .null = slots[slot].value { return false }
        return true
    }

    /// The values of the current row, in slot order; `.null` where nothing was encoded.
    var values: [SQLiteValue] {
        (0..<count).map { isPresent($0) ? value(at: $0) : .null }
    }

    /// Whether each slot was encoded in the current row.
    var present: [Bool] {
        (0..<count).map(isPresent)
    }

    /// Forgets the values of the previous row, keeping the learned slots. The old values stay in
    /// memory until overwritten, but no slot counts as present any more.
    @inline(__always)
    func startRow() {
        storage.value.generation &+= 1
        storage.value.cursor = 0
        storage.value.bound = 0
        storage.value.deferred = false
        storage.value.offShape = false
        storage.value.kinds = 0
    }

    /// The kinds of value set in the current row, one bit each (``TableInsertProfile/keptKindBit(of:)``),
    /// whatever their slots: a plan whose columns all keep these kinds keeps every value of the row.
    @inline(__always)
    var kinds: UInt8 { storage.value.kinds }

    /// Stores `value` in `slot`, and predicts the next key's slot to be the one after it (see
    /// ``slot(forKey:)``).
    @inline(__always)
    func set(_ value: SQLiteValue, slot: Int) {
        set(value, in: storage.value.slots.place(at: slot))
        storage.value.cursor = slot &+ 1
    }

    /// Stores `value` in the slot a key tag table gave, `known`, and returns true; returns false, having
    /// stored nothing, when the table knew no slot for the tag (`known` is negative). The prediction of
    /// string keys' slots is left as it is.
    ///
    /// A known slot is always below ``count`` (so within the slot buffer): the row hands out no other
    /// slot number (``slot(forKey:)`` returns a learned slot, or the one it has just added), the tag
    /// tables hold only numbers it returned, for this same row, and a row never forgets a slot. One
    /// unsigned comparison with the buffer's count tells both "known" and "within the buffer"
    /// (``FixedBuffer/place(ifWithin:)``).
    @inline(__always)
    func set(_ value: SQLiteValue, ifKnownSlot known: Int) -> Bool {
        guard let entry = storage.value.slots.place(ifWithin: known) else { return false }
        set(value, in: entry)
        return true
    }

    /// Stores `value` in the slot at `entry`. An old value that holds nothing to release (NULL, an
    /// INTEGER, a REAL) is written over without the generic destroy, which would cost a call per value.
    @inline(__always)
    private func set(_ value: SQLiteValue, in entry: FixedBuffer<Slot>.Place) {
        if let target = storage.value.target {
            bindNow(value, entry, to: target)
        }
        storage.value.kinds |= TableInsertProfile.keptKindBit(of: value)
        let generation = storage.value.generation
        switch entry.element.value {
        case .null, .integer, .real:
            entry.overwrite(with: Slot(value: value, parameter: entry.element.parameter, row: generation))
        case .text, .blob:
            entry.element.value = value
            entry.element.row = generation
        }
    }

    /// Stores `value` for the coding key `key`; returns its slot.
    @discardableResult
    @inline(__always)
    func set(_ value: SQLiteValue, forKey key: String) -> Int {
        let slot = self.slot(forKey: key)
        set(value, slot: slot)
        return slot
    }

    /// The slot of the coding key `key`: the one after the last slot set, confirmed with one string
    /// comparison, or else found by ``lookUpSlot(_:)``.
    @inline(__always)
    func slot(forKey key: String) -> Int {
        let cursor = storage.value.cursor
        if cursor < storage.value.count && storage.value.keys[cursor] == key
            && (!storage.value.hasEquivalentKeys || storage.value.keys[cursor].utf8.elementsEqual(key.utf8))
        {
            return cursor
        }
        return lookUpSlot(key)
    }

    /// The slot of the coding key `key` when it is not the predicted one, learned on first sight.
    @inline(never)
    private func lookUpSlot(_ key: String) -> Int {
        existingSlot(forKey: key) ?? addSlot(key)
    }

    /// The slot learned for the coding key `key`, or nil when none was (nothing is learned). Keys are
    /// told apart by their bytes, as SQLite tells column names apart: two keys that `String` equality
    /// calls equal (Unicode normalization) are two columns.
    func existingSlot(forKey key: String) -> Int? {
        (0..<storage.value.count).first {
            storage.value.keys[$0] == key && storage.value.keys[$0].utf8.elementsEqual(key.utf8)
        }
    }

    private func addSlot(_ key: String) -> Int {
        let count = storage.value.count
        if (0..<count).contains(where: { storage.value.keys[$0] == key }) {
            storage.value.hasEquivalentKeys = true
        }
        if count == storage.value.slots.count {
            storage.value.slots = storage.value.slots.grown(to: count * 2, filling: Slot())
            storage.value.keys = storage.value.keys.grown(to: count * 2, filling: "")
        }
        storage.value.keys[count] = key
        storage.value.columns.append(options.columnName(forKey: key))
        storage.value.count = count + 1
        return count
    }

    /// The (column, value) pairs encoded in the current row, in slot order.
    var pairs: [(column: String, value: SQLiteValue)] {
        (0..<count).filter(isPresent).map { (storage.value.columns[$0], value(at: $0)) }
    }

    /// Whether ``present`` equals `slots`, without building it.
    @inline(__always)
    func presentSlotsEqual(_ slots: [Bool]) -> Bool {
        let count = storage.value.count
        guard slots.count == count else { return false }
        let entries = storage.value.slots
        let generation = storage.value.generation
        for slot in slots.indices where slots[slot] != (entries[slot].row == generation) {
            return false
        }
        return true
    }

    /// The generation of the ``ColumnWriter`` now writing (see ``endWriter()``).
    @inline(__always)
    var writerGeneration: UInt64 { plan.value.writerGeneration }

    /// Ends the current ``ColumnWriter``: it may not write any more.
    @inline(__always)
    func endWriter() {
        plan.value.writerGeneration &+= 1
    }

    /// For each slot, whether it was encoded with a value other than NULL.
    var nonNullSlots: [Bool] {
        (0..<count).map(isNonNull)
    }

    /// Whether ``nonNullSlots`` equals `slots`, without building it.
    @inline(__always)
    func nonNullSlotsEqual(_ slots: [Bool]) -> Bool {
        let count = storage.value.count
        guard slots.count == count else { return false }
        for slot in slots.indices where slots[slot] != isNonNull(slot) {
            return false
        }
        return true
    }

    /// For each slot, whether it was encoded and its column is not one of `excluded` (compared as
    /// SQLite compares names, ignoring ASCII case only).
    func presentSlots(excluding excluded: [String]) -> [Bool] {
        (0..<count).map { slot in
            isPresent(slot) && !excluded.contains { FoldedIdentifier.same($0, storage.value.columns[slot]) }
        }
    }

    /// Binds the values of the slots marked in `slots` to consecutive parameters of `statement`,
    /// from parameter `first`; returns the next parameter index. A slot not encoded in this row still
    /// holds an earlier row's value: it binds NULL.
    @discardableResult
    func bind(to statement: Statement, slots: [Bool], startingAt first: Int32) throws -> Int32 {
        let count = min(storage.value.count, slots.count)
        var index = first
        for slot in slots.indices.prefix(count) where slots[slot] {
            try statement.bindFast(isPresent(slot) ? value(at: slot) : .null, at: index)
            index += 1
        }
        return index
    }

    /// Binds the value of each slot to its parameter in `map` (a slot whose parameter is 0 is not
    /// bound), in one pass; a slot not encoded in this row still holds an earlier row's value: it binds
    /// NULL. Each slot may be bound once only: a key column that is also a set column needs
    /// ``bind(to:slots:startingAt:)``.
    func bind(to statement: Statement, parameters map: SlotParameterMap) throws {
        let count = min(storage.value.count, map.count)
        let generation = storage.value.generation
        let parameters = map.parameters
        let handle = statement.handle
        let entries = storage.value.slots
        for slot in 0..<count {
            let parameter = parameters[slot]
            guard parameter > 0 else { continue }
            let code: Int32
            if entries[slot].row != generation {
                code = sqlite3_bind_null(handle, parameter)
            } else {
                // Matched in place: an INTEGER or a REAL is bound without copying the value out.
                switch entries[slot].value {
                case .integer(let int): code = sqlite3_bind_int64(handle, parameter, int)
                case .real(let double): code = sqlite3_bind_double(handle, parameter, double)
                case .null: code = sqlite3_bind_null(handle, parameter)
                case .text, .blob:
                    try statement.bind(entries[slot].value, at: parameter)
                    continue
                }
            }
            if code != SQLITE_OK {
                try statement.check(code, index: parameter)
            }
        }
    }

    // MARK: Binding as values are encoded

    /// Binds `value`, just encoded for `slot`, to the target statement when it is an INTEGER or a REAL
    /// in one of its columns, and keeps count of whether the row still has the statement's shape.
    @inline(__always)
    private func bindNow(_ value: SQLiteValue, _ entry: FixedBuffer<Slot>.Place, to target: OpaquePointer) {
        let parameter = entry.element.parameter
        if entry.element.row == storage.value.generation {
            storage.value.offShape = true  // encoded twice: the slow path binds the last value
            return
        }
        let inShape: Bool
        switch value {
        case .integer(let int):
            inShape =
                parameter > 0 && sqlite3_bind_int64(target, parameter &+ storage.value.rowOffset, int) == SQLITE_OK
        case .real(let double):
            inShape =
                parameter > 0 && sqlite3_bind_double(target, parameter &+ storage.value.rowOffset, double) == SQLITE_OK
        case .null:
            storage.value.offShape = storage.value.offShape || parameter > 0
            return
        case .text, .blob:
            inShape = parameter > 0
            storage.value.deferred = true
        }
        if inShape {
            storage.value.bound &+= 1
        } else {
            storage.value.offShape = true
        }
    }

    /// From the next row on, binds each INTEGER and REAL value to `statement` as it is encoded: the
    /// slots marked in `slots` are its parameters, consecutive from `first`. The statement must stay
    /// checked out until ``stopBinding()``.
    func bindDirectly(to statement: Statement, slots: [Bool], startingAt first: Int32) {
        plan.value.forget()
        storage.value.layout = 0
        storage.value.rowOffset = 0
        var index = first
        for slot in 0..<storage.value.count {
            if slot < slots.count && slots[slot] {
                storage.value.slots[slot].parameter = index
                index += 1
            } else {
                storage.value.slots[slot].parameter = 0
            }
        }
        storage.value.parameterCount = Int(index - first)
        storage.value.target = statement.handle
    }

    /// ``bindDirectly(to:slots:startingAt:)`` from parameter 1, for the slots marked in `slots`, which
    /// `layout` names: a number other than 0 that names no other set of slots for this row. When the
    /// slots' parameters were last set for `layout`, they are not set again.
    @inline(__always)
    func bindDirectly(to statement: Statement, slots: [Bool], layout: UInt64) {
        guard storage.value.layout == layout else {
            bindDirectly(to: statement, slots: slots, startingAt: 1)
            storage.value.layout = layout
            return
        }
        storage.value.target = statement.handle
    }

    /// Stops binding values as they are encoded.
    func stopBinding() {
        plan.value.forget()
        storage.value.target = nil
        storage.value.rowOffset = 0
    }

    /// Aims the next rows at the parameters after the first `offset` of the target statement: in a
    /// multi-row INSERT, the row of that statement whose parameters start at `offset + 1`.
    /// ``bindDirectly(to:slots:startingAt:)`` and ``stopBinding()`` set it back to 0.
    func aim(atRowOffset offset: Int32) {
        storage.value.rowOffset = offset
    }

    /// The statement values are bound to as they are encoded, and the parameters before the current
    /// row's (see ``aim(atRowOffset:)``).
    var target: OpaquePointer? { storage.value.target }
    var rowOffset: Int32 { storage.value.rowOffset }

    /// Whether two learned keys are equal as `String`s but differ in their bytes (see ``slot(forKey:)``).
    var hasEquivalentKeys: Bool { storage.value.hasEquivalentKeys }

    /// The parameter of `slot` in the first row of the target statement; 0 for none.
    func parameter(ofSlot slot: Int) -> Int32 {
        storage.value.slots[slot].parameter
    }

    /// How many parameters of the target statement one row binds (see
    /// ``bindDirectly(to:slots:startingAt:)``).
    var parametersPerRow: Int { storage.value.parameterCount }

    /// Whether the current row was bound to `statement` as it was encoded, every one of its parameters
    /// and nothing else; TEXT and BLOB values still need ``bindDeferred(to:)``.
    @inline(__always)
    func isBound(to statement: Statement) -> Bool {
        storage.value.target == statement.handle && !storage.value.offShape
            && storage.value.bound == storage.value.parameterCount
    }

    /// Whether the current row holds TEXT or BLOB parameters, which ``bindDeferred(to:)`` binds.
    @inline(__always)
    var hasDeferredValues: Bool { storage.value.deferred }

    /// Binds the TEXT and BLOB values of a row that ``isBound(to:)`` `statement`, at the parameters
    /// its row of the statement has (see ``aim(atRowOffset:)``).
    func bindDeferred(to statement: Statement) throws {
        let offset = storage.value.rowOffset
        for slot in 0..<storage.value.count {
            let parameter = storage.value.slots[slot].parameter
            guard parameter > 0 else { continue }
            let value = storage.value.slots[slot].value
            switch value {
            case .text, .blob: try statement.bind(value, at: parameter &+ offset)
            case .integer, .real, .null: continue
            }
        }
    }
}
