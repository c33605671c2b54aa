import CSQLite
import Foundation

/// Decoding a value of any type from one column: the types with a conversion of their own, optionals,
/// nested values from JSON, everything else through a single-value decoder.
extension RowDecoder {
    // MARK: Values of any type

    /// Decodes a value of any type from `column`: the special types directly, nested values from
    /// JSON, and everything else (raw-value enums, wrappers, optionals) through a single-value decoder.
    func decodeValue<T: Decodable>(_ type: T.Type, column: Int32) throws -> T {
        // Each value below is handed back as a T once T was found to be its type (see ExactCast).
        if T.self == Date.self { return try ExactCast.decoded(date(column), as: T.self) }
        if T.self == String.self { return try ExactCast.decoded(string(column), as: T.self) }
        if T.self == Int.self { return try ExactCast.decoded(integer(Int.self, column), as: T.self) }
        if T.self == Int64.self { return try ExactCast.decoded(int64(column, as: Int64.self), as: T.self) }
        if T.self == Double.self { return try ExactCast.decoded(double(column, as: Double.self), as: T.self) }
        if T.self == Bool.self { return try ExactCast.decoded(bool(column), as: T.self) }
        if T.self == UUID.self { return try ExactCast.decoded(uuid(column), as: T.self) }
        if T.self == Data.self { return try ExactCast.decoded(data(column), as: T.self) }
        if T.self == URL.self { return try ExactCast.decoded(url(column), as: T.self) }
        if T.self == Decimal.self { return try ExactCast.decoded(decimal(column), as: T.self) }
        if T.self == SQLiteValue.self { return try ExactCast.decoded(checkedColumnValue(column), as: T.self) }
        return try decodeOtherValue(T.self, column: column)
    }

    /// Decodes an optional, a nested value or any other type without a conversion of its own. Kept out
    /// of ``decodeValue(_:column:)``: the optional cast needs `Optional<T>`'s metadata, whose look-up
    /// the compiler would otherwise make on every call, for dates and strings too.
    @inline(never)
    private func decodeOtherValue<T: Decodable>(_ type: T.Type, column: Int32) throws -> T {
        if let optional = T.self as? any DecodableOptional.Type {
            guard let value = try optional.decodeColumn(from: self, column: column) as? T else {
                throw mismatch(T.self, column: column, expected: "\(T.self)")
            }
            return value
        }
        let typeID = ObjectIdentifier(T.self)
        if !jsonTypes.contains(typeID) {
            do {
                return try T(from: ColumnDecoder(row: self, column: column, isProbe: true))
            } catch is NestedContainerSignal {
                jsonTypes.insert(typeID)
            } catch {
                throw explained(error, decoding: T.self, column: column)
            }
        }
        return try decodeJSON(T.self, column: column)
    }

    /// Decodes a nested value from the JSON text (or BLOB) in `column`.
    func decodeJSON<T: Decodable>(_ type: T.Type, column: Int32) throws -> T {
        let bytes: Data
        switch sqlite3_column_type(handle, column) {
        case SQLITE_TEXT, SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            if let pointer = sqlite3_column_blob(handle, column) {
                bytes = Data(bytes: pointer, count: count)
            } else {
                bytes = try Statement.emptyOrNoMemory(Data(), handle, column: column, byteCount: Int32(count))
            }
        case SQLITE_NULL:
            bytes = Data("null".utf8)
        default:
            throw mismatch(T.self, column: column, expected: "JSON text")
        }
        do {
            return try json.decode(T.self, from: bytes)
        } catch let error as DecodingError {
            let inner = error.context
            let path =
                inner.codingPath.isEmpty ? "" : " (at \(inner.codingPath.map(\.stringValue).joined(separator: ".")))"
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [IndexKey(columnName(column))] + inner.codingPath,
                    debugDescription:
                        "column \"\(columnName(column))\" holds \(describe(column)), which does not decode as "
                        + "\(T.self)\(path): \(inner.debugDescription)",
                    underlyingError: error))
        }
    }
}

/// `Optional` of a `Decodable` type, whose own `init(from:)` would decode a `Date` as a Double: the row
/// decoder reads the wrapped type through its own conversions instead.
protocol DecodableOptional {
    /// nil when `column` is NULL, else the wrapped value read from it.
    static func decodeColumn(from decoder: RowDecoder, column: Int32) throws -> Self
    /// nil when the first column is NULL, else the wrapped value read from the whole row.
    static func decodeTopLevel(from decoder: RowDecoder) throws -> Self
}

extension Optional: DecodableOptional where Wrapped: Decodable {
    static func decodeColumn(from decoder: RowDecoder, column: Int32) throws -> Wrapped? {
        if decoder.isNull(column) { return nil }
        return try decoder.decodeValue(Wrapped.self, column: column)
    }

    static func decodeTopLevel(from decoder: RowDecoder) throws -> Wrapped? {
        if decoder.columnCount > 0 && decoder.isNull(0) { return nil }
        return try decoder.decodeRow(Wrapped.self, kind: RowDecoder.topLevelKind(of: Wrapped.self))
    }
}

extension DecodingError {
    /// The context of any case of the error.
    fileprivate var context: Context {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            return context
        @unknown default:
            return Context(codingPath: [], debugDescription: "\(self)")
        }
    }
}
