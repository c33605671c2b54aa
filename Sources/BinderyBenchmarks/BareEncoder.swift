import CSQLite

/// The least any `Encoder` can do for a bulk insert: it binds each `Int` straight to the statement
/// parameter named after its coding key (looked up once per key), and nothing else: no other types,
/// no NULLs, no record of the values for error messages, no check that every column was written.
///
/// It exists to measure the floor under every Codable encoder: what the standard library's container
/// box and a synthesized `encode(to:)` cost on their own. Bindery's own encoder does all it leaves out.
final class BareEncoder: Encoder {
    let statement: OpaquePointer
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// Whether a value was asked for that this encoder does not bind (anything but a keyed `Int`).
    var refused = false
    /// Parameter indexes by key tag (the byte of a synthesized `CodingKeys` case); 0 when not looked up.
    let parameters: UnsafeMutablePointer<Int32>
    /// The keyed container made for the first record, reused for every record after it, and its key type.
    private var container: AnyObject?
    private var keyType: ObjectIdentifier?

    init(statement: OpaquePointer) {
        self.statement = statement
        parameters = .allocate(capacity: 256)
        parameters.initialize(repeating: 0, count: 256)
    }

    deinit {
        parameters.deallocate()
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if let container, keyType == ObjectIdentifier(Key.self) {
            return unsafeDowncast(container, to: Kept<KeyedEncodingContainer<Key>>.self).value()
        }
        return makeContainer(keyedBy: Key.self)
    }

    /// Out of line: making a container needs its type's metadata, which would otherwise be looked up
    /// for every record.
    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let made = KeyedEncodingContainer(BareKeyedContainer<Key>(encoder: self))
        container = Kept(made)
        keyType = ObjectIdentifier(Key.self)
        return made
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        refused = true
        return BareRefusal(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        refused = true
        return BareRefusal(encoder: self)
    }
}

/// Keeps a container from one record to the next.
final class Kept<Container> {
    private let container: Container

    init(_ container: Container) {
        self.container = container
    }

    @inline(never)
    func value() -> Container {
        container
    }
}

/// The keyed container of ``BareEncoder``.
struct BareKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    unowned(unsafe) let encoder: BareEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        guard MemoryLayout<Key>.size == 1, _isPOD(Key.self) else {
            encoder.refused = true
            return
        }
        let tag = Int(unsafeBitCast(key, to: UInt8.self))
        var parameter = encoder.parameters[tag]
        if parameter == 0 {
            parameter = sqlite3_bind_parameter_index(encoder.statement, ":" + key.stringValue)
            encoder.parameters[tag] = parameter
        }
        if parameter <= 0 || sqlite3_bind_int64(encoder.statement, parameter, Int64(value)) != SQLITE_OK {
            encoder.refused = true
        }
    }

    mutating func encodeNil(forKey key: Key) throws { encoder.refused = true }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { encoder.refused = true }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder.refused = true
        return KeyedEncodingContainer(BareKeyedContainer<NestedKey>(encoder: encoder))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.refused = true
        return BareRefusal(encoder: encoder)
    }

    mutating func superEncoder() -> any Encoder {
        encoder.refused = true
        return encoder
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.refused = true
        return encoder
    }
}

/// What ``BareEncoder`` hands out for anything but a keyed container: every value is refused.
struct BareRefusal: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    unowned(unsafe) let encoder: BareEncoder
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    mutating func encodeNil() throws { encoder.refused = true }
    mutating func encode<T: Encodable>(_ value: T) throws { encoder.refused = true }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder.refused = true
        return KeyedEncodingContainer(BareKeyedContainer<NestedKey>(encoder: encoder))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.refused = true
        return self
    }

    mutating func superEncoder() -> any Encoder {
        encoder.refused = true
        return encoder
    }
}
