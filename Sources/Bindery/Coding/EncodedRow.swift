import CSQLite

/// The columns and values of one encoded row, reused from one record to the next.
///
/// Slots are learned from the first value encoded, in the order its keys arrive; later values of the
/// same type find their slot by key tag (see ``KeyTagTable``) or, failing that, with one string
/// comparison against the predicted slot. The values live behind a pointer so that writing one costs
/// no exclusivity check.
final class EncodedRow {
    private struct Storage {
        var count = 0
        var capacity = 0
        var cursor = 0
        var values: UnsafeMutablePointer<SQLiteValue>
        /// The row number in which each slot was last encoded: a slot is present when it equals
        /// `generation`, so starting a row is one increment.
        var present: UnsafeMutablePointer<UInt64>
        var generation: UInt64 = 1
        var keys: [String] = []
        var columns: [String] = []
    }

    private let storage: UnsafeMutablePointer<Storage>
    private let options: CodingOptions

    init(options: CodingOptions) {
        self.options = options
        let capacity = 16
        let values = UnsafeMutablePointer<SQLiteValue>.allocate(capacity: capacity)
        let present = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage(capacity: capacity, values: values, present: present))
    }

    deinit {
        storage.pointee.values.deinitialize(count: storage.pointee.count)
        storage.pointee.values.deallocate()
        storage.pointee.present.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// How many slots (columns) have been learned.
    @inline(__always)
    var count: Int { storage.pointee.count }

    /// The column names, one per slot.
    var columns: [String] { storage.pointee.columns }

    /// The value of `slot` in the current row; `.null` where nothing was encoded.
    @inline(__always)
    func value(at slot: Int) -> SQLiteValue {
        storage.pointee.values[slot]
    }

    /// Whether `slot` was encoded in the current row (a key skipped by a custom `encode(to:)` was not).
    @inline(__always)
    func isPresent(_ slot: Int) -> Bool {
        storage.pointee.present[slot] == storage.pointee.generation
    }

    /// Whether `slot` was encoded with a value other than NULL.
    @inline(__always)
    func isNonNull(_ slot: Int) -> Bool {
        guard storage.pointee.present[slot] == storage.pointee.generation else { return false }
        if case .null = storage.pointee.values[slot] { return false }
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
        storage.pointee.generation &+= 1
        storage.pointee.cursor = 0
    }

    /// Stores `value` in `slot`.
    @inline(__always)
    func set(_ value: SQLiteValue, slot: Int) {
        storage.pointee.values[slot] = value
        storage.pointee.present[slot] = storage.pointee.generation
        storage.pointee.cursor = slot + 1
    }

    /// Stores `value` for the coding key `key`; returns its slot.
    @discardableResult
    func set(_ value: SQLiteValue, forKey key: String) -> Int {
        let slot = self.slot(forKey: key)
        set(value, slot: slot)
        return slot
    }

    /// The slot of the coding key `key`, learned on first sight.
    func slot(forKey key: String) -> Int {
        let cursor = storage.pointee.cursor
        if cursor < storage.pointee.count && storage.pointee.keys[cursor] == key {
            return cursor
        }
        if let index = storage.pointee.keys.firstIndex(of: key) {
            return index
        }
        return addSlot(key)
    }

    private func addSlot(_ key: String) -> Int {
        let count = storage.pointee.count
        if count == storage.pointee.capacity {
            let capacity = count * 2
            let values = UnsafeMutablePointer<SQLiteValue>.allocate(capacity: capacity)
            values.moveInitialize(from: storage.pointee.values, count: count)
            storage.pointee.values.deallocate()
            let present = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
            present.moveInitialize(from: storage.pointee.present, count: count)
            storage.pointee.present.deallocate()
            storage.pointee.values = values
            storage.pointee.present = present
            storage.pointee.capacity = capacity
        }
        (storage.pointee.values + count).initialize(to: .null)
        (storage.pointee.present + count).initialize(to: 0)
        storage.pointee.keys.append(key)
        storage.pointee.columns.append(options.columnName(forKey: key))
        storage.pointee.count = count + 1
        return count
    }

    /// The (column, value) pairs encoded in the current row, in slot order.
    var pairs: [(column: String, value: SQLiteValue)] {
        (0..<count).filter(isPresent).map { (storage.pointee.columns[$0], value(at: $0)) }
    }

    /// For each slot, whether it was encoded with a value other than NULL.
    var nonNullSlots: [Bool] {
        (0..<count).map(isNonNull)
    }

    /// Whether ``nonNullSlots`` equals `slots`, without building it.
    @inline(__always)
    func nonNullSlotsEqual(_ slots: [Bool]) -> Bool {
        let count = storage.pointee.count
        guard slots.count == count else { return false }
        return slots.withUnsafeBufferPointer { slots in
            for slot in 0..<count where slots[slot] != isNonNull(slot) {
                return false
            }
            return true
        }
    }

    /// For each slot, whether it was encoded and its column is not one of `excluded` (compared
    /// case-insensitively).
    func presentSlots(excluding excluded: [String]) -> [Bool] {
        let lowered = Set(excluded.map { $0.lowercased() })
        return (0..<count).map { isPresent($0) && !lowered.contains(storage.pointee.columns[$0].lowercased()) }
    }

    /// Binds the values of the slots marked in `slots` to consecutive parameters of `statement`,
    /// from parameter `first`; returns the next parameter index. Integers and reals are bound
    /// straight from the row's storage: this is the inner loop of every insert.
    @discardableResult
    func bind(to statement: Statement, slots: [Bool], startingAt first: Int32) throws -> Int32 {
        let count = min(storage.pointee.count, slots.count)
        let values = storage.pointee.values
        let handle = statement.handle
        var index = first
        try slots.withUnsafeBufferPointer { slots in
            for slot in 0..<count where slots[slot] {
                let code: Int32
                switch values[slot] {
                case .integer(let int): code = sqlite3_bind_int64(handle, index, int)
                case .real(let double): code = sqlite3_bind_double(handle, index, double)
                case let other:
                    try statement.bind(isPresent(slot) ? other : .null, at: index)
                    code = SQLITE_OK
                }
                if code != SQLITE_OK {
                    try statement.bind(values[slot], at: index)
                }
                index += 1
            }
        }
        return index
    }
}
