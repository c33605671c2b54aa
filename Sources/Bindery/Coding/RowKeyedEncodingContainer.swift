import Foundation

/// The keyed container of ``RowEncoderCore``: each key is a column.
struct RowKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    // The standard library's container box calls the `mutating` encode methods on the container where
    // it lies, so the counted references to the row and the value encoder cost nothing per call. The
    // core, which keeps the reused container, is not counted (that would be a cycle): the container
    // reaches it only while its stamp is current (see RowGenerations.Held). A container kept past its
    // record throws, and writes nothing.
    private let held: RowGenerations.Held<RowEncoderCore>
    private let row: EncodedRow
    private let values: ValueEncoder
    /// Slots by key tag, when `Key` is a plain enum (see ``KeyTagTable``); nil otherwise.
    private let tags: KeyTagTable.Entries?
    var codingPath: [any CodingKey] { [] }

    /// A container of `core`'s row, valid while `generation` is current; with `expired`, a container
    /// that is already not valid (asked for when no record is being encoded).
    init(core: RowEncoderCore, tags: KeyTagTable?, generation: RowGenerations.Stamp, expired: Bool = false) {
        self.held = RowGenerations.Held(core, stamp: expired ? generation.refused : generation)
        self.row = core.row
        self.values = core.values
        self.tags = tags?.entries
    }

    /// Throws when the container was kept past its record.
    @inline(__always)
    private func checkValid(_ key: Key) throws {
        guard held.isCurrent else { throw Self.expired(key) }
    }

    /// The error of a container used after its record; only the key is named.
    @inline(never)
    private static func expired(_ key: Key) -> EncodingError {
        EncodingError.invalidValue(
            key.stringValue,
            .init(
                codingPath: [key],
                debugDescription:
                    "a keyed encoding container was used after its record was encoded: encode(to:) may not keep "
                    + "its container or encoder to write later"))
    }

    @inline(__always)
    private func set(_ value: SQLiteValue, _ key: Key) throws {
        try checkValid(key)
        if let tags {
            let tag = KeyTagTable.tag(of: key)
            if !row.set(value, ifKnownSlot: Int(tags[tag])) {
                tags[tag] = Int32(row.set(value, forKey: key.stringValue))
            }
        } else {
            row.set(value, forKey: key.stringValue)
        }
    }

    /// `value` as stored, converted by the core's value encoder once the container is known to be valid.
    @inline(__always)
    private func encoded<T: Encodable>(_ value: T, _ key: Key) throws -> SQLiteValue {
        try checkValid(key)
        return try values.encode(value, codingPath: [key])
    }

    /// ``encoded(_:_:)`` for a `Double`, through the value encoder's own method for it.
    @inline(__always)
    private func encoded(_ value: Double, _ key: Key) throws -> SQLiteValue {
        try checkValid(key)
        return try values.encode(value, codingPath: [key])
    }

    /// ``encoded(_:_:)`` for a `UInt64`, through the value encoder's own method for it.
    @inline(__always)
    private func encoded(_ value: UInt64, _ key: Key) throws -> SQLiteValue {
        try checkValid(key)
        return try values.encode(value, codingPath: [key])
    }

    mutating func encodeNil(forKey key: Key) throws { try set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try set(.integer(value ? 1 : 0), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try set(.text(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try set(try encoded(value, key), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        try set(try encoded(Double(value), key), key)
    }
    // Inlined into its protocol witness, which would otherwise call it (about 5 instructions a value).
    @inline(__always)
    mutating func encode(_ value: Int, forKey key: Key) throws { try set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        #if _pointerBitWidth(_64)
            // Through the `Int` method (the same width here): two identical bodies would be merged into
            // one function reached by an extra jump.
            try encode(Int(value), forKey: key)
        #else
            try set(.integer(value), key)
        #endif
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        try set(try encoded(UInt64(value), key), key)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try set(try encoded(value, key), key)
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try set(try encoded(value, key), key)
    }

    // encodeIfPresent writes NULL for nil, so that an update clears the column.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        // The value through a call, so that `set` is inlined once here, for NULL (an id left to the
        // database): inlined twice, it is kept as a function of its own (callgrind: about 45
        // instructions a value).
        if let value { try setOutOfLine(.integer(Int64(value)), key) } else { try set(.null, key) }
    }

    /// ``set(_:_:)`` as a function of its own.
    @inline(never)
    private func setOutOfLine(_ value: SQLiteValue, _ key: Key) throws {
        try set(value, key)
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try set(.null, key) }
    }

    // The nested containers and encoders record an error, which the core throws when `encode(to:)`
    // returns. Those of a container kept past its record come from a core that encodes nothing: its
    // containers throw.

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let core = liveCore
        core.fail(core.unsupported("nestedContainer(keyedBy:forKey:)", codingPath: [key]))
        return KeyedEncodingContainer(DiscardingKeyedEncodingContainer<NestedKey>(core: core))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let core = liveCore
        core.fail(core.unsupported("nestedUnkeyedContainer(forKey:)", codingPath: [key]))
        return DiscardingEncodingContainer(core: core)
    }

    /// The same row: a superclass encodes its properties as further columns.
    mutating func superEncoder() -> any Encoder { liveCore }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let core = liveCore
        core.fail(core.unsupported("superEncoder(forKey:)", codingPath: [key]))
        return core
    }

    /// The core, or for a container kept past its record, a new core that encodes nothing.
    private var liveCore: RowEncoderCore {
        held.object ?? RowEncoderCore(options: CodingOptions())
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
