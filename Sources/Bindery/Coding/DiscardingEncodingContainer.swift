/// The container ``RowEncoderCore`` hands out where a row cannot take values (a top-level
/// `singleValueContainer()` or `unkeyedContainer()`, a nested unkeyed container): it accepts what it
/// is given and keeps nothing, because the `Encoder` protocol cannot throw there. The core has
/// recorded the error, which it throws when `encode(to:)` returns.
struct DiscardingEncodingContainer: SingleValueEncodingContainer, UnkeyedEncodingContainer {
    /// Counted: a container kept past its record may still hand out the core (`superEncoder()`).
    let core: RowEncoderCore
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(core: RowEncoderCore) {
        self.core = core
    }

    mutating func encodeNil() throws { count += 1 }
    mutating func encode<T: Encodable>(_ value: T) throws { count += 1 }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        count += 1
        return KeyedEncodingContainer(DiscardingKeyedEncodingContainer<NestedKey>(core: core))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return DiscardingEncodingContainer(core: core)
    }

    mutating func superEncoder() -> any Encoder { core }
}

/// The keyed counterpart of ``DiscardingEncodingContainer``, for a keyed container nested in one.
struct DiscardingKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let core: RowEncoderCore  // see DiscardingEncodingContainer
    var codingPath: [any CodingKey] { [] }

    init(core: RowEncoderCore) {
        self.core = core
    }

    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingKeyedEncodingContainer<NestedKey>(core: core))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        DiscardingEncodingContainer(core: core)
    }

    mutating func superEncoder() -> any Encoder { core }
    mutating func superEncoder(forKey key: Key) -> any Encoder { core }
}
