import Foundation

/// The keyed container of ``InsertedRowDecoder``: each key reads the stored value of the slot the
/// encoder filled for the same coding key, and gives up where ``RowDecoder`` might answer otherwise.
struct InsertedRowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    // As ``RowKeyedDecodingContainer`` does, the container holds no counted reference: it reaches its
    // decoder only while its stamp of the decoder's row counter (or, for the container reused record
    // after record, of its kept-container counter) is current (see RowGenerations.Held).
    private let held: RowGenerations.Held<InsertedRowDecoder>
    /// The decoder's row of bound values, lent (see ``Lent``) as the decoder is: read only after the row
    /// counter check, while the decoder holds the row. Counted, it cost a retain and a release per field
    /// (the standard library's box copies the container on every call): `insert()` of 100,000 decoded
    /// records one by one 1,126,379,886 instructions counted, 1,075,379,886 lent (+4.7%, callgrind).
    private let row: Lent<EncodedRow>
    /// The decoder's current row (see ``InsertedRowDecoder/Current``), read only after the row counter
    /// check.
    private let current: FixedBox<InsertedRowDecoder.Current>
    /// Slots by key tag, when `Key` is a plain enum (see ``KeyTagTable``); nil otherwise.
    private let tags: KeyTagTable.Entries?
    var codingPath: [any CodingKey] { [] }

    /// A container reading `decoder`'s rows while `generation` is current.
    init(decoder: InsertedRowDecoder, tags: KeyTagTable?, generation: RowGenerations.Stamp) {
        self.held = RowGenerations.Held(decoder, stamp: generation)
        self.row = Lent(decoder.row)
        self.current = decoder.current
        self.tags = tags?.entries
    }

    /// The decoder, once the container was found valid; a container kept past its row throws.
    private var decoder: InsertedRowDecoder {
        get throws {
            guard let decoder = held.object else { throw RowDecoder.expired("a keyed decoding container") }
            return decoder
        }
    }

    /// The decoder gives up on the row (see ``InsertedRowDecoder/giveUp()``), when the container is
    /// still valid; the error that stops `init(from:)`.
    private func giveUp() -> InsertedRowDecoder.GaveUp {
        held.object?.giveUp() ?? InsertedRowDecoder.GaveUp()
    }

    /// The slot `key` reads: the one the encoder filled for the same coding key; -1 when there is none.
    @inline(__always)
    private func slot(_ key: Key) -> Int {
        guard let tags else {
            return row.with { $0.existingSlot(forKey: key.stringValue) } ?? -1
        }
        let tag = KeyTagTable.tag(of: key)
        let known = tags[tag]
        if known != KeyTagTable.unknown {
            return Int(known)
        }
        let slot = row.with { $0.existingSlot(forKey: key.stringValue) } ?? -1
        tags[tag] = Int32(slot)
        return slot
    }

    /// The stored value of `key`'s column; gives up when it is not known. A container kept past its
    /// row throws.
    @inline(__always)
    private func value(_ key: Key) throws -> SQLiteValue {
        guard held.isCurrent else {
            throw RowDecoder.expired("a keyed decoding container", codingPath: [key])
        }
        let slot = slot(key)
        guard let slots = current.value.slots, slot >= 0, slot < slots.count else {
            throw giveUp()
        }
        switch slots[slot] {
        case .bound: return row.with { $0.value(at: slot) }
        case .null: return .null
        case .rowid: return .integer(current.value.rowid)
        case .unknown: throw giveUp()
        }
    }

    @inline(__always)
    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: SQLiteValue) throws -> T {
        guard case .integer(let integer) = value, let exact = T(exactly: integer) else {
            throw giveUp()
        }
        return exact
    }

    @inline(__always)
    private func converted<T>(_ type: T.Type, _ value: SQLiteValue) throws -> T {
        guard let converted = try decoder.convert(value, to: T.self) else {
            throw giveUp()
        }
        return converted
    }

    @inline(__always)
    private func string(_ value: SQLiteValue) throws -> String {
        guard case .text(let text) = value else { throw giveUp() }
        return text
    }

    @inline(__always)
    private func double(_ value: SQLiteValue) throws -> Double {
        guard let double = InsertedRowDecoder.double(from: value) else { throw giveUp() }
        return double
    }

    @inline(__always)
    private func bool(_ value: SQLiteValue) throws -> Bool {
        guard let bool = InsertedRowDecoder.bool(from: value) else { throw giveUp() }
        return bool
    }

    private func float(_ value: SQLiteValue) throws -> Float {
        let double = try double(value)
        let float = Float(double)
        if float.isInfinite && double.isFinite {
            throw giveUp()
        }
        return float
    }

    /// Nothing is known about the table's other columns: the decoder gives up.
    var allKeys: [Key] {
        if held.isCurrent {
            _ = giveUp()
        }
        return []
    }

    /// Whether the row has `key`'s column; false, and the decoder gives up, when that is not known.
    /// False once the row is gone (reading the key then throws).
    func contains(_ key: Key) -> Bool {
        guard held.isCurrent else { return false }
        let slot = slot(key)
        guard let slots = current.value.slots, slot >= 0, slot < slots.count, slots[slot] != .unknown else {
            _ = giveUp()
            return false
        }
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try bool(value(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try string(value(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try double(value(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try float(value(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(Int.self, value(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(Int8.self, value(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(Int16.self, value(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(Int32.self, value(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(Int64.self, value(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(UInt.self, value(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(UInt8.self, value(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(UInt16.self, value(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(UInt32.self, value(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(UInt64.self, value(key)) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try converted(T.self, value(key)) }

    /// The stored value of `key`, or nil for NULL.
    @inline(__always)
    private func present(_ key: Key) throws -> SQLiteValue? {
        let value = try value(key)
        // Not `value.isNull ? nil : value`: `SQLiteValue` takes the nil literal too, so that expression
        // is `.null`, wrapped, and every NULL would read as present.
        guard !value.isNull else { return Optional.none }
        return value
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = try present(key) else { return nil }
        return try bool(value)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = try present(key) else { return nil }
        return try string(value)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = try present(key) else { return nil }
        return try double(value)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let value = try present(key) else { return nil }
        return try float(value)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentInteger(Int.self, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try presentInteger(Int8.self, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try presentInteger(Int16.self, key)
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try presentInteger(Int32.self, key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try presentInteger(Int64.self, key)
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try presentInteger(UInt.self, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try presentInteger(UInt8.self, key)
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try presentInteger(UInt16.self, key)
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try presentInteger(UInt32.self, key)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try presentInteger(UInt64.self, key)
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = try present(key) else { return nil }
        return try converted(T.self, value)
    }

    @inline(__always)
    private func presentInteger<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let value = try present(key) else { return nil }
        return try integer(T.self, value)
    }

    /// Gives up on the row (a kept container throws instead); returns the error that stops `init(from:)`.
    private func unsupported() throws -> InsertedRowDecoder.GaveUp {
        guard held.isCurrent else {
            throw RowDecoder.expired("a keyed decoding container", codingPath: codingPath)
        }
        return giveUp()
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw try unsupported()
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw try unsupported()
    }

    func superDecoder() throws -> any Decoder {
        throw try unsupported()
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw try unsupported()
    }
}
