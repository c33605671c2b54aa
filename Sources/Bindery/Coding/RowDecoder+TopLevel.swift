import CSQLite
import Foundation

/// How a whole row decodes: by kind of type (a record, a scalar, an optional, a ``ColumnDecodable``
/// type, a JSON collection), and the check of `init(columns:)` against `init(from:)`.
extension RowDecoder {
    /// Decodes a `T` from the current row, as a type of the given kind.
    func decodeRow<T: Decodable>(_ type: T.Type, kind: TopLevelKind) throws -> T {
        order.value.position = 0
        switch kind {
        case .record:
            values.loadRow()
            return try T(from: self)
        case .rawValue:
            do {
                return try T(from: self)
            } catch {
                // Say which value no case matches.
                throw columnCount > 0 ? explained(error, decoding: T.self, column: 0) : error
            }
        case .columns(let columnDecodable):
            if verifiedRows < RowEncoderCore.rowsToVerify {
                return try decodeVerified(T.self, columnDecodable)
            }
            return try decodeColumns(T.self, columnDecodable)
        case .scalar:
            guard columnCount > 0 else {
                throw DecodingError.valueNotFound(
                    T.self, .init(codingPath: [], debugDescription: "the statement returns no column"))
            }
            return try decodeValue(T.self, column: 0)
        case .optional(let optional):
            return try decodeOptionalRow(T.self, optional)
        case .json:
            return try decodeJSONRow(T.self)
        }
    }

    /// Decodes an array, set or dictionary from the statement's only column, as a property of its type
    /// is decoded; out of line, as it is no common path.
    @inline(never)
    private func decodeJSONRow<T: Decodable>(_ type: T.Type) throws -> T {
        guard columnCount == 1 else {
            let names = columnNames.map { "\"\($0)\"" }.joined(separator: ", ")
            throw DecodingError.typeMismatch(
                T.self,
                .init(
                    codingPath: [],
                    debugDescription:
                        "\(T.self) is read from one column holding its JSON text, but the statement returns "
                        + (columnCount == 0 ? "no column" : "\(columnCount) columns (\(names))")
                        + "; select only that column, or decode a struct of the columns"))
        }
        return try decodeJSON(T.self, column: 0)
    }

    /// Kept out of ``decodeRow(_:kind:)``: the cast needs `Optional<T>`'s metadata, which would
    /// otherwise be looked up for every row of every type.
    @inline(never)
    private func decodeOptionalRow<T>(_ type: T.Type, _ optional: any DecodableOptional.Type) throws -> T {
        guard let value = try optional.decodeTopLevel(from: self) as? T else {
            throw DecodingError.typeMismatch(
                T.self, .init(codingPath: [], debugDescription: "cannot decode \(T.self) from a row"))
        }
        return value
    }

    /// How a type decodes from a whole row.
    enum TopLevelKind {
        /// By `init(from:)` on the row: structs by column name.
        case record
        /// A raw-value type, by `init(from:)` from the first column; a raw value no case matches is
        /// named in the error.
        case rawValue
        /// A type with its own column conversion (`Date`, `UUID`, `String` …), from the first column.
        case scalar
        /// An `Optional`: nil from a NULL first column, else its wrapped type from the row.
        case optional(any DecodableOptional.Type)
        /// A ``ColumnDecodable`` type, by `init(columns:)`.
        case columns(any ColumnDecodable.Type)
        /// An array, set or dictionary (a ``JSONCollection``): from the JSON text of the statement's
        /// only column, never from the row's columns in order, which would decode `[String]` from
        /// `SELECT tags` as the one-element list of the column's raw text.
        case json
    }

    /// Whether a property of type `T` is read from one column of its own, never from a nested
    /// value's columns: the types with a conversion of their own, and raw-value types.
    static func readsOneColumn<T>(_ type: T.Type) -> Bool {
        ValueEncoder.isScalar(T.self) || T.self == SQLiteValue.self || T.self is any RawRepresentable.Type
    }

    static func topLevelKind<T>(of type: T.Type) -> TopLevelKind {
        if ValueEncoder.isScalar(T.self) || T.self == SQLiteValue.self || T.self == Double.self || T.self == Int.self
            || T.self == Int64.self
            || T.self == Bool.self || T.self == Float.self
        {
            return .scalar
        }
        if let optional = T.self as? any DecodableOptional.Type {
            return .optional(optional)
        }
        if let columnDecodable = T.self as? any ColumnDecodable.Type {
            return .columns(columnDecodable)
        }
        if T.self is any RawRepresentable.Type {
            return .rawValue
        }
        if T.self is any JSONCollection.Type {
            return .json
        }
        return .record
    }

    /// Decodes the current row with `init(columns:)`.
    @inline(__always)
    private func decodeColumns<T: Decodable>(_ type: T.Type, _ columnDecodable: any ColumnDecodable.Type) throws -> T {
        // A reader kept past its row refuses to read (see ColumnReader).
        try columnDecodable.decode(columns: ColumnReader(decoder: self), as: T.self)
    }

    /// The current row's generation: a ``ColumnReader``, a column decoder or an unkeyed container holds
    /// the one it was made in, and refuses to read once it has changed.
    @inline(__always)
    var rowGeneration: UInt64 { generations.row }

    /// Decodes the current row with `init(columns:)` and, when `T` is also `Encodable`, with
    /// `init(from:)` too, and checks that the two values encode to the same columns; returns the
    /// `init(columns:)` value. A row that `init(from:)` cannot decode, or whose values cannot be
    /// encoded again, is not compared (and not counted as checked): the hand-written value stands.
    @inline(never)
    private func decodeVerified<T: Decodable>(_ type: T.Type, _ columnDecodable: any ColumnDecodable.Type) throws -> T {
        let byHand = try decodeColumns(T.self, columnDecodable)
        guard T.self is any Encodable.Type else {
            verifiedRows = RowEncoderCore.rowsToVerify  // nothing to compare with
            return byHand
        }
        order.value.position = 0
        guard let byCodable = try? T(from: self), let handEncodable = byHand as? any Encodable,
            let codableEncodable = byCodable as? any Encodable
        else {
            return byHand
        }
        let encoder = RowEncoder(options: options)
        guard let written = try? encoder.encode(handEncodable), let expected = try? encoder.encode(codableEncodable)
        else {
            return byHand
        }
        if let mismatch = ColumnMismatch(expected: expected, written: written) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [IndexKey(mismatch.column)],
                    debugDescription: "init(columns:) of \(T.self) does not read what init(from:) reads: "
                        + "encoded again, \(mismatch.description)"))
        }
        verifiedRows += 1
        return byHand
    }
}
