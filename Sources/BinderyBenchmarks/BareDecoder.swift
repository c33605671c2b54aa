import CSQLite

/// Close to the least a `Decoder` can do for a fetch: each `Int` the record asks for is the next column
/// of the current row, read with `sqlite3_column_int64`, and nothing else: no other types, no NULLs, no
/// key looked at, no check that the column exists or holds an INTEGER, no guard against a container
/// kept past its row. The benchmark checks afterwards that the rows it decoded are the records.
///
/// It exists to measure the floor under Codable decoders: what the standard library's container box
/// and a synthesized `init(from:)` cost on their own. Bindery's own decoder does all it leaves out.
final class BareDecoder: Decoder {
    let statement: OpaquePointer
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// The column the next value is read from; back to 0 for each record.
    var column: Int32 = 0
    /// The keyed container made for the first record, reused for every record after it, and its key type.
    private var container: AnyObject?
    private var keyType: ObjectIdentifier?

    init(statement: OpaquePointer) {
        self.statement = statement
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        column = 0
        if let container, keyType == ObjectIdentifier(Key.self) {
            return unsafeDowncast(container, to: Kept<KeyedDecodingContainer<Key>>.self).value()
        }
        return makeContainer(keyedBy: Key.self)
    }

    /// Out of line: making a container needs its type's metadata, which would otherwise be looked up
    /// for every record.
    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        let made = KeyedDecodingContainer(BareKeyedDecodingContainer<Key>(decoder: self))
        container = Kept(made)
        keyType = ObjectIdentifier(Key.self)
        return made
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw BareDecoder.refusal("an unkeyed container")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw BareDecoder.refusal("a single-value container")
    }

    /// The error for anything but a keyed `Int`.
    static func refusal(_ what: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "the bare decoder reads no \(what)"))
    }
}

/// The keyed container of ``BareDecoder``: every `Int` is the next column; anything else throws.
struct BareKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    unowned(unsafe) let decoder: BareDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        let column = decoder.column
        decoder.column = column &+ 1
        return Int(sqlite3_column_int64(decoder.statement, column))
    }

    func decodeNil(forKey key: Key) throws -> Bool { throw BareDecoder.refusal("NULL") }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { throw BareDecoder.refusal("Bool") }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { throw BareDecoder.refusal("String") }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw BareDecoder.refusal("Double") }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw BareDecoder.refusal("Float") }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw BareDecoder.refusal("Int8") }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw BareDecoder.refusal("Int16") }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw BareDecoder.refusal("Int32") }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { throw BareDecoder.refusal("Int64") }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw BareDecoder.refusal("UInt") }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw BareDecoder.refusal("UInt8") }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw BareDecoder.refusal("UInt16") }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw BareDecoder.refusal("UInt32") }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw BareDecoder.refusal("UInt64") }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        throw BareDecoder.refusal("\(T.self)")
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw BareDecoder.refusal("nested container")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw BareDecoder.refusal("nested unkeyed container")
    }

    func superDecoder() throws -> any Decoder { throw BareDecoder.refusal("super decoder") }

    func superDecoder(forKey key: Key) throws -> any Decoder { throw BareDecoder.refusal("super decoder") }
}
