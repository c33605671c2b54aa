/// A type that can also read its columns by hand, for the fastest fetches.
///
/// A `Codable` record is decoded through the standard library's container box, which costs about
/// 100 instructions per property before any of Bindery's code runs. A record that also conforms to
/// `ColumnDecodable` reads each column itself, by its coding key, and every fetch (`fetchAll`,
/// `fetchOne`, `fetchCursor`, `find`, the rows `insert` and `upsert` return) uses it instead:
///
/// ```swift
/// struct Reading: Record, ColumnDecodable {
///     var id: Int64?
///     var sensor: String
///     var value: Double
///     var takenAt: Date
///
///     init(columns: ColumnReader) throws {
///         id = try columns.decodeIfPresent(Int64.self, forKey: "id")
///         sensor = try columns.decode(String.self, forKey: "sensor")
///         value = try columns.decode(Double.self, forKey: "value")
///         takenAt = try columns.decode(Date.self, forKey: "takenAt")
///     }
/// }
/// ```
///
/// The keys are the coding keys' `stringValue`s (before ``CodingOptions/keyStrategy``), and each value
/// is converted by the same rules, with the same errors, as `init(from:)` converts it. The two must read
/// the same values: when the type is also `Encodable`, the first 8 rows each statement reads are decoded
/// both ways, and two values that differ once encoded again (two columns swapped, a misspelt key read
/// with `decodeIfPresent`) throw `DecodingError.dataCorrupted` naming the column. A row that
/// `init(from:)` cannot decode, or whose values cannot be encoded again, is not compared.
public protocol ColumnDecodable: Decodable {
    /// Reads every stored property from its column, by coding key.
    init(columns: ColumnReader) throws
}

/// A type that both writes and reads its columns by hand.
public typealias ColumnCodable = ColumnDecodable & ColumnEncodable

extension ColumnDecodable {
    /// Decodes a value with `init(columns:)` and returns it as `T`, which must be `Self`: called
    /// through the metatype, so that code generic over a `Decodable` type can reach the conformance
    /// without casting each value.
    static func decode<T>(columns: ColumnReader, as type: T.Type) throws -> T {
        guard Self.self == T.self else {
            throw DecodingError.typeMismatch(
                T.self,
                .init(codingPath: [], debugDescription: "cannot decode \(T.self) with init(columns:) of \(Self.self)"))
        }
        return try ExactCast.decoded(try Self(columns: columns), as: T.self)
    }
}
