import Foundation

/// A `Decoder` over one column of a ``RowDecoder``'s row, with a single-value container: how raw-value
/// enums, wrappers and `superDecoder(forKey:)` read a column.
///
/// Asked for a keyed or unkeyed container while probing (``isProbe``), it throws
/// ``NestedContainerSignal`` and the row decoder reads the value from JSON instead; otherwise it throws
/// a `DecodingError` saying that a column holds one value.
///
/// Made for one row: kept and used after it (by a value that keeps its decoder or its single-value
/// container), it throws, and reads nothing.
struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    /// The row decoder, held strongly: a column decoder kept past its row may outlive the statement.
    let row: RowDecoder
    /// The row generation the decoder was made in (see ``RowDecoder/rowGeneration``).
    let generation: UInt64
    let column: Int32
    var isProbe = false

    init(row: RowDecoder, column: Int32, isProbe: Bool = false) {
        self.row = row
        self.generation = row.rowGeneration
        self.column = column
        self.isProbe = isProbe
    }

    /// The column, when its row is still the current one.
    @inline(__always)
    private var current: Int32 {
        get throws {
            guard row.rowGeneration == generation else {
                throw RowDecoder.expired("a column's decoder or single-value container")
            }
            return column
        }
    }

    var codingPath: [any CodingKey] {
        row.rowGeneration == generation ? [IndexKey(row.columnName(column))] : [IndexKey(String(column))]
    }
    var userInfo: [CodingUserInfoKey: Any] { row.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        _ = try current
        throw isProbe ? NestedContainerSignal() : unsupported("container(keyedBy:)")
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        _ = try current
        throw isProbe ? NestedContainerSignal() : unsupported("unkeyedContainer()")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        _ = try current
        return self
    }

    private func unsupported(_ what: String) -> Error {
        DecodingError.dataCorrupted(
            .init(
                codingPath: codingPath,
                debugDescription:
                    "\(what) is not supported on the decoder of column \"\(row.columnName(column))\": a column "
                    + "holds one value; decode it with singleValueContainer()"))
    }

    /// False once the row is gone (decoding the value then throws).
    func decodeNil() -> Bool {
        guard let column = try? current else { return false }
        return row.isNull(column)
    }
    func decode(_ type: Bool.Type) throws -> Bool { try row.bool(current) }
    func decode(_ type: String.Type) throws -> String { try row.string(current) }
    func decode(_ type: Double.Type) throws -> Double { try row.double(current, as: Double.self) }
    func decode(_ type: Float.Type) throws -> Float { try row.float(current) }
    func decode(_ type: Int.Type) throws -> Int { try row.integer(Int.self, current) }
    func decode(_ type: Int8.Type) throws -> Int8 { try row.integer(Int8.self, current) }
    func decode(_ type: Int16.Type) throws -> Int16 { try row.integer(Int16.self, current) }
    func decode(_ type: Int32.Type) throws -> Int32 { try row.integer(Int32.self, current) }
    func decode(_ type: Int64.Type) throws -> Int64 { try row.integer(Int64.self, current) }
    func decode(_ type: UInt.Type) throws -> UInt { try row.integer(UInt.self, current) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try row.integer(UInt8.self, current) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try row.integer(UInt16.self, current) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try row.integer(UInt32.self, current) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try row.integer(UInt64.self, current) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try row.decodeValue(T.self, column: current) }
}
