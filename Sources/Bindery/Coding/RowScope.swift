/// The part of a joined row that one nested value reads, for the queries that say it themselves:
/// ``Connection/fetchAll(_:sql:scopes:)`` and its siblings.
///
/// The scopes of a query are given in row order and laid end to end from the first column: each
/// takes the next columns, as many as its ``extent`` says, and together they must take every column
/// of the row. A scope is needed where the automatic rule cannot tell the parts apart (a self-join,
/// a table read twice, a nested type that is no ``Record``):
///
/// ```swift
/// struct Managed: Decodable {
///     var employee: Employee
///     var manager: Employee?
/// }
/// let rows = try conn.fetchAll(
///     Managed.self,
///     sql: "SELECT e.*, m.* FROM Employees e LEFT JOIN Employees m ON e.ReportsTo = m.EmployeeID",
///     scopes: [.table("Employees", into: "employee"), .table("Employees", into: "manager")])
/// ```
public struct RowScope: Sendable, Hashable, CustomStringConvertible {
    /// How many columns a scope takes.
    public enum Extent: Sendable, Hashable {
        /// The next `count` columns, whatever they are.
        case columns(Int)
        /// The columns of the table (or view) of this name, as `table.*` selects them: the next
        /// columns must have the table's column names in the table's order, and, where SQLite can
        /// tell a column's origin, come from that table.
        case table(String)
    }

    /// The coding key of the property that reads the scope (`"manager"`).
    public let property: String
    /// How many columns the scope takes.
    public let extent: Extent

    /// The scopes of values nested in this one (a request's associations included by an association it
    /// includes), laid end to end after the columns `extent` takes; empty for a scope given with a query.
    let nested: [RowScope]
    /// Whether the last of the columns `extent` takes says if the value is there (NULL for a LEFT JOIN
    /// without a match) and is no part of it: a selection of an association's columns, which may all be
    /// NULL in a row that has one.
    let presence: Bool

    /// A scope for `property` taking the columns that `extent` says.
    public init(_ property: String, extent: Extent) {
        self.init(property, extent: extent, nested: [])
    }

    /// A scope for `property` taking the columns that `extent` says (the last a presence marker when
    /// `presence` is true), followed by the columns of `nested`.
    init(_ property: String, extent: Extent, nested: [RowScope], presence: Bool = false) {
        self.property = property
        self.extent = extent
        self.nested = nested
        self.presence = presence
    }

    /// A scope for `property` taking the next `count` columns.
    ///
    /// ```swift
    /// scopes: [.columns(3, into: "book"), .columns(2, into: "author")]
    /// ```
    public static func columns(_ count: Int, into property: String) -> RowScope {
        RowScope(property, extent: .columns(count))
    }

    /// A scope for `property` taking the columns of `table`, as `table.*` (or `alias.*`) selects them.
    ///
    /// ```swift
    /// scopes: [.table("Employees", into: "employee"), .table("Employees", into: "manager")]
    /// ```
    public static func table(_ table: String, into property: String) -> RowScope {
        RowScope(property, extent: .table(table))
    }

    /// `manager: table "Employees"` or `book: 3 columns`.
    public var description: String {
        switch extent {
        case .columns(let count): return "\(property): \(count) column\(count == 1 ? "" : "s")"
        case .table(let table): return "\(property): table \"\(table)\""
        }
    }
}
