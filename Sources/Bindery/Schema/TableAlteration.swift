/// The changes ``Connection/alter(table:_:)`` makes to a table, in the order they are listed.
///
/// Adding, renaming and dropping a column use SQLite's `ALTER TABLE` when it can make the change;
/// anything else (a column's type or constraints, column order, table constraints, dropping a
/// column that a constraint or an index uses) rebuilds the table by SQLite's documented procedure,
/// keeping its rows, indexes and triggers.
///
/// ```swift
/// try conn.alter(table: "books") { t in
///     t.add(column: "shelf", .text)
///     t.rename(column: "name", to: "title")
///     t.change(column: "price", to: .real).notNull().check("price >= 0")
///     t.drop(column: "legacy")
/// }
/// ```
public final class TableAlteration {
    /// One change.
    enum Change {
        case add(ColumnDefinition)
        case rename(String, String)
        case drop(String)
        case change(ColumnDefinition)
        /// A column's type and nullability changed, its other constraints kept as written.
        case retype(String, type: ColumnType?, notNull: Bool)
        case order([String])
        case addConstraint(TableConstraint)
        case dropConstraint(String)
        case dropConstraints

        /// Whether only a rebuild makes this change.
        var needsRebuild: Bool {
            switch self {
            case .add, .rename, .drop: return false
            default: return true
            }
        }
    }

    /// The table's name.
    public let name: String
    var changes: [Change] = []

    init(name: String) {
        self.name = name
    }

    /// Adds a column at the end and returns it, for its constraints.
    @discardableResult
    public func add(column name: String, _ type: ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        changes.append(.add(column))
        return column
    }

    /// Renames a column; indexes, views, triggers and foreign keys that use it follow.
    public func rename(column name: String, to newName: String) {
        changes.append(.rename(name, newName))
    }

    /// Drops a column and its data. Indexes over it are dropped with it; a view or trigger that
    /// uses it makes the change fail with ``SchemaChangeError/brokenDependency(kind:name:reason:)``.
    public func drop(column name: String) {
        changes.append(.drop(name))
    }

    /// Gives a column a new definition, type and constraints, in its place; its values are kept
    /// (converted by the new type's affinity). Returns the new definition, for its constraints.
    ///
    /// ```swift
    /// t.change(column: "quantity", to: .integer).notNull().check("quantity > 0")
    /// ```
    @discardableResult
    public func change(column name: String, to type: ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        changes.append(.change(column))
        return column
    }

    /// Gives a column the type `type` (none when nil) and `NOT NULL` or not, keeping its other
    /// constraints (key, foreign key, `UNIQUE`, `CHECK`, `DEFAULT`, `COLLATE`, generated expression)
    /// as the table has them: what a table that follows its record type changes.
    func retype(column name: String, to type: ColumnType?, notNull: Bool) {
        changes.append(.retype(name, type: type, notNull: notNull))
    }

    /// Puts the columns named first, in this order; the others follow in their current order.
    public func order(columns names: [String]) {
        changes.append(.order(names))
    }

    /// Adds `UNIQUE (columns)` over the whole table.
    public func unique(_ columns: [String], name: String? = nil) {
        changes.append(.addConstraint(TableConstraint(name: name, kind: .unique(columns))))
    }

    /// Adds `CHECK (condition)` over the whole row.
    public func check(_ condition: SQL, name: String? = nil) {
        changes.append(.addConstraint(TableConstraint(name: name, kind: .check(condition))))
    }

    /// Adds a foreign key over one or several columns.
    public func foreignKey(
        _ columns: [String], references table: String, columns parentColumns: [String] = [],
        onDelete: ForeignKeyAction? = nil, onUpdate: ForeignKeyAction? = nil, deferred: Bool = false,
        name: String? = nil
    ) {
        let reference = ForeignKeyReference(
            table: table, columns: parentColumns, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
        changes.append(.addConstraint(TableConstraint(name: name, kind: .foreignKey(columns, reference))))
    }

    /// Drops the table constraint declared `CONSTRAINT name`.
    public func drop(constraint name: String) {
        changes.append(.dropConstraint(name))
    }

    /// Drops every table constraint (those written after the columns: composite keys, `UNIQUE`,
    /// `CHECK` and `FOREIGN KEY` over the table), to declare again those to keep.
    public func dropTableConstraints() {
        changes.append(.dropConstraints)
    }
}
