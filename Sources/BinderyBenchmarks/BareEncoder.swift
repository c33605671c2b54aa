import CSQLite

/// Close to the least an `Encoder` can do for a bulk insert: it binds each `Int` to the next statement
/// parameter, in the order the record encodes its properties, and nothing else: no other types, no
/// NULLs, no keys looked at, no record of the values for error messages, no check that every column
/// was written. The benchmark checks afterwards that the rows it inserted are the records.
///
/// It exists to measure the floor under Codable encoders: what the standard library's container box
/// and a synthesized `encode(to:)` cost on their own. Bindery's own encoder does all it leaves out.
final class BareEncoder: Encoder {
    let statement: OpaquePointer
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// Whether a value was asked for that this encoder does not bind (anything but a keyed `Int`).
    var refused = false
    /// The parameter the next value is bound to; back to ``first`` for each record.
    var parameter: Int32 = 1
    /// The parameter each record's first value is bound to: 1, or the first of its row in a multi-row
    /// INSERT.
    var first: Int32 = 1
    /// The keyed container made for the first record, reused for every record after it, and its key type.
    private var container: AnyObject?
    private var keyType: ObjectIdentifier?

    init(statement: OpaquePointer) {
        self.statement = statement
    }

    /// The same encoder binding to another statement (for the multi-row INSERT).
    init(statement: OpaquePointer, first: Int32) {
        self.statement = statement
        self.first = first
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        parameter = first
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
        if sqlite3_bind_int64(encoder.statement, encoder.parameter, Int64(value)) != SQLITE_OK {
            encoder.refused = true
        }
        encoder.parameter &+= 1
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
