import Foundation

/// A top-level unkeyed container of ``RowDecoder``: the row's columns, in order. Asked for only by types
/// of your own: arrays, sets and dictionaries are read from JSON (see ``RowDecoder/TopLevelKind/json``).
struct RowUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    unowned(unsafe) let decoder: RowDecoder  // see RowKeyedDecodingContainer
    var codingPath: [any CodingKey] { [] }
    var count: Int? { Int(decoder.columnCount) }
    var isAtEnd: Bool { currentIndex >= Int(decoder.columnCount) }
    private(set) var currentIndex = 0

    init(decoder: RowDecoder) {
        self.decoder = decoder
    }

    private mutating func nextColumn<T>(_ type: T.Type) throws -> Int32 {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                T.self,
                .init(
                    codingPath: [IndexKey(String(currentIndex))],
                    debugDescription: "the row has only \(decoder.columnCount) column(s)"))
        }
        defer { currentIndex += 1 }
        return Int32(currentIndex)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if decoder.isNull(Int32(currentIndex)) {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(T.self, column: nextColumn(T.self))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw unsupported("nestedContainer(keyedBy:)")
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw unsupported("nestedUnkeyedContainer()")
    }

    mutating func superDecoder() throws -> any Decoder {
        ColumnDecoder(row: decoder, column: try nextColumn(Any.self))
    }

    private func unsupported(_ what: String) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: [IndexKey(String(currentIndex))],
                debugDescription: "\(what) is not supported when decoding a row's columns: a row is flat"))
    }
}
