/// The declared type of a column in a table the builder makes: `INTEGER`, `TEXT`, `REAL`, `BLOB`,
/// `NUMERIC`, `ANY`, or a name of your own such as `"VARCHAR(20)"` (SQLite gives it the affinity its
/// name implies; a `STRICT` table takes only `INT`, `INTEGER`, `REAL`, `TEXT`, `BLOB` and `ANY`).
///
/// ```swift
/// t.column("price", .real)
/// t.column("code", "VARCHAR(8)")
/// ```
public struct ColumnType: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The type as it appears in `CREATE TABLE`.
    public var name: String

    /// A type named `name`: letters, digits, `_`, spaces and a parenthesized size such as `(10, 2)`.
    /// Anything else makes the statement that uses it throw ``SchemaChangeError/invalidSQL(_:reason:)``.
    public init(_ name: String) {
        self.name = name
    }

    /// A type named by a literal.
    public init(stringLiteral value: String) {
        self.name = value
    }

    /// `INTEGER`: integer affinity (and the rowid alias, for a single-column primary key).
    public static let integer = ColumnType("INTEGER")
    /// `TEXT`: text affinity.
    public static let text = ColumnType("TEXT")
    /// `REAL`: real affinity.
    public static let real = ColumnType("REAL")
    /// `BLOB`: no affinity, values kept as they are.
    public static let blob = ColumnType("BLOB")
    /// `NUMERIC`: numeric affinity.
    public static let numeric = ColumnType("NUMERIC")
    /// `ANY`: any value in a `STRICT` table.
    public static let any = ColumnType("ANY")

    /// The name.
    public var description: String { name }

    /// The name, after checking that it cannot carry anything but a type name.
    func checkedName() throws -> String {
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || "_ (),+-".unicodeScalars.contains(scalar)
        }
        guard allowed, name.first?.isLetter == true else {
            throw SchemaChangeError.invalidSQL(
                name, reason: "a column type is letters, digits, spaces and a size in parentheses")
        }
        return name
    }
}
