import Foundation

/// Where a ``ColumnEncodable`` value writes its columns: each `encode` stores one value under its
/// coding key, converted as `encode(to:)` would convert it (a `Date` per the date strategy, a nested
/// value as JSON text, `nil` as NULL).
///
/// ```swift
/// func encodeColumns(to columns: inout ColumnWriter) throws {
///     try columns.encode(id, forKey: "id")
///     try columns.encode(name, forKey: "name")
/// }
/// ```
///
/// A writer is only valid during the `encodeColumns(to:)` call it is passed to: one kept and used later throws.
public struct ColumnWriter {
    /// The encoder's row, the one reference the writer holds (the value conversions are reached through
    /// it): making a writer for each record retains and releases it once.
    private let row: EncodedRow
    /// The `encodeColumns(to:)` call the writer was made for (see ``EncodedRow/endWriter()``).
    private let generation: UInt64

    init(row: EncodedRow) {
        self.row = row
        self.generation = row.writerGeneration
    }

    /// Stores `value` for `key`.
    @inline(__always)
    private func set(_ value: SQLiteValue, forKey key: String) throws {
        guard row.writerGeneration == generation else { throw Self.expired(key) }
        row.write(value, forKey: key)
    }

    /// Binds the INTEGER `value` for `key` when the record follows a bulk insert's plan (see
    /// ``ColumnPlan``), else stores it.
    private func set(integer value: Int64, forKey key: String) throws {
        guard !row.bindFollowingPlan(value, forKey: key, writer: generation) else { return }
        try set(.integer(value), forKey: key)
    }

    /// The error for a writer kept and used after its `encodeColumns(to:)` call returned, which would
    /// otherwise write into another record's row.
    @inline(never)
    private static func expired(_ key: String) -> EncodingError {
        EncodingError.invalidValue(
            key,
            .init(
                codingPath: [IndexKey(key)],
                debugDescription: "a ColumnWriter was used after the encodeColumns(to:) call it was passed to returned")
        )
    }

    /// Stores NULL.
    public mutating func encodeNil(forKey key: String) throws {
        guard !row.followsPlanWithNull(forKey: key, writer: generation) else { return }
        try set(.null, forKey: key)
    }

    /// Stores an INTEGER.
    public mutating func encode(_ value: Int, forKey key: String) throws {
        try set(integer: Int64(value), forKey: key)
    }

    /// Stores an INTEGER.
    public mutating func encode(_ value: Int64, forKey key: String) throws {
        #if _pointerBitWidth(_64)
            // Through the `Int` method (the same width here) rather than a body of its own: two
            // identical bodies would be merged into one function that both reach through an extra jump.
            try encode(Int(value), forKey: key)
        #else
            try set(integer: value, forKey: key)
        #endif
    }

    /// Stores an INTEGER.
    public mutating func encode(_ value: Int32, forKey key: String) throws {
        try set(integer: Int64(value), forKey: key)
    }

    /// Stores an INTEGER.
    public mutating func encode(_ value: Int16, forKey key: String) throws {
        try set(integer: Int64(value), forKey: key)
    }

    /// Stores an INTEGER.
    public mutating func encode(_ value: Int8, forKey key: String) throws {
        try set(integer: Int64(value), forKey: key)
    }

    /// Stores an INTEGER; a value above `Int64.max` throws `EncodingError.invalidValue`.
    public mutating func encode(_ value: UInt, forKey key: String) throws {
        try set(try row.conversions.encode(UInt64(value), codingPath: [IndexKey(key)]), forKey: key)
    }

    /// Stores an INTEGER; a value above `Int64.max` throws `EncodingError.invalidValue`.
    public mutating func encode(_ value: UInt64, forKey key: String) throws {
        try set(try row.conversions.encode(value, codingPath: [IndexKey(key)]), forKey: key)
    }

    /// Stores an INTEGER.
    public mutating func encode(_ value: UInt32, forKey key: String) throws {
        try set(integer: Int64(value), forKey: key)
    }

    /// Stores an INTEGER.
    public mutating func encode(_ value: UInt16, forKey key: String) throws {
        try set(integer: Int64(value), forKey: key)
    }

    /// Stores an INTEGER.
    public mutating func encode(_ value: UInt8, forKey key: String) throws {
        try set(integer: Int64(value), forKey: key)
    }

    /// Stores INTEGER 1 or 0.
    public mutating func encode(_ value: Bool, forKey key: String) throws {
        try set(integer: value ? 1 : 0, forKey: key)
    }

    /// Stores a REAL; NaN throws `EncodingError.invalidValue`.
    public mutating func encode(_ value: Double, forKey key: String) throws {
        guard value.isNaN || !row.bindFollowingPlan(value, forKey: key, writer: generation) else { return }
        try set(try row.conversions.encode(value, codingPath: [IndexKey(key)]), forKey: key)
    }

    /// Stores a REAL; NaN throws `EncodingError.invalidValue`.
    public mutating func encode(_ value: Float, forKey key: String) throws {
        try set(try row.conversions.encode(Double(value), codingPath: [IndexKey(key)]), forKey: key)
    }

    /// Stores TEXT.
    public mutating func encode(_ value: String, forKey key: String) throws {
        try set(.text(value), forKey: key)
    }

    /// Stores any other value as `encode(to:)` stores a property of its type: `Date`, `UUID`, `URL`,
    /// `Decimal` per the options, `Data` as a BLOB, a raw-value enum as its raw value, a nested value as
    /// JSON text.
    public mutating func encode<T: Encodable>(_ value: T, forKey key: String) throws {
        try set(try row.conversions.encode(value, codingPath: [IndexKey(key)]), forKey: key)
    }

    /// Stores `value`, or NULL when it is nil (as `encode(to:)` does for an optional property).
    public mutating func encode<T: Encodable>(_ value: T?, forKey key: String) throws {
        if let value {
            try encode(value, forKey: key)
        } else {
            try encodeNil(forKey: key)
        }
    }
}
