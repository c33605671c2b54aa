import Foundation

/// An `Encoder` that captures a value encoded through a single-value container (a raw-value enum, an
/// `Optional`, a wrapper) as one ``SQLiteValue``. A value that asks for a keyed or unkeyed container
/// instead throws ``NestedContainerSignal``, and ``ValueEncoder`` stores it as JSON.
final class SingleValueProbeEncoder: Encoder, SingleValueEncodingContainer {
    unowned let encoder: ValueEncoder
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { encoder.options.codingUserInfo }
    /// The captured value, once something was encoded.
    private(set) var value: SQLiteValue?
    /// Whether the value asked for a keyed or unkeyed container: it is nested, and stored as JSON.
    private(set) var askedForContainer = false

    init(encoder: ValueEncoder, codingPath: [any CodingKey]) {
        self.encoder = encoder
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        askedForContainer = true
        return KeyedEncodingContainer(SignallingKeyedEncodingContainer<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        askedForContainer = true
        return SignallingUnkeyedEncodingContainer(codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    private func set(_ newValue: SQLiteValue) throws {
        if askedForContainer {
            throw NestedContainerSignal()
        }
        value = newValue
    }

    func encodeNil() throws { try set(.null) }
    func encode(_ value: Bool) throws { try set(.integer(value ? 1 : 0)) }
    func encode(_ value: String) throws { try set(.text(value)) }
    func encode(_ value: Double) throws { try set(try encoder.encode(value, codingPath: codingPath)) }
    func encode(_ value: Float) throws { try set(try encoder.encode(Double(value), codingPath: codingPath)) }
    func encode(_ value: Int) throws { try set(.integer(Int64(value))) }
    func encode(_ value: Int8) throws { try set(.integer(Int64(value))) }
    func encode(_ value: Int16) throws { try set(.integer(Int64(value))) }
    func encode(_ value: Int32) throws { try set(.integer(Int64(value))) }
    func encode(_ value: Int64) throws { try set(.integer(value)) }
    func encode(_ value: UInt) throws { try set(try encoder.encode(UInt64(value), codingPath: codingPath)) }
    func encode(_ value: UInt8) throws { try set(.integer(Int64(value))) }
    func encode(_ value: UInt16) throws { try set(.integer(Int64(value))) }
    func encode(_ value: UInt32) throws { try set(.integer(Int64(value))) }
    func encode(_ value: UInt64) throws { try set(try encoder.encode(value, codingPath: codingPath)) }
    func encode<T: Encodable>(_ value: T) throws { try set(try encoder.encode(value, codingPath: codingPath)) }
}

/// A keyed container handed out by the probe: any use means the value is nested, so it signals.
private struct SignallingKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { throw NestedContainerSignal() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw NestedContainerSignal() }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(SignallingKeyedEncodingContainer<NestedKey>(codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        SignallingUnkeyedEncodingContainer(codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { SignallingEncoder(codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { SignallingEncoder(codingPath: codingPath) }
}

/// An unkeyed container handed out by the probe; see ``SignallingKeyedEncodingContainer``.
private struct SignallingUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let codingPath: [any CodingKey]
    var count: Int { 0 }

    mutating func encodeNil() throws { throw NestedContainerSignal() }
    mutating func encode<T: Encodable>(_ value: T) throws { throw NestedContainerSignal() }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(SignallingKeyedEncodingContainer<NestedKey>(codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { SignallingEncoder(codingPath: codingPath) }
}

/// An encoder handed out by the signalling containers.
private struct SignallingEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(SignallingKeyedEncodingContainer<Key>(codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        SignallingUnkeyedEncodingContainer(codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SignallingUnkeyedEncodingContainer(codingPath: codingPath)
    }
}

extension SignallingUnkeyedEncodingContainer: SingleValueEncodingContainer {}
