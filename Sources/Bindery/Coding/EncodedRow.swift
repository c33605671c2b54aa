/// The columns and values of one encoded row, reused from one record to the next.
///
/// Slots are learned from the first value encoded, in the order its keys arrive; later values of the
/// same type hit the predicted slot with one string comparison per key.
final class EncodedRow {
    /// The coding keys' string values, one per slot.
    private(set) var keys: [String] = []
    /// The column names (the keys after the key strategy), one per slot.
    private(set) var columns: [String] = []
    /// The values of the current row; `.null` where nothing was encoded.
    private(set) var values: [SQLiteValue] = []
    /// Whether each slot was encoded in the current row (a key skipped by `encodeIfPresent` was not).
    private(set) var present: [Bool] = []
    private var cursor = 0
    private let options: CodingOptions

    init(options: CodingOptions) {
        self.options = options
    }

    /// Forgets the values of the previous row, keeping the learned slots.
    func startRow() {
        cursor = 0
        for index in values.indices where present[index] {
            values[index] = .null
            present[index] = false
        }
    }

    /// Stores `value` for the coding key `key`.
    @inline(__always)
    func set(_ value: SQLiteValue, forKey key: String) {
        let slot: Int
        if cursor < keys.count && keys[cursor] == key {
            slot = cursor
        } else {
            slot = findOrAddSlot(key)
        }
        values[slot] = value
        present[slot] = true
        cursor = slot + 1
    }

    private func findOrAddSlot(_ key: String) -> Int {
        if let index = keys.firstIndex(of: key) {
            return index
        }
        keys.append(key)
        columns.append(options.columnName(forKey: key))
        values.append(.null)
        present.append(false)
        return keys.count - 1
    }

    /// The (column, value) pairs encoded in the current row, in slot order.
    var pairs: [(column: String, value: SQLiteValue)] {
        values.indices.filter { present[$0] }.map { (columns[$0], values[$0]) }
    }
}

extension EncodedRow {
    /// For each slot, whether it was encoded with a value other than NULL.
    var nonNullSlots: [Bool] {
        values.indices.map { present[$0] && !values[$0].isNull }
    }

    /// Whether ``nonNullSlots`` equals `slots`, without building it.
    func nonNullSlotsEqual(_ slots: [Bool]) -> Bool {
        guard slots.count == values.count else { return false }
        for index in values.indices where slots[index] != (present[index] && !values[index].isNull) {
            return false
        }
        return true
    }

    /// For each slot, whether it was encoded and its column is not one of `excluded` (compared
    /// case-insensitively).
    func presentSlots(excluding excluded: [String]) -> [Bool] {
        let lowered = Set(excluded.map { $0.lowercased() })
        return values.indices.map { present[$0] && !lowered.contains(columns[$0].lowercased()) }
    }
}
