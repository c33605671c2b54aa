import Foundation

/// How a `Date` inside a nested value's JSON (a `[Date]`, a nested struct's `Date`, a `[String: Date]`)
/// is written and read: by the rules of a date column, so that SQLite's JSON and date functions
/// agree with the columns.
///
/// - ``CodingOptions/DateStrategy/sqliteText`` (the default): a JSON string `yyyy-MM-dd HH:mm:ss.SSS`
///   in UTC; reading accepts every text form SQLite's date functions accept. A JSON number is refused:
///   writers disagree on its unit (GRDB writes milliseconds, Foundation seconds since 2001, others
///   unix seconds), so reading one takes a strategy that names the unit.
/// - ``CodingOptions/DateStrategy/unixSeconds``, ``CodingOptions/DateStrategy/unixSecondsInteger``,
///   ``CodingOptions/DateStrategy/unixMilliseconds``, ``CodingOptions/DateStrategy/julianDay``: a JSON
///   number in that unit, read in that unit; a JSON string is read as text, as in a column.
/// - ``CodingOptions/DateStrategy/custom(encode:decode:)``: the default text form (the custom
///   conversion makes column values, which may be BLOBs that JSON cannot hold); numbers are refused.
///
/// Earlier versions wrote the text form inside JSON under every strategy, and text is read under every
/// strategy: files they wrote read back identically.
enum JSONDates {
    /// Writes `date` as the JSON string or number that `strategy` stores.
    static func encode(_ date: Date, to encoder: any Encoder, strategy: CodingOptions.DateStrategy) throws {
        var container = encoder.singleValueContainer()
        switch strategy {
        case .sqliteText, .custom:
            guard let text = SQLiteDate.string(from: date) else {
                throw invalid(date, encoder, "the date is outside years 0…9999")
            }
            try container.encode(text)
        case .unixSeconds:
            try container.encode(date.timeIntervalSince1970)
        case .unixSecondsInteger:
            guard let whole = Int64(exactly: date.timeIntervalSince1970) else {
                throw invalid(date, encoder, "the date has a fraction of a second, which whole unix seconds would lose")
            }
            try container.encode(whole)
        case .unixMilliseconds:
            guard let whole = Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()) else {
                throw invalid(date, encoder, "the date is out of range")
            }
            try container.encode(whole)
        case .julianDay:
            try container.encode(SQLiteDate.julianDay(from: date))
        }
    }

    /// Reads a date from a JSON string (any text form SQLite's date functions accept) or, under a
    /// strategy that names its unit, a JSON number.
    static func decode(from decoder: any Decoder, strategy: CodingOptions.DateStrategy) throws -> Date {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            throw DecodingError.valueNotFound(
                Date.self, .init(codingPath: decoder.codingPath, debugDescription: "null where a Date is expected"))
        }
        if let text = try? container.decode(String.self) {
            guard let date = SQLiteDate.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "\"\(text)\" is not a date in a form SQLite's date functions read")
            }
            return date
        }
        guard let number = try? container.decode(Double.self) else {
            throw DecodingError.typeMismatch(
                Date.self,
                .init(codingPath: decoder.codingPath, debugDescription: "a Date needs a JSON string or number"))
        }
        switch strategy {
        case .unixSeconds, .unixSecondsInteger:
            return Date(timeIntervalSince1970: number)
        case .unixMilliseconds:
            return Date(timeIntervalSince1970: number / 1000)
        case .julianDay:
            return SQLiteDate.date(fromJulianDay: number)
        case .sqliteText, .custom:
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription:
                    "the number \(shown(number)) stands where a Date is expected. Dates inside JSON are text "
                    + "under this date strategy; to read numbers, choose the strategy that names their unit: "
                    + ".unixMilliseconds (GRDB writes milliseconds there), .unixSeconds or .julianDay")
        }
    }

    /// `1700000000000` rather than `1.7e+12`.
    private static func shown(_ number: Double) -> String {
        if let whole = Int64(exactly: number) { return String(whole) }
        return String(number)
    }

    private static func invalid(_ date: Date, _ encoder: any Encoder, _ description: String) -> EncodingError {
        .invalidValue(date, .init(codingPath: encoder.codingPath, debugDescription: description))
    }
}
