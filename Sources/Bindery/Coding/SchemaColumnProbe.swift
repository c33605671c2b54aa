import Foundation

/// The decoder a property's own type decodes from during a schema probe: a single value gives the
/// column its SQL type (a raw-value enum of `String` is TEXT); a keyed or unkeyed container means the
/// value is stored as JSON TEXT, and is answered with empty placeholders.
final class SchemaColumnProbe: Decoder, SingleValueDecodingContainer {
    let probe: SchemaProbe
    let key: any CodingKey
    /// The SQL type found; TEXT until a single value of another type is asked for.
    private(set) var sqlType = "TEXT"
    var codingPath: [any CodingKey] { [key] }
    var userInfo: [CodingUserInfoKey: Any] { probe.options.codingUserInfo }

    init(probe: SchemaProbe, key: any CodingKey) {
        self.probe = probe
        self.key = key
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        sqlType = "TEXT"
        return KeyedDecodingContainer(PlaceholderKeyedContainer<Key>(probe: probe))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        sqlType = "TEXT"
        return PlaceholderUnkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { sqlType = "INTEGER"; return false }
    func decode(_ type: String.Type) throws -> String { sqlType = "TEXT"; return "" }
    func decode(_ type: Double.Type) throws -> Double { sqlType = "REAL"; return 0 }
    func decode(_ type: Float.Type) throws -> Float { sqlType = "REAL"; return 0 }
    func decode(_ type: Int.Type) throws -> Int { sqlType = "INTEGER"; return 0 }
    func decode(_ type: Int8.Type) throws -> Int8 { sqlType = "INTEGER"; return 0 }
    func decode(_ type: Int16.Type) throws -> Int16 { sqlType = "INTEGER"; return 0 }
    func decode(_ type: Int32.Type) throws -> Int32 { sqlType = "INTEGER"; return 0 }
    func decode(_ type: Int64.Type) throws -> Int64 { sqlType = "INTEGER"; return 0 }
    func decode(_ type: UInt.Type) throws -> UInt { sqlType = "INTEGER"; return 0 }
    func decode(_ type: UInt8.Type) throws -> UInt8 { sqlType = "INTEGER"; return 0 }
    func decode(_ type: UInt16.Type) throws -> UInt16 { sqlType = "INTEGER"; return 0 }
    func decode(_ type: UInt32.Type) throws -> UInt32 { sqlType = "INTEGER"; return 0 }
    func decode(_ type: UInt64.Type) throws -> UInt64 { sqlType = "INTEGER"; return 0 }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, sqlType) = try probe.placeholder(T.self, key: key)
        self.sqlType = sqlType
        return value
    }
}

/// Answers a nested value's keys with placeholders, recording nothing: the value is one JSON column.
private struct PlaceholderKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: SchemaProbe
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { false }
    func decodeNil(forKey key: Key) throws -> Bool { true }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let optional = T.self as? any SchemaProbeOptional.Type, let none = optional.probeNone as? T {
            return none
        }
        if let integer = T.self as? any FixedWidthInteger.Type, let zero = integer.init(0) as? T {
            return zero
        }
        return try probe.placeholder(T.self, key: key).value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { nil }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(PlaceholderKeyedContainer<NestedKey>(probe: probe))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        PlaceholderUnkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { SchemaColumnProbe(probe: probe, key: IndexKey("super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { SchemaColumnProbe(probe: probe, key: key) }
}

/// An empty nested array.
private struct PlaceholderUnkeyedContainer: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    mutating func decodeNil() throws -> Bool { true }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        throw DecodingError.valueNotFound(T.self, .init(codingPath: [], debugDescription: "placeholder array"))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.valueNotFound(Any.self, .init(codingPath: [], debugDescription: "placeholder array"))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { self }

    mutating func superDecoder() throws -> any Decoder {
        throw DecodingError.valueNotFound(Any.self, .init(codingPath: [], debugDescription: "placeholder array"))
    }
}
