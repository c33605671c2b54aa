import CSQLite
import Foundation

/// Reading one column of the current row as a Swift type, with errors that name the column, the SQL
/// type found and the Swift type wanted.
extension RowDecoder {
    // The hot paths read a column's `sqlite3_value` from ``ColumnValues`` and use the `sqlite3_value_*`
    // functions: no call into SQLite's API layer (and its mutex) per `sqlite3_column_*` call.
    // The value stays valid until the statement steps, and the decoder reads it at once.

    @inline(__always)
    func isNull(_ column: Int32) -> Bool {
        sqlite3_value_type(values.value(column)) == SQLITE_NULL
    }

    func int64<T>(_ column: Int32, as type: T.Type) throws -> Int64 {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return sqlite3_column_int64(handle, column)
        case SQLITE_FLOAT:
            if let exact = Int64(exactly: sqlite3_column_double(handle, column)) {
                return exact
            }
            throw outOfRange(T.self, column: column)
        default:
            throw mismatch(T.self, column: column, expected: "an INTEGER")
        }
    }

    @inline(__always)
    func integer<T: FixedWidthInteger>(_ type: T.Type, _ column: Int32) throws -> T {
        let value = values.value(column)
        if sqlite3_value_type(value) == SQLITE_INTEGER, let integer = T(exactly: sqlite3_value_int64(value)) {
            return integer
        }
        guard let value = T(exactly: try int64(column, as: T.self)) else {
            throw outOfRange(T.self, column: column)
        }
        return value
    }

    /// ``integer(_:_:)`` out of line: the slow path of the keyed container's integer decodes, which
    /// call it with a concrete `T`, so that it is compiled for each integer type.
    @inline(never)
    func integerSlowly<T: FixedWidthInteger>(_ type: T.Type, _ column: Int32) throws -> T {
        try integer(T.self, column)
    }

    @inline(__always)
    func double<T>(_ column: Int32, as type: T.Type) throws -> Double {
        let value = values.value(column)
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT: return sqlite3_value_double(value)
        case SQLITE_INTEGER: return Double(sqlite3_value_int64(value))
        default: throw mismatch(T.self, column: column, expected: "a REAL or an INTEGER")
        }
    }

    /// A REAL or INTEGER rounded to the nearest `Float`; a finite value beyond `Float`'s range throws
    /// rather than become infinity.
    func float(_ column: Int32) throws -> Float {
        let double = try double(column, as: Float.self)
        let float = Float(double)
        if float.isInfinite && double.isFinite {
            throw outOfRange(Float.self, column: column)
        }
        return float
    }

    func bool(_ column: Int32) throws -> Bool {
        if sqlite3_column_type(handle, column) == SQLITE_INTEGER {
            switch sqlite3_column_int64(handle, column) {
            case 0: return false
            case 1: return true
            default: throw outOfRange(Bool.self, column: column, expected: "0 or 1")
            }
        }
        throw mismatch(Bool.self, column: column, expected: "the INTEGER 0 or 1")
    }

    @inline(__always)
    func string(_ column: Int32) throws -> String {
        let value = values.value(column)
        guard sqlite3_value_type(value) == SQLITE_TEXT else {
            throw mismatch(String.self, column: column, expected: "TEXT")
        }
        switch UTF8Text.string(of: value) {
        case .value(let string): return string
        case .noBytes:
            return try Statement.emptyOrNoMemory("", handle, column: column, byteCount: sqlite3_value_bytes(value))
        case .unreadable: throw invalidText(column: column)
        }
    }

    func data(_ column: Int32) throws -> Data {
        guard sqlite3_column_type(handle, column) == SQLITE_BLOB else {
            throw mismatch(Data.self, column: column, expected: "a BLOB")
        }
        guard let bytes = sqlite3_column_blob(handle, column) else {
            return try Statement.emptyOrNoMemory(
                Data(), handle, column: column, byteCount: sqlite3_column_bytes(handle, column))
        }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }

    func date(_ column: Int32) throws -> Date {
        let value = values.value(column)
        let type = sqlite3_value_type(value)
        if !usesTextDates, case .custom(_, let decode) = options.dateStrategy {
            guard type != SQLITE_NULL else { throw mismatch(Date.self, column: column, expected: "a date") }
            return try decode(checkedColumnValue(column))
        }
        switch type {
        case SQLITE_TEXT:
            switch UTF8Text.date(of: value) {
            case .value(let date): return date
            case .noBytes:
                try Statement.emptyOrNoMemory((), handle, column: column, byteCount: sqlite3_value_bytes(value))
            case .unreadable:
                throw outOfRange(
                    Date.self, column: column, expected: "a date in a form SQLite's date functions read")
            }
        case SQLITE_INTEGER, SQLITE_FLOAT:
            let number = sqlite3_value_double(value)
            switch options.dateStrategy {
            case .julianDay: return SQLiteDate.date(fromJulianDay: number)
            case .unixMilliseconds: return Date(timeIntervalSince1970: number / 1000)
            default: return Date(timeIntervalSince1970: number)
            }
        default:
            break
        }
        throw mismatch(Date.self, column: column, expected: "a date as TEXT, INTEGER or REAL")
    }

    func uuid(_ column: Int32) throws -> UUID {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_TEXT:
            if let uuid = UUID(uuidString: try string(column)) { return uuid }
            throw outOfRange(UUID.self, column: column, expected: "a UUID")
        case SQLITE_BLOB:
            let b = [UInt8](try data(column))
            guard b.count == 16 else { throw outOfRange(UUID.self, column: column, expected: "16 bytes") }
            return UUID(
                uuid: (
                    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                    b[15]
                )
            )
        default:
            throw mismatch(UUID.self, column: column, expected: "a UUID as TEXT or a 16-byte BLOB")
        }
    }

    func url(_ column: Int32) throws -> URL {
        guard let url = URL(string: try string(column)) else {
            throw outOfRange(URL.self, column: column, expected: "a URL")
        }
        return url
    }

    func decimal(_ column: Int32) throws -> Decimal {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return Decimal(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            // Decimal(Double) traps on an infinity and gives NaN beyond Decimal's range: refuse both.
            let double = sqlite3_column_double(handle, column)
            guard double.isFinite, !Decimal(double).isNaN else { throw outOfRange(Decimal.self, column: column) }
            return Decimal(double)
        case SQLITE_TEXT:
            let text = try string(column)
            if RowDecoder.isDecimalNumber(text), let decimal = Decimal(string: text, locale: nil) {
                return decimal
            }
            throw outOfRange(Decimal.self, column: column, expected: "a decimal number")
        default:
            throw mismatch(Decimal.self, column: column, expected: "a number as TEXT, INTEGER or REAL")
        }
    }

    /// Whether `text` is a whole decimal number: `-12`, `3.50`, `1e-7` (Decimal(string:) would read
    /// "12abc" as 12).
    static func isDecimalNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            bytes = bytes.dropFirst()
        }
        var digits = 0
        while let byte = bytes.first, (48...57).contains(byte) {
            digits += 1
            bytes = bytes.dropFirst()
        }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            while let byte = bytes.first, (48...57).contains(byte) {
                digits += 1
                bytes = bytes.dropFirst()
            }
        }
        guard digits > 0 else { return false }
        if let byte = bytes.first, byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                bytes = bytes.dropFirst()
            }
            var exponentDigits = 0
            while let byte = bytes.first, (48...57).contains(byte) {
                exponentDigits += 1
                bytes = bytes.dropFirst()
            }
            guard exponentDigits > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// The value in `column` as a ``SQLiteValue``; TEXT that is not valid UTF-8 throws, as a `String`
    /// does (a U+FFFD in its place would be written back as other bytes).
    func checkedColumnValue(_ column: Int32) throws -> SQLiteValue {
        if sqlite3_column_type(handle, column) == SQLITE_TEXT {
            return .text(try string(column))
        }
        return columnValue(column)
    }

    /// The value in `column` as a ``SQLiteValue``, for messages: TEXT that is not valid UTF-8 is shown
    /// with U+FFFD in place of the bytes that are not.
    func columnValue(_ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(UTF8Text.lossyString(column: column, of: handle))
        case SQLITE_BLOB: return .blob((try? data(column)) ?? Data())
        default: return .null
        }
    }

    // MARK: Errors

    /// "TEXT "abc"", "INTEGER 300", "NULL": what a column holds, shortened for messages.
    func describe(_ column: Int32) -> String {
        let value = columnValue(column)
        switch value {
        case .null: return "NULL"
        case .integer(let int): return "INTEGER \(int)"
        case .real(let double): return "REAL \(double)"
        case .text(let text):
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "TEXT \"\(shown)\""
        case .blob(let data): return "a BLOB of \(data.count) bytes"
        }
    }

    /// The error for a column of the wrong SQL type (or NULL, for a non-optional property).
    func mismatch<T>(_ type: T.Type, column: Int32, expected: String) -> DecodingError {
        let name = columnName(column)
        let context = DecodingError.Context(
            codingPath: [IndexKey(name)],
            debugDescription: "column \"\(name)\" holds \(describe(column)), but \(T.self) needs \(expected)")
        if isNull(column) {
            return .valueNotFound(T.self, context)
        }
        return .typeMismatch(T.self, context)
    }

    /// The error for TEXT whose bytes are not valid UTF-8: no `String` holds them as they are, and one
    /// with U+FFFD in their place would change the stored bytes when written back.
    func invalidText(column: Int32) -> DecodingError {
        let name = columnName(column)
        return .dataCorrupted(
            .init(
                codingPath: [IndexKey(name)],
                debugDescription:
                    "column \"\(name)\" holds TEXT that is not valid UTF-8 (\(describe(column))); "
                    + "read it as Data (CAST(\(name) AS BLOB)) to get its bytes"))
    }

    /// The error for a value of the right SQL type that does not fit (300 into `UInt8`).
    func outOfRange<T>(_ type: T.Type, column: Int32, expected: String? = nil) -> DecodingError {
        let name = columnName(column)
        let wanted = expected.map { "\(T.self) needs \($0)" } ?? "it does not fit in \(T.self)"
        return .dataCorrupted(
            .init(
                codingPath: [IndexKey(name)],
                debugDescription: "column \"\(name)\" holds \(describe(column)), but \(wanted)"))
    }

    /// `error`, thrown by `T.init(from:)` reading `column`; but when `T` is a raw-value type and the
    /// column holds a raw value that no case of `T` matches, the error that says so (`column "status"
    /// holds "stolen", which is no LoanStatus`), with the coding path of `error` (the one a synthesized
    /// `init(from:)` throws). Out of line, and only on the error path: decoding a row pays nothing for it.
    @inline(never)
    func explained<T>(_ error: any Error, decoding type: T.Type, column: Int32) -> any Error {
        guard let decodingError = error as? DecodingError, case .dataCorrupted(let context) = decodingError,
            let rawType = T.self as? any RawRepresentable.Type
        else {
            return error
        }
        return rawValueRejection(rawType, column: column, context) ?? error
    }

    private func rawValueRejection<R: RawRepresentable>(
        _ type: R.Type, column: Int32, _ context: DecodingError.Context
    ) -> DecodingError? {
        // Read the raw value again, as the enum's init(from:) read it, and ask the type itself.
        guard let decodable = R.RawValue.self as? any Decodable.Type,
            let raw = (try? anyValue(decodable, column: column)) as? R.RawValue, R(rawValue: raw) == nil
        else {
            return nil
        }
        let shown: String
        if let text = raw as? String {
            shown = "\"" + (text.count > 40 ? String(text.prefix(40)) + "…" : text) + "\""
        } else {
            shown = "\(raw)"
        }
        return .dataCorrupted(
            .init(
                codingPath: context.codingPath,
                debugDescription: "column \"\(columnName(column))\" holds \(shown), which is no \(R.self)",
                underlyingError: DecodingError.dataCorrupted(context)))
    }

    private func anyValue<V: Decodable>(_ type: V.Type, column: Int32) throws -> Any {
        try decodeValue(V.self, column: column)
    }

    /// The error for a coding key whose look-up gave `column` (negative): several columns with its
    /// name, or none.
    @inline(never)
    func unresolved(_ key: any CodingKey, column: Int32) -> DecodingError {
        RowDecoder.isAmbiguous(column) ? ambiguity(column) : missingColumn(key)
    }

    /// The error for a coding key with no column in the row.
    func missingColumn(_ key: any CodingKey) -> DecodingError {
        let name = options.columnName(forKey: key.stringValue)
        return .keyNotFound(
            key,
            .init(
                codingPath: [],
                debugDescription:
                    "no column \"\(name)\" in \(scopeName.map { "the columns of \"\($0)\"" } ?? "the row") "
                    + "(columns: \(columnNames.joined(separator: ", ")))"))
    }
}
