/// A type that can also write its columns by hand, for the fastest inserts.
///
/// A `Codable` record reaches Bindery's encoder through the standard library's container box, which
/// costs about 100 instructions per property before any of Bindery's code runs. A record that also
/// conforms to `ColumnEncodable` writes each column itself, by its coding key, and every record
/// operation (`insert`, `insert(contentsOf:)`, `update`, `upsert`, ``RowEncoder``) uses it instead:
///
/// ```swift
/// struct Reading: Record, ColumnEncodable {
///     var id: Int64?
///     var sensor: String
///     var value: Double
///     var takenAt: Date
///
///     func encodeColumns(to columns: inout ColumnWriter) throws {
///         try columns.encode(id, forKey: "id")
///         try columns.encode(sensor, forKey: "sensor")
///         try columns.encode(value, forKey: "value")
///         try columns.encode(takenAt, forKey: "takenAt")
///     }
/// }
/// ```
///
/// The keys are the coding keys' `stringValue`s (before ``CodingOptions/keyStrategy``), best written in
/// the order `encode(to:)` writes them, and the values are stored by the same rules as `encode(to:)`
/// stores them. The two must write the same row, and Bindery checks that they do: the first 8 records
/// of a type on each connection are encoded both ways and compared value by value, and every later
/// record that writes other columns than the first one did is compared again. A column left out, a
/// misspelt or extra key, or two values swapped in those records throws `EncodingError.invalidValue`
/// naming the column before anything is written. Values are only compared on the first records: two
/// swapped values that happen to agree there go unnoticed.
public protocol ColumnEncodable: Encodable {
    /// Writes every stored property as a column, by coding key.
    func encodeColumns(to columns: inout ColumnWriter) throws
}

extension ColumnEncodable {
    /// Writes the columns of the value at `place`, which is of this type, where it lies: called through
    /// the metatype, so that code generic over an `Encodable` type can reach the conformance without
    /// boxing or copying each value. A value of another type writes nothing.
    static func encodeColumns(of place: ExactCast.Place, to columns: inout ColumnWriter) throws {
        try place.read(as: Self.self) { try $0.encodeColumns(to: &columns) }
    }
}
