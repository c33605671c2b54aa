import Foundation

/// The keyed container of ``InsertedRowDecoder``: each key reads the stored value of the slot the
/// encoder filled for the same coding key, and gives up where ``RowDecoder`` might answer otherwise.
struct InsertedRowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let decoder: InsertedRowDecoder
    /// The decoder's generation when the container was made: a container kept past its row throws.
    private let expected: UInt64
    /// Slots by key tag, when `Key` is a plain enum (see ``KeyTagTable``); nil otherwise.
    private let tags: KeyTagTable?
    var codingPath: [any CodingKey] { [] }

    init(decoder: InsertedRowDecoder, tags: KeyTagTable?) {
        self.decoder = decoder
        self.tags = tags
        self.expected = decoder.generation
    }

    /// The slot `key` reads: the one the encoder filled for the same coding key; -1 when there is none.
    @inline(__always)
    private func slot(_ key: Key) -> Int {
        guard let tags else {
            return decoder.row.existingSlot(forKey: key.stringValue) ?? -1
        }
        let tag = KeyTagTable.tag(of: key)
        let known = tags[tag]
        if known != KeyTagTable.unknown {
            return Int(known)
        }
        let slot = decoder.row.existingSlot(forKey: key.stringValue) ?? -1
        tags[tag] = Int32(slot)
        return slot
    }

    /// The stored value of `key`'s column; gives up when it is not known.
    @inline(__always)
    private func value(_ key: Key) throws -> SQLiteValue {
        guard decoder.generation == expected else {
            throw RowDecoder.expired("a keyed decoding container", codingPath: [key])
        }
        let slot = slot(key)
        guard slot >= 0, let value = decoder.value(at: slot) else {
            throw decoder.giveUp()
        }
        return value
    }

    @inline(__always)
    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: SQLiteValue) throws -> T {
        guard case .integer(let integer) = value, let exact = T(exactly: integer) else {
            throw decoder.giveUp()
        }
        return exact
    }

    @inline(__always)
    private func converted<T>(_ type: T.Type, _ value: SQLiteValue) throws -> T {
        guard let converted = decoder.convert(value, to: T.self) else {
            throw decoder.giveUp()
        }
        return converted
    }

    private func float(_ value: SQLiteValue) throws -> Float {
        let double: Double = try converted(Double.self, value)
        let float = Float(double)
        if float.isInfinite && double.isFinite {
            throw decoder.giveUp()
        }
        return float
    }

    /// Nothing is known about the table's other columns: the decoder gives up.
    var allKeys: [Key] {
        _ = decoder.giveUp()
        return []
    }

    func contains(_ key: Key) -> Bool {
        guard decoder.generation == expected, slot(key) >= 0 else {
            _ = decoder.giveUp()
            return false
        }
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try converted(Bool.self, value(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try converted(String.self, value(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try converted(Double.self, value(key)) }
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
        return value.isNull ? nil : value
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let value = try present(key) else { return nil }
        return try converted(Bool.self, value)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = try present(key) else { return nil }
        return try converted(String.self, value)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let value = try present(key) else { return nil }
        return try converted(Double.self, value)
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

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw decoder.giveUp()
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw decoder.giveUp()
    }

    func superDecoder() throws -> any Decoder {
        throw decoder.giveUp()
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw decoder.giveUp()
    }
}
