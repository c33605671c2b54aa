import CSQLite
import Foundation

/// Close to the least a `Decoder` can do for rows of optional text, numbers and dates, nested or not:
/// each value the record asks for is the next column of the current row, read as the C loops read it
/// (`integer`, `real`, `date`), text in one pass (``BareRowDecoder/onePassText(_:_:)``, cheaper than the C loops'
/// `text`, as Bindery's own reading is), and a nested `Decodable` goes on reading the next columns.
/// No key is looked at, no column name or type is checked, no kept container is guarded against: the
/// benchmark checks afterwards that the rows it decoded are the C loop's.
///
/// It measures the floor under any Codable decoder of joined rows (as ``BareDecoder`` does for integer
/// rows): what the standard library's container box and the synthesized `init(from:)`s cost on their
/// own, with a value of each nested record made and copied as Codable makes it.
///
/// Safety: three unsafe steps; the first two each worth more than 2% of the floor line (callgrind, 2026-12-06: a
/// checked `unowned` reference costs +19%, a checked cast of the kept container +9.6%). A keyed
/// container holds its decoder `unowned(unsafe)`: the benchmark keeps the decoder alive for as long as
/// it decodes, and no container outlives a row (the synthesized `init(from:)`s keep none). A kept
/// container is cast back with `unsafeDowncast` only after its key type matched the one it was made
/// for, so it is always the `Kept<KeyedDecodingContainer<Key>>` it is cast to. Text is read through
/// SQLite's pointer rebound from `UInt8` to `CChar` (the same size and layout) for the one call of
/// `String(validatingCString:)`, which stops at the NUL byte SQLite ends a value's text with, within
/// its buffer, valid until the next step (the one-pass read the floor is meant to have). (A column counter in
/// memory of its own, a forced inline and an unchecked cast of a `Date` were measured too, each under
/// 1%, and are not kept.)
final class BareRowDecoder: Decoder {
    let statement: OpaquePointer
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// The column the next value is read from; the caller sets it back to 0 for each row.
    private var column: Int32 = 0
    /// The keyed container made for each key type asked for, reused row after row.
    private var containers: [(key: ObjectIdentifier, container: AnyObject)] = []

    init(statement: OpaquePointer) {
        self.statement = statement
    }

    /// Every row of the statement decoded as `T`, the statement reset afterwards. Out of line, so that
    /// callgrind shows its cost.
    @inline(never)
    func decodeAll<T: Decodable>(_ type: T.Type) throws -> [T] {
        var rows: [T] = []
        defer { sqlite3_reset(statement) }
        while sqlite3_step(statement) == SQLITE_ROW {
            startRow()
            rows.append(try T(from: self))
        }
        return rows
    }

    /// Starts a row: the next value is read from the first column.
    func startRow() {
        column = 0
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
    func next() -> Int32 {
        let current = column
        column = current &+ 1
        return current
    }
}

/// The keyed container of ``BareRowDecoder``: every value is the next column.
struct BareRowKeyedDecodingContainer<Key: CodingKey>: BareKeyedDecoding {
    unowned(unsafe) let decoder: BareRowDecoder
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        Int(sqlite3_column_int64(decoder.statement, decoder.next()))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        BareRowDecoder.onePassText(decoder.statement, decoder.next()) ?? ""
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        sqlite3_column_double(decoder.statement, decoder.next())
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        BareRowDecoder.onePassText(decoder.statement, decoder.next())
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
        return value as? T
    }

    /// A nested record: its values are the next columns.
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try T(from: decoder)
    }
}

extension BareRowDecoder {
    /// The text of `column`, or nil for another type: validated as it is copied, in one pass over
    /// SQLite's NUL-terminated text, as Bindery reads text (without Bindery's check for a NUL inside,
    /// which the benchmark's rows do not hold): the least a decoder can do to read text that must be
    /// valid UTF-8. See the type's safety argument.
    static func onePassText(_ statement: OpaquePointer, _ column: Int32) -> String? {
        guard sqlite3_column_type(statement, column) == SQLITE_TEXT, let bytes = sqlite3_column_text(statement, column)
        else { return nil }
        return UnsafeRawPointer(bytes).withMemoryRebound(to: CChar.self, capacity: 1) {
            String(validatingCString: $0)
        }
    }
}
