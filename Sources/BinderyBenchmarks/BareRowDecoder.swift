import CSQLite
import Foundation

/// Close to the least a `Decoder` can do for rows of optional text, numbers and dates, nested or not:
/// each value the record asks for is the next column of the current row, read as the C loops read it
/// (`text`, `integer`, `real`, `date`), and a nested `Decodable` goes on reading the next columns.
/// No key is looked at, no column name or type is checked, no kept container is guarded against: the
/// benchmark checks afterwards that the rows it decoded are the C loop's.
///
/// It measures the floor under any Codable decoder of joined rows (as ``BareDecoder`` does for integer
/// rows): what the standard library's container box and the synthesized `init(from:)`s cost on their
/// own, with a value of each nested record made and copied as Codable makes it.
final class BareRowDecoder: Decoder {
    let statement: OpaquePointer
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// The column the next value is read from, in memory of its own (a stored `var` would pay for an
    /// exclusivity check on every value); the caller sets it back to 0 for each row.
    private let cursor = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    /// The keyed container made for each key type asked for, reused row after row.
    private var containers: [(key: ObjectIdentifier, container: AnyObject)] = []

    init(statement: OpaquePointer) {
        self.statement = statement
        cursor.initialize(to: 0)
    }

    deinit {
        cursor.deallocate()
    }

    /// Starts a row: the next value is read from the first column.
    func startRow() {
        cursor.pointee = 0
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let wanted = ObjectIdentifier(Key.self)
        for kept in containers where kept.key == wanted {
            return unsafeDowncast(kept.container, to: Kept<KeyedDecodingContainer<Key>>.self).value()
        }
        return makeContainer(keyedBy: Key.self)
    }

    /// Out of line: making a container needs its type's metadata.
    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        let made = KeyedDecodingContainer(BareRowKeyedDecodingContainer<Key>(decoder: self))
        containers.append((ObjectIdentifier(Key.self), Kept(made)))
        return made
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw BareDecoder.refusal("an unkeyed container")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw BareDecoder.refusal("a single-value container")
    }

    /// The next column.
    @inline(__always)
    func next() -> Int32 {
        let current = cursor.pointee
        cursor.pointee = current &+ 1
        return current
    }
}

/// The keyed container of ``BareRowDecoder``: every value is the next column.
struct BareRowKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    unowned(unsafe) let decoder: BareRowDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        Int(sqlite3_column_int64(decoder.statement, decoder.next()))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        text(decoder.statement, decoder.next()) ?? ""
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        text(decoder.statement, decoder.next())
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        integer(decoder.statement, decoder.next())
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        real(decoder.statement, decoder.next())
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard T.self == Date.self else { throw BareDecoder.refusal("\(T.self)?") }
        guard let value = date(decoder.statement, decoder.next()) else { return nil }
        // `T` is `Date` (checked above): the same value, without the runtime's cast (and without
        // `Optional<T>`'s metadata, which a cast to `T?` would look up).
        return unsafeBitCast(value, to: T.self)
    }

    /// A nested record: its values are the next columns.
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try T(from: decoder)
    }

    func decodeNil(forKey key: Key) throws -> Bool { throw BareDecoder.refusal("NULL") }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { throw BareDecoder.refusal("Bool") }
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
