import Foundation

/// A `Decoder` over one column of a ``RowDecoder``'s row, with a single-value container: how raw-value
/// enums, wrappers and `superDecoder(forKey:)` read a column.
///
/// Asked for a keyed or unkeyed container while probing (``isProbe``), it throws
/// ``NestedContainerSignal`` and the row decoder reads the value from JSON instead; otherwise it throws
/// a `DecodingError` saying that a column holds one value.
struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    // unowned(unsafe): used only inside the decoding call of the row decoder, which stays alive.
    unowned(unsafe) let row: RowDecoder
    let column: Int32
    var isProbe = false

    init(row: RowDecoder, column: Int32, isProbe: Bool = false) {
        self.row = row
        self.column = column
        self.isProbe = isProbe
    }

    var codingPath: [any CodingKey] { [IndexKey(row.columnName(column))] }
    var userInfo: [CodingUserInfoKey: Any] { row.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw isProbe ? NestedContainerSignal() : unsupported("container(keyedBy:)")
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw isProbe ? NestedContainerSignal() : unsupported("unkeyedContainer()")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    private func unsupported(_ what: String) -> Error {
        DecodingError.dataCorrupted(
            .init(
                codingPath: codingPath,
                debugDescription:
                    "\(what) is not supported on the decoder of column \"\(row.columnName(column))\": a column "
                    + "holds one value; decode it with singleValueContainer()"))
    }

    func decodeNil() -> Bool { row.isNull(column) }
    func decode(_ type: Bool.Type) throws -> Bool { try row.bool(column) }
    func decode(_ type: String.Type) throws -> String { try row.string(column) }
    func decode(_ type: Double.Type) throws -> Double { try row.double(column, as: Double.self) }
    func decode(_ type: Float.Type) throws -> Float { try row.float(column) }
    func decode(_ type: Int.Type) throws -> Int { try row.integer(Int.self, column) }
    func decode(_ type: Int8.Type) throws -> Int8 { try row.integer(Int8.self, column) }
    func decode(_ type: Int16.Type) throws -> Int16 { try row.integer(Int16.self, column) }
    func decode(_ type: Int32.Type) throws -> Int32 { try row.integer(Int32.self, column) }
    func decode(_ type: Int64.Type) throws -> Int64 { try row.integer(Int64.self, column) }
    func decode(_ type: UInt.Type) throws -> UInt { try row.integer(UInt.self, column) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try row.integer(UInt8.self, column) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try row.integer(UInt16.self, column) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try row.integer(UInt32.self, column) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try row.integer(UInt64.self, column) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try row.decodeValue(T.self, column: column) }
}
