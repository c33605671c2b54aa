import CSQLite

/// Which of a set of INTEGER or TEXT keys a column of a statement's current row holds, compared as
/// SQLite's `BINARY` collation compares (the same storage class, the same integer or the same bytes),
/// found without making a Swift value of the column: what grouping the rows of a to-many association
/// by their key costs per row.
///
/// Open addressing with linear probing, over a power-of-two table at most half full. The slot a key
/// landed in is at most ``maxProbe`` slots past its hash's, as recorded while the table was built, so
/// a look-up reads at most that many slots whatever the keys; keys that would need more than
/// ``probeLimit`` (made to collide) make no table, and the caller groups by ``SQLiteValue`` instead.
///
/// Safety: a look-up reads the bytes of the column's text one by one, at indices below their count, as
/// ``SQLiteMemory/withText(ofValue:_:)`` lends them, within that call, keeping no pointer. (Reading
/// them eight at a time and comparing with `memcmp` was measured: 0.2–0.3% on the to-many lines,
/// under the 2% a mechanism must earn.)
struct ExactKeyTable {
    /// A key: its hash, its group, and its value (an integer, or the range of its bytes in ``text``).
    private struct Entry {
        let hash: UInt64
        let group: Int
        let isText: Bool
        let integer: Int64
        let bytes: Range<Int>
    }

    /// The most slots a key may land past its hash's.
    static let probeLimit = 32
    /// The hash's seed, drawn once a process, so that which keys collide is not known in advance.
    private static let processSeed = UInt64.random(in: .min ... .max)

    private let seed: UInt64
    /// Each slot's index in ``entries``, or -1.
    private var slots: [Int32]
    private var entries: [Entry] = []
    /// The bytes of every TEXT key, one after the other.
    private var text: [UInt8] = []
    /// The most slots any key landed past its hash's.
    private var maxProbe = 0

    /// A table of `keys`, each the group at its position; nil when a key is not INTEGER or TEXT, when
    /// two keys are equal, or when the keys collide beyond ``probeLimit``.
    init?(keys: [SQLiteValue]) {
        guard keys.count < Int(Int32.max) / 2 else { return nil }
        seed = Self.processSeed
        var size = 8
        while size < keys.count * 2 {
            size *= 2
        }
        slots = Array(repeating: -1, count: size)
        for (group, key) in keys.enumerated() {
            let entry: Entry
            switch key {
            case .integer(let value):
                entry = Entry(hash: hash(value), group: group, isText: false, integer: value, bytes: 0..<0)
            case .text(let value):
                let start = text.count
                text.append(contentsOf: value.utf8)
                let bytes = start..<text.count
                entry = Entry(hash: hash(text[bytes]), group: group, isText: true, integer: 0, bytes: bytes)
            default:
                return nil
            }
            guard insert(entry) else { return nil }
        }
    }

    /// Adds `entry`; false when an equal key is there already or the slot is too far.
    private mutating func insert(_ entry: Entry) -> Bool {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: entry.hash) & mask
        for probe in 0...Self.probeLimit {
            let index = slots[slot]
            if index < 0 {
                slots[slot] = Int32(entries.count)
                entries.append(entry)
                maxProbe = max(maxProbe, probe)
                return true
            }
            let other = entries[Int(index)]
            if other.hash == entry.hash, other.isText == entry.isText, other.integer == entry.integer,
                text[other.bytes].elementsEqual(text[entry.bytes])
            {
                return false
            }
            slot = (slot + 1) & mask
        }
        return false
    }

    /// The group of the key that column `column` of `statement`'s current row holds; nil when it holds
    /// none of the keys (another value, another storage class, or text SQLite could not give).
    func group(ofColumn column: Int32, of statement: OpaquePointer) -> Int? {
        guard let value = sqlite3_column_value(statement, column) else { return nil }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            let integer = sqlite3_value_int64(value)
            return find(hash(integer)) { !$0.isText && $0.integer == integer }
        case SQLITE_TEXT:
            return SQLiteMemory.withText(ofValue: value) { bytes in
                find(hash(bytes)) { $0.isText && holds($0.bytes, bytes) }
            } ?? nil
        default:
            return nil
        }
    }

    /// The group of the first entry of hash `hash` that `matches`, looked for in the slots a key of
    /// that hash may have landed in.
    private func find(_ hash: UInt64, _ matches: (Entry) -> Bool) -> Int? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        for _ in 0...maxProbe {
            let index = slots[slot]
            if index < 0 {
                return nil
            }
            let entry = entries[Int(index)]
            if entry.hash == hash, matches(entry) {
                return entry.group
            }
            slot = (slot + 1) & mask
        }
        return nil
    }

    // MARK: Hashing

    private func hash(_ integer: Int64) -> UInt64 {
        Self.mix(seed ^ UInt64(bitPattern: integer))
    }

    /// The bytes eight to a word, the last word padded with zeros, then their count.
    private func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash = seed
        var word: UInt64 = 0
        var count: UInt64 = 0
        for byte in bytes {
            word |= UInt64(byte) << ((count & 7) * 8)
            count += 1
            if count & 7 == 0 {
                hash = Self.mix(hash ^ word)
                word = 0
            }
        }
        return Self.mix(Self.mix(hash ^ word) ^ count)
    }

    /// Whether the key bytes at `range` of ``text`` are `bytes`.
    private func holds(_ range: Range<Int>, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard range.count == bytes.count else { return false }
        for offset in 0..<bytes.count where text[range.lowerBound + offset] != bytes[offset] {
            return false
        }
        return true
    }

    /// Spreads every bit of `value` over the result (a multiply and a shift, twice).
    private static func mix(_ value: UInt64) -> UInt64 {
        var value = (value ^ (value >> 32)) &* 0xd6e8_feb8_6659_fd93
        value = (value ^ (value >> 32)) &* 0xd6e8_feb8_6659_fd93
        return value ^ (value >> 32)
    }
}
