import Foundation

/// SQL text whose interpolated values are bound as statement parameters, never spliced into the text.
///
/// ```swift
/// let name = "Robert'); DROP TABLE students;--"
/// let found = try conn.fetchAll(Student.self, sql: "SELECT * FROM students WHERE name = \(name)")
/// // runs `SELECT * FROM students WHERE name = ?` with the name bound as a parameter
/// ```
///
/// - `\(value)` binds any `Encodable & Sendable` value, converted exactly as a record property of its
///   type would be stored (so a `Date`, a `UUID` or an enum in a condition matches what `insert`
///   wrote).
/// - `\(identifier: name)` inserts a quoted identifier (`"my table"`), for table and column names.
/// - `\(raw: text)` splices text as it is: the only way to do so, for SQL you built yourself.
/// - `\(sql)` embeds another `SQL` fragment with its values; `+` concatenates fragments.
public struct SQL: ExpressibleByStringInterpolation, Sendable, CustomStringConvertible {
    /// The SQL text, with a `?` for each bound value.
    public private(set) var text: String
    /// The values to bind, in the order of their `?`.
    private(set) var values: [any Encodable & Sendable]

    /// SQL text without values.
    public init(stringLiteral value: String) {
        self.text = value
        self.values = []
    }

    /// Builds SQL from an interpolation.
    public init(stringInterpolation: StringInterpolation) {
        self.text = stringInterpolation.text
        self.values = stringInterpolation.values
    }

    /// SQL text and the values for its `?` placeholders, in order.
    ///
    /// ```swift
    /// let sql = SQL(text: "SELECT * FROM t WHERE a = ? AND b = ?", values: [1, "x"])
    /// ```
    public init(text: String, values: [any Encodable & Sendable] = []) {
        self.text = text
        self.values = values
    }

    /// The number of bound values.
    public var valueCount: Int { values.count }

    /// The text, with `?` where values are bound; values are never shown.
    public var description: String { text }

    /// Concatenates two fragments: texts joined, values kept in order.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        SQL(text: lhs.text + rhs.text, values: lhs.values + rhs.values)
    }

    /// Appends a fragment.
    public static func += (lhs: inout SQL, rhs: SQL) {
        lhs = lhs + rhs
    }

    /// Whether the text is empty or only white space.
    var isBlank: Bool {
        text.allSatisfy(\.isWhitespace)
    }

    /// The values converted to SQLite values by `encoder`.
    func arguments(encoder: ValueEncoder) throws -> [SQLiteValue] {
        try values.map { value in try encoder.encode(value, codingPath: []) }
    }

    /// Quotes an identifier for SQLite: `my "table"` becomes `"my ""table"""`.
    public static func quote(identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The interpolation that builds an ``SQL`` value.
    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var text = ""
        var values: [any Encodable & Sendable] = []

        /// Prepares an interpolation.
        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount)
            values.reserveCapacity(interpolationCount)
        }

        /// Appends literal SQL text.
        public mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// Binds `value` as a parameter (`nil` binds NULL).
        public mutating func appendInterpolation<T: Encodable & Sendable>(_ value: T) {
            text += "?"
            values.append(value)
        }

        /// Binds `value`, or NULL when it is nil. (Without this overload, the compiler warns that an
        /// interpolated optional "produces a debug description", although it is bound like any value.)
        public mutating func appendInterpolation<T: Encodable & Sendable>(_ value: T?) {
            text += "?"
            values.append(value)
        }

        /// Inserts a quoted identifier, such as a table or column name.
        public mutating func appendInterpolation(identifier: String) {
            text += SQL.quote(identifier: identifier)
        }

        /// Splices `raw` into the text as it is. Never pass it a value that came from a user.
        public mutating func appendInterpolation(raw: String) {
            text += raw
        }

        /// Embeds another fragment, with its values.
        public mutating func appendInterpolation(_ sql: SQL) {
            text += sql.text
            values += sql.values
        }
    }
}
