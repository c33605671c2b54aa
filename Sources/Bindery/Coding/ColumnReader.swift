import Foundation

/// Where a ``ColumnDecodable`` value reads its columns: each `decode` reads the column of one coding
/// key, converted and checked as `init(from:)` would (`DecodingError`s that name the column, the SQL
/// type found and the Swift type wanted).
///
/// ```swift
/// init(columns: ColumnReader) throws {
///     id = try columns.decodeIfPresent(Int64.self, forKey: "id")
///     name = try columns.decode(String.self, forKey: "name")
/// }
/// ```
///
/// A reader is only valid during the `init(columns:)` call it is passed to: one kept and used later throws.
public struct ColumnReader {
    private let decoder: RowDecoder
    /// The row the reader was made for (see ``RowDecoder/rowGeneration``).
    private let generation: UInt64

    init(decoder: RowDecoder) {
        self.decoder = decoder
        self.generation = decoder.rowGeneration
    }

    /// The column of `key`; negative when the row has none or several. A reader kept past its `init(columns:)` call
    /// throws rather than read a row that is gone.
    @inline(__always)
    private func lookUp(_ key: String) throws -> Int32 {
        guard decoder.rowGeneration == generation else { throw Self.expired(key) }
        return decoder.column(for: key)
    }

    /// The error for a reader kept and used after its `init(columns:)` call returned.
    @inline(never)
    private static func expired(_ key: String) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: [IndexKey(key)],
                debugDescription: "a ColumnReader was used after the init(columns:) call it was passed to returned"))
    }

    /// The column of `key`; a key with no column throws `DecodingError.keyNotFound`.
    @inline(__always)
    private func column(_ key: String) throws -> Int32 {
        let column = try lookUp(key)
        guard column >= 0 else {
            throw decoder.unresolved(IndexKey(key), column: column)
        }
        return column
    }

    /// The column of `key` when it exists and is not NULL; a key that several columns share throws.
    @inline(__always)
    private func presentColumn(_ key: String) throws -> Int32? {
        let column = try lookUp(key)
        guard column >= 0 else {
            // No column (or several): nil would say NULL, which nothing read.
            throw decoder.unresolved(IndexKey(key), column: column)
        }
        return decoder.isNull(column) ? nil : column
    }

    /// Whether `key` has a column in the row. A key that several columns share (`id` in
    /// `SELECT loans.*, books.*`) throws `DecodingError.dataCorrupted` naming its positions.
    public func contains(_ key: String) throws -> Bool {
        let column = try lookUp(key)
        if RowDecoder.isAmbiguous(column) { throw decoder.ambiguity(column) }
        return column >= 0
    }

    /// Whether the column of `key` holds NULL; a key with no column throws.
    public func decodeNil(forKey key: String) throws -> Bool {
        decoder.isNull(try column(key))
    }

    /// An INTEGER column; a value that does not fit in `Int` throws.
    public func decode(_ type: Int.Type, forKey key: String) throws -> Int {
        try decoder.integer(Int.self, try column(key))
    }

    /// An INTEGER column; a value that does not fit in `Int8` throws.
    public func decode(_ type: Int8.Type, forKey key: String) throws -> Int8 {
        try decoder.integer(Int8.self, try column(key))
    }

    /// An INTEGER column; a value that does not fit in `Int16` throws.
    public func decode(_ type: Int16.Type, forKey key: String) throws -> Int16 {
        try decoder.integer(Int16.self, try column(key))
    }

    /// An INTEGER column; a value that does not fit in `Int32` throws.
    public func decode(_ type: Int32.Type, forKey key: String) throws -> Int32 {
        try decoder.integer(Int32.self, try column(key))
    }

    /// An INTEGER column; a value that does not fit in `Int64` throws.
    public func decode(_ type: Int64.Type, forKey key: String) throws -> Int64 {
        try decoder.integer(Int64.self, try column(key))
    }

    /// An INTEGER column; a value that does not fit in `UInt` throws.
    public func decode(_ type: UInt.Type, forKey key: String) throws -> UInt {
        try decoder.integer(UInt.self, try column(key))
    }

    /// An INTEGER column; a value that does not fit in `UInt8` throws.
    public func decode(_ type: UInt8.Type, forKey key: String) throws -> UInt8 {
        try decoder.integer(UInt8.self, try column(key))
    }

    /// An INTEGER column; a value that does not fit in `UInt16` throws.
    public func decode(_ type: UInt16.Type, forKey key: String) throws -> UInt16 {
        try decoder.integer(UInt16.self, try column(key))
    }

    /// An INTEGER column; a value that does not fit in `UInt32` throws.
    public func decode(_ type: UInt32.Type, forKey key: String) throws -> UInt32 {
        try decoder.integer(UInt32.self, try column(key))
    }

    /// An INTEGER column; a value that does not fit in `UInt64` throws.
    public func decode(_ type: UInt64.Type, forKey key: String) throws -> UInt64 {
        try decoder.integer(UInt64.self, try column(key))
    }

    /// A REAL (or INTEGER) column.
    public func decode(_ type: Double.Type, forKey key: String) throws -> Double {
        try decoder.double(try column(key), as: Double.self)
    }

    /// A REAL (or INTEGER) column rounded to the nearest `Float`.
    public func decode(_ type: Float.Type, forKey key: String) throws -> Float {
        try decoder.float(try column(key))
    }

    /// An INTEGER 0 or 1 column.
    public func decode(_ type: Bool.Type, forKey key: String) throws -> Bool {
        try decoder.bool(try column(key))
    }

    /// A TEXT column.
    public func decode(_ type: String.Type, forKey key: String) throws -> String {
        try decoder.string(try column(key))
    }

    /// A column of any other type, read as `init(from:)` reads a property of that type: `Date`,
    /// `UUID`, `URL`, `Decimal` per the options, `Data` from a BLOB, a raw-value enum from its raw
    /// value, a nested value from JSON text.
    public func decode<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T {
        try decoder.decodeValue(T.self, column: try column(key))
    }

    /// nil when the key has no column or the column is NULL, else the column as an `Int`.
    public func decodeIfPresent(_ type: Int.Type, forKey key: String) throws -> Int? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integer(Int.self, column)
    }

    /// nil when the key has no column or the column is NULL, else the column as an `Int8`.
    public func decodeIfPresent(_ type: Int8.Type, forKey key: String) throws -> Int8? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integer(Int8.self, column)
    }

    /// nil when the key has no column or the column is NULL, else the column as an `Int16`.
    public func decodeIfPresent(_ type: Int16.Type, forKey key: String) throws -> Int16? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integer(Int16.self, column)
    }

    /// nil when the key has no column or the column is NULL, else the column as an `Int32`.
    public func decodeIfPresent(_ type: Int32.Type, forKey key: String) throws -> Int32? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integer(Int32.self, column)
    }

    /// nil when the key has no column or the column is NULL, else the column as an `Int64`.
    public func decodeIfPresent(_ type: Int64.Type, forKey key: String) throws -> Int64? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integer(Int64.self, column)
    }

    /// nil when the key has no column or the column is NULL, else the column as a `UInt`.
    public func decodeIfPresent(_ type: UInt.Type, forKey key: String) throws -> UInt? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integer(UInt.self, column)
    }

    /// nil when the key has no column or the column is NULL, else the column as a `UInt8`.
    public func decodeIfPresent(_ type: UInt8.Type, forKey key: String) throws -> UInt8? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integer(UInt8.self, column)
    }

    /// nil when the key has no column or the column is NULL, else the column as a `UInt16`.
    public func decodeIfPresent(_ type: UInt16.Type, forKey key: String) throws -> UInt16? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integer(UInt16.self, column)
    }

    /// nil when the key has no column or the column is NULL, else the column as a `UInt32`.
    public func decodeIfPresent(_ type: UInt32.Type, forKey key: String) throws -> UInt32? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integer(UInt32.self, column)
    }

    /// nil when the key has no column or the column is NULL, else the column as a `UInt64`.
    public func decodeIfPresent(_ type: UInt64.Type, forKey key: String) throws -> UInt64? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integer(UInt64.self, column)
    }

    /// nil when the key has no column or the column is NULL, else the column as a `Double`.
    public func decodeIfPresent(_ type: Double.Type, forKey key: String) throws -> Double? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.double(column, as: Double.self)
    }

    /// nil when the key has no column or the column is NULL, else the column as a `Float`.
    public func decodeIfPresent(_ type: Float.Type, forKey key: String) throws -> Float? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.float(column)
    }

    /// nil when the key has no column or the column is NULL, else the column as a `Bool`.
    public func decodeIfPresent(_ type: Bool.Type, forKey key: String) throws -> Bool? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.bool(column)
    }

    /// nil when the key has no column or the column is NULL, else the column as a `String`.
    public func decodeIfPresent(_ type: String.Type, forKey key: String) throws -> String? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.string(column)
    }

    /// nil when the key has no column or the column is NULL, else the column as a `T`.
    public func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.decodeValue(T.self, column: column)
    }
}
