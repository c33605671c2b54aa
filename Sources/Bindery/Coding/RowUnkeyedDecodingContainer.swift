import Foundation

/// A top-level unkeyed container of ``RowDecoder``: the row's columns, in order. Asked for only by types
/// of your own: arrays, sets and dictionaries are read from JSON (see ``RowDecoder/TopLevelKind/json``).
/// Kept and used after its row, it throws, and reads nothing.
struct RowUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    /// The row decoder, held strongly: a container kept past its row may outlive the statement.
    let decoder: RowDecoder
    /// The row generation the container was made in (see ``RowDecoder/rowGeneration``).
    private let generation: UInt64
    var codingPath: [any CodingKey] { [] }
    var count: Int? { Int(decoder.columnCount) }
    var isAtEnd: Bool { currentIndex >= Int(decoder.columnCount) }
    private(set) var currentIndex = 0

    init(decoder: RowDecoder) {
        self.decoder = decoder
        self.generation = decoder.rowGeneration
    }

    /// Throws when the container was kept past its row.
    @inline(__always)
    private func checkValid() throws {
        guard decoder.rowGeneration == generation else {
            throw RowDecoder.expired("an unkeyed decoding container", codingPath: [IndexKey(String(currentIndex))])
        }
    }

    private mutating func nextColumn<T>(_ type: T.Type) throws -> Int32 {
        try checkValid()
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
        try checkValid()
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
        try checkValid()
        throw unsupported("nestedContainer(keyedBy:)")
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try checkValid()
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
