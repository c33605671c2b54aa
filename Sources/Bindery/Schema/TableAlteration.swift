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
        case addWritten(SQL)
        case rename(String, String)
        case drop(String)
        /// A column's definition changed, what the change does not name kept as written.
        case change(ColumnChange)
        /// A column's whole definition replaced.
        case replace(ColumnDefinition)
        case order([String])
        case addConstraint(TableConstraint)
        case dropConstraint(String)
        case dropConstraints

        /// Whether only a rebuild makes this change.
        var needsRebuild: Bool {
            switch self {
            case .add, .addWritten, .rename, .drop: return false
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
    /// uses it makes the change fail with ``SchemaChangeError/brokenDependency(kind:name:reason:)``,
    /// and a search table that reads it with ``SearchTableError/indexedColumnDropped(searchTable:table:column:)``.
    public func drop(column name: String) {
        changes.append(.drop(name))
    }

    /// Changes a column in its place: gives it the type `type` (keeps its type when nil) and keeps
    /// every constraint it has (its key, `NOT NULL`, `UNIQUE`, `CHECK`s, `DEFAULT`, `COLLATE`,
    /// `REFERENCES`, generated expression) unless the returned ``ColumnChange`` replaces or drops it.
    /// Its values are kept (converted by the new type's affinity); a value that breaks the column's
    /// constraints makes the change fail with ``SchemaChangeError/rowsBreakConstraints(table:rows:)``.
    ///
    /// ```swift
    /// t.change(column: "pages", to: .real)                         // NOT NULL DEFAULT 0 stay
    /// t.change(column: "quantity", to: .integer).check("quantity > 0")
    /// t.change(column: "note").dropNotNull().dropDefault()
    /// ```
    @discardableResult
    public func change(column name: String, to type: ColumnType? = nil) -> ColumnChange {
        let change = ColumnChange(name: name, type: type.map { .some($0) } ?? .none)
        changes.append(.change(change))
        return change
    }

    /// Gives a column a whole new definition in its place: the type `type` (none when nil) and only
    /// the constraints set on the returned definition; what it had is gone. Its values are kept
    /// (converted by the new type's affinity).
    ///
    /// ```swift
    /// t.replace(column: "quantity", with: .integer).notNull().check("quantity > 0")
    /// ```
    @discardableResult
    public func replace(column name: String, with type: ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        changes.append(.replace(column))
        return column
    }

    /// Gives a column the type `type` (none when nil) and `NOT NULL` or not, keeping its other
    /// constraints as the table has them: what a table that follows its record type changes.
    func retype(column name: String, to type: ColumnType?, notNull: Bool) {
        let change = ColumnChange(name: name, type: .some(type))
        if notNull {
            change.ensuresNotNull = true
        } else {
            change.dropNotNull()
        }
        changes.append(.change(change))
    }

    /// Puts the columns named first, in this order; the others follow in their current order.
    public func order(columns names: [String]) {
        changes.append(.order(names))
    }

    /// Adds a column written in SQL (its name, type and constraints) at the end.
    ///
    /// ```swift
    /// t.add(columnSQL: "shelf TEXT NOT NULL DEFAULT ''")
    /// ```
    public func add(columnSQL sql: SQL) {
        changes.append(.addWritten(sql))
    }

    /// Adds `UNIQUE (columns)` over the whole table, with what a statement that breaks it does when
    /// it names no policy of its own (`ON CONFLICT`; `ABORT` when nil).
    public func unique(_ columns: [String], name: String? = nil, onConflict: ConflictPolicy? = nil) {
        changes.append(.addConstraint(TableConstraint(name: name, kind: .unique(columns, onConflict))))
    }

    /// Adds a table constraint written in SQL.
    public func constraint(sql: SQL) {
        changes.append(.addConstraint(TableConstraint(name: nil, kind: .written(sql))))
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
