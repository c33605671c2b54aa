import Foundation

/// The decoder that ``SchemaProbe`` runs a type's `init(from:)` with: every keyed property it asks for
/// is recorded as a column and answered with a placeholder value.
struct SchemaProbeDecoder: Decoder {
    let probe: SchemaProbe
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { probe.options.codingUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(SchemaProbeKeyedContainer<Key>(probe: probe))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw SchemaProbe.Failure(
            description: "a type decoded with an unkeyed container has no named columns; create its table with SQL")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw SchemaProbe.Failure(
            description: "a type decoded from a single value has no named columns; create its table with SQL")
    }
}

/// Records each key as a column; `decodeIfPresent` records a nullable one and answers nil.
struct SchemaProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: SchemaProbe
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }

    /// The default `decodeIfPresent` of each scalar asks `decodeNil` first: the column is nullable,
    /// and answering false lets the following `decode` tell its type.
    func decodeNil(forKey key: Key) throws -> Bool {
        probe.markNullable(key)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let optional = T.self as? any SchemaProbeOptional.Type {
            probe.record(
                key: key, type: try optional.wrappedSQLType(probe: probe, key: key), notNull: false,
                swiftType: optional.wrappedType)
            guard let none = optional.probeNone as? T else {
                throw SchemaProbe.Failure(description: "internal: optional placeholder for \(T.self)")
            }
            return none
        }
        let (value, sqlType) = try probe.placeholder(T.self, path: [key])
        probe.record(key: key, type: sqlType, notNull: true, swiftType: T.self)
        return value
    }

    /// An optional property needs no value: its type only has to tell its storage, which a type that
    /// rejects every placeholder may still have done before throwing.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        probe.record(key: key, type: try probe.sqlType(of: T.self, path: [key]), notNull: false, swiftType: T.self)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw SchemaProbe.Failure(description: "nestedContainer(keyedBy:forKey:) is not supported in a row")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw SchemaProbe.Failure(description: "nestedUnkeyedContainer(forKey:) is not supported in a row")
    }

    func superDecoder() throws -> any Decoder { SchemaProbeDecoder(probe: probe) }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        SchemaColumnProbe(probe: probe, path: [key], attempt: 0)
    }
}

/// `Optional` as the probe sees it: a nullable column of the wrapped type.
protocol SchemaProbeOptional {
    static var probeNone: Self { get }
    static var wrappedType: Any.Type { get }
    static func wrappedSQLType(probe: SchemaProbe, key: any CodingKey) throws -> String
}

extension Optional: SchemaProbeOptional where Wrapped: Decodable {
    static var probeNone: Wrapped? { nil }
    static var wrappedType: Any.Type { Wrapped.self }

    static func wrappedSQLType(probe: SchemaProbe, key: any CodingKey) throws -> String {
        try probe.sqlType(of: Wrapped.self, path: [key])
    }
}
