import Foundation

/// The keyed container of ``RowEncoderCore``: each key is a column.
struct RowKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    // No reference counting here: the standard library's container box copies this struct on every
    // call. The container lives only inside the `encode(to:)` call that the core makes and that keeps
    // the core (which owns the row and the tag table) alive.
    private let coreReference: Unmanaged<RowEncoderCore>
    private let row: Unmanaged<EncodedRow>
    /// Slots by key tag, when `Key` is a plain enum (see ``KeyTagTable``); nil otherwise.
    private let tags: UnsafeMutablePointer<Int32>?
    var codingPath: [any CodingKey] { [] }

    init(core: RowEncoderCore, tags: KeyTagTable?) {
        self.coreReference = Unmanaged.passUnretained(core)
        self.row = Unmanaged.passUnretained(core.row)
        self.tags = tags?.entries
    }

    private var core: RowEncoderCore { coreReference.takeUnretainedValue() }

    @inline(__always)
    private func set(_ value: SQLiteValue, _ key: Key) {
        row._withUnsafeGuaranteedRef { row in
            if let tags {
                let tag = KeyTagTable.tag(of: key)
                let known = tags[tag]
                if known >= 0 {
                    row.set(value, slot: Int(known))
                } else {
                    tags[tag] = Int32(row.set(value, forKey: key.stringValue))
                }
            } else {
                row.set(value, forKey: key.stringValue)
            }
        }
    }

    mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.integer(value ? 1 : 0), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.text(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        set(try core.values.encode(value, codingPath: [key]), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        set(try core.values.encode(Double(value), codingPath: [key]), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        #if _pointerBitWidth(_64)
            // Through the `Int` method (the same width here): two identical bodies would be merged into
            // one function reached by an extra jump.
            try encode(Int(value), forKey: key)
        #else
            set(.integer(value), key)
        #endif
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        set(try core.values.encode(UInt64(value), codingPath: [key]), key)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        set(try core.values.encode(value, codingPath: [key]), key)
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try core.values.encode(value, codingPath: [key]), key)
    }

    // encodeIfPresent writes NULL for nil, so that an update clears the column.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { set(.null, key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        core.fail(core.unsupported("nestedContainer(keyedBy:forKey:)", codingPath: [key]))
        return KeyedEncodingContainer(RowKeyedEncodingContainer<NestedKey>(core: core, tags: nil))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        core.fail(core.unsupported("nestedUnkeyedContainer(forKey:)", codingPath: [key]))
        return DiscardingEncodingContainer(core: core)
    }

    /// The same row: a superclass encodes its properties as further columns.
    mutating func superEncoder() -> any Encoder { core }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        core.fail(core.unsupported("superEncoder(forKey:)", codingPath: [key]))
        return core
    }
}

/// A coding key made from a string, for coding paths in errors.
struct IndexKey: CodingKey {
    let stringValue: String
    var intValue: Int? { Int(stringValue) }

    init(_ string: String) {
        self.stringValue = string
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        self.stringValue = String(intValue)
    }
}
