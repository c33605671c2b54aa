import Foundation

/// The decoder a property's own type decodes from during a schema probe: a single value gives the
/// column its SQL type (a raw-value enum of `String` is TEXT); a keyed or unkeyed container means the
/// value is stored as JSON TEXT, and is answered with placeholders, recording nothing.
///
/// ``sqlType`` keeps what the type asked for even when its `init(from:)` throws afterwards (a
/// raw-value enum reads its raw value, then rejects it): the probe still knows the column's type.
final class SchemaColumnProbe: Decoder, SingleValueDecodingContainer {
    let probe: SchemaProbe
    /// The property's coding path from the probed type; its first key names the column.
    let path: [any CodingKey]
    /// Which set of placeholders to answer with (see ``SchemaProbe/attempts``).
    let attempt: Int
    /// The SQL type found, once the value asked for a single value or a container.
    private(set) var sqlType: String?
    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { probe.options.codingUserInfo }

    init(probe: SchemaProbe, path: [any CodingKey], attempt: Int) {
        self.probe = probe
        self.path = path
        self.attempt = attempt
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        sqlType = "TEXT"
        return KeyedDecodingContainer(PlaceholderKeyedContainer<Key>(probe: probe, path: path, attempt: attempt))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        sqlType = "TEXT"
        return PlaceholderUnkeyedContainer(path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { false }

    private func scalar<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, sqlType) = try probe.placeholder(T.self, path: path, attempt: attempt)
        self.sqlType = sqlType
        return value
    }

    func decode(_ type: Bool.Type) throws -> Bool { try scalar(Bool.self) }
    func decode(_ type: String.Type) throws -> String { try scalar(String.self) }
    func decode(_ type: Double.Type) throws -> Double { try scalar(Double.self) }
    func decode(_ type: Float.Type) throws -> Float { try scalar(Float.self) }
    func decode(_ type: Int.Type) throws -> Int { try scalar(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try scalar(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try scalar(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try scalar(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try scalar(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try scalar(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(UInt64.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try scalar(T.self) }
}

/// Answers a nested value's keys with placeholders, recording nothing: the value is one JSON column.
private struct PlaceholderKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: SchemaProbe
    let path: [any CodingKey]
    let attempt: Int
    var codingPath: [any CodingKey] { path }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { false }
    func decodeNil(forKey key: Key) throws -> Bool { true }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let optional = T.self as? any SchemaProbeOptional.Type, let none = optional.probeNone as? T {
            return none
        }
        return try probe.placeholder(T.self, path: path + [key], attempt: attempt).value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { nil }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(PlaceholderKeyedContainer<NestedKey>(probe: probe, path: path + [key], attempt: attempt))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        PlaceholderUnkeyedContainer(path: path + [key])
    }

    func superDecoder() throws -> any Decoder {
        SchemaColumnProbe(probe: probe, path: path + [IndexKey("super")], attempt: attempt)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        SchemaColumnProbe(probe: probe, path: path + [key], attempt: attempt)
    }
}

/// An empty nested array.
private struct PlaceholderUnkeyedContainer: UnkeyedDecodingContainer {
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    mutating func decodeNil() throws -> Bool { true }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        throw DecodingError.valueNotFound(T.self, .init(codingPath: path, debugDescription: "placeholder array"))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.valueNotFound(Any.self, .init(codingPath: path, debugDescription: "placeholder array"))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { self }

    mutating func superDecoder() throws -> any Decoder {
        throw DecodingError.valueNotFound(Any.self, .init(codingPath: path, debugDescription: "placeholder array"))
    }
}
