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
struct BareKeyedDecodingContainer<Key: CodingKey>: BareKeyedDecoding {
    unowned(unsafe) let decoder: BareDecoder

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        let column = decoder.column
        decoder.column = column &+ 1
        return Int(sqlite3_column_int64(decoder.statement, column))
    }
}
