import Foundation

/// One result row, copied out of SQLite: its values and its column names.
///
/// Read columns by 0-based index or by name (ignoring ASCII case, as SQLite does), as any
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
/// type found. A name that several columns share throws `DecodingError.dataCorrupted` naming its
/// positions, rather than read one of them. Nothing is converted silently.
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

    /// The 0-based index of the first column called `name` (ignoring ASCII case), or nil. Several
    /// columns may share a name: reading such a name through the subscript throws.
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

    /// The value of the column called `name` (ignoring ASCII case), converted to `T`.
    ///
    /// A name that several columns share (`id` in `SELECT loans.*, books.*`) is never guessed: it
    /// throws `DecodingError.dataCorrupted` naming the column and its positions. Alias the columns,
    /// or read them by index.
    public subscript<T: SQLiteValueConvertible>(_ name: String) -> T {
        get throws {
            switch columns.match(name) {
            case .column(let index):
                return try T.decode(from: values[index], column: columns.names[index])
            case .missing:
                throw SQLiteError(
                    code: .range,
                    message: "no column named '\(name)'; the row has \(columns.names.joined(separator: ", "))")
            case .ambiguous(let positions):
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: RowColumns.ambiguity(name, positions: positions)))
            }
        }
    }
}
