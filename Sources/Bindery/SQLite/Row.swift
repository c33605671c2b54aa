import Foundation

/// One result row, copied out of SQLite: its values and its column names.
///
/// Read columns by 0-based index or by name (case-insensitive, as in SQLite), as any
/// ``SQLiteValueConvertible`` type — `Int`, `Int64`, `Double`, `Bool`, `String`, `Data`, their
/// optionals, or ``SQLiteValue`` itself:
///
/// ```swift
/// for row in try conn.rows("SELECT id, name, score FROM players", arguments: []) {
///     let id: Int64 = try row[0]
///     let name: String = try row["name"]
///     let score: Double? = try row["score"]
/// }
/// ```
///
/// A missing column throws ``SQLiteError`` with code ``SQLiteError/Code/range``; a value that does
/// not fit the type asked for throws code ``SQLiteError/Code/mismatch``, naming the column and the SQL
/// type found. Nothing is converted silently.
public struct Row: Sendable, Hashable {
    /// The values, in column order.
    public let values: [SQLiteValue]
    let columns: RowColumns

    init(values: [SQLiteValue], columns: RowColumns) {
        self.values = values
        self.columns = columns
    }

    /// The column names, in order.
    public var columnNames: [String] { columns.names }

    /// The number of columns.
    public var count: Int { values.count }

    /// The 0-based index of the column called `name` (case-insensitive), or nil.
    public func index(ofColumn name: String) -> Int? {
        columns.index(of: name)
    }

    /// The value at the 0-based column `index`, converted to `T`.
    public subscript<T: SQLiteValueConvertible>(_ index: Int) -> T {
        get throws {
            guard values.indices.contains(index) else {
                throw SQLiteError(
                    code: .range,
                    message: "column index \(index) is out of range; the row has \(values.count) column(s)"
                )
            }
            return try T.decode(from: values[index], column: columns.names[index])
        }
    }

    /// The value of the column called `name` (case-insensitive), converted to `T`.
    public subscript<T: SQLiteValueConvertible>(_ name: String) -> T {
        get throws {
            guard let index = columns.index(of: name) else {
                throw SQLiteError(
                    code: .range,
                    message: "no column named '\(name)'; the row has \(columns.names.joined(separator: ", "))")
            }
            return try T.decode(from: values[index], column: columns.names[index])
        }
    }
}

/// The column names of a result, shared by all its rows, with a case-insensitive look-up.
final class RowColumns: Sendable, Hashable {
    let names: [String]
    private let lookup: [String: Int]

    init(names: [String]) {
        self.names = names
        var lookup: [String: Int] = [:]
        for (index, name) in names.enumerated() where lookup[name.lowercased()] == nil {
            lookup[name.lowercased()] = index
        }
        self.lookup = lookup
    }

    func index(of name: String) -> Int? {
        lookup[name.lowercased()]
    }

    static func == (lhs: RowColumns, rhs: RowColumns) -> Bool {
        lhs === rhs || lhs.names == rhs.names
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(names)
    }
}
