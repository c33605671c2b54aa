/// One column of a table being created or altered, with its constraints; each method adds one and
/// returns the column, so that they chain.
///
/// ```swift
/// try conn.create(table: "books") { t in
///     t.column("id", .integer).primaryKey(autoincrement: true)
///     t.column("title", .text).notNull().collate("NOCASE")
///     t.column("authorID", .integer).notNull().references("authors", onDelete: .cascade)
///     t.column("price", .real).notNull().defaults(to: 0).check("price >= 0")
///     t.column("slug", .text).generated(as: "lower(title)")
/// }
/// ```
///
/// Conditions, defaults and generated expressions are ``SQL``: an interpolated value is written into
/// the statement as a literal (SQLite takes no bound values in a schema), names stay as you write them.
public final class ColumnDefinition {
    /// The column's name.
    public let name: String
    /// The column's declared type; nil for none.
    public let type: ColumnType?
    var primaryKey: (descending: Bool, autoincrement: Bool)?
    var isNotNull = false
    var isUnique = false
    var checks: [SQL] = []
    var defaultValue: SQL?
    var collation: String?
    /// The `REFERENCES` clauses, in the order given: SQLite makes a foreign key of each.
    var references: [ForeignKeyReference] = []
    var generated: (expression: SQL, stored: Bool)?

    init(name: String, type: ColumnType?) {
        self.name = name
        self.type = type
    }

    /// `PRIMARY KEY`: the column is the table's key. An `INTEGER` key is the rowid, and
    /// `autoincrement` keeps SQLite from reusing the ids of deleted rows.
    @discardableResult
    public func primaryKey(descending: Bool = false, autoincrement: Bool = false) -> ColumnDefinition {
        primaryKey = (descending, autoincrement)
        return self
    }

    /// `NOT NULL`.
    @discardableResult
    public func notNull() -> ColumnDefinition {
        isNotNull = true
        return self
    }

    /// `UNIQUE`: no two rows hold the same non-NULL value.
    @discardableResult
    public func unique() -> ColumnDefinition {
        isUnique = true
        return self
    }

    /// `CHECK (condition)`: every row must make `condition` true (or NULL).
    ///
    /// ```swift
    /// t.column("year", .integer).check("year BETWEEN \(1900) AND \(2100)")
    /// ```
    @discardableResult
    public func check(_ condition: SQL) -> ColumnDefinition {
        checks.append(condition)
        return self
    }

    /// `DEFAULT`: the value a row gets when an insert leaves the column out, converted as a bound value
    /// would be and written as a literal.
    ///
    /// ```swift
    /// t.column("status", .text).notNull().defaults(to: "draft")
    /// ```
    @discardableResult
    public func defaults<Value: Encodable & Sendable>(to value: Value) -> ColumnDefinition {
        defaultValue = "\(value)"
        return self
    }

    /// `DEFAULT` from an SQL expression, such as `CURRENT_TIMESTAMP`.
    ///
    /// ```swift
    /// t.column("createdAt", .text).notNull().defaults(sql: "CURRENT_TIMESTAMP")
    /// ```
    @discardableResult
    public func defaults(sql: SQL) -> ColumnDefinition {
        defaultValue = sql
        return self
    }

    /// `COLLATE name`: how the column's text compares (`BINARY`, `NOCASE`, `RTRIM` or your own).
    @discardableResult
    public func collate(_ name: String) -> ColumnDefinition {
        collation = name
        return self
    }

    /// `REFERENCES table(column)`: a foreign key to `column` of `table` (its primary key when nil),
    /// with what happens when the parent row is deleted or its key changes. `deferred` checks it at
    /// commit rather than after each statement. Called again, it adds another foreign key on the
    /// column: each holds.
    ///
    /// ```swift
    /// t.column("authorID", .integer).references("authors", onDelete: .cascade)
    /// ```
    @discardableResult
    public func references(
        _ table: String, column: String? = nil, onDelete: ForeignKeyAction? = nil, onUpdate: ForeignKeyAction? = nil,
        deferred: Bool = false
    ) -> ColumnDefinition {
        references.append(
            ForeignKeyReference(
                table: table, columns: column.map { [$0] } ?? [], onDelete: onDelete, onUpdate: onUpdate,
                deferred: deferred))
        return self
    }

    /// `GENERATED ALWAYS AS (expression)`: a column computed from the others, `VIRTUAL` (computed
    /// when read) unless `stored`.
    ///
    /// ```swift
    /// t.column("total", .real).generated(as: "price * quantity", stored: true)
    /// ```
    @discardableResult
    public func generated(as expression: SQL, stored: Bool = false) -> ColumnDefinition {
        generated = (expression, stored)
        return self
    }

    /// The column's definition, as it appears in `CREATE TABLE` and `ADD COLUMN`.
    func sql(encoder: ValueEncoder) throws -> String {
        var parts = [SQL.quote(identifier: name)]
        if let type {
            parts.append(try type.checkedName())
        }
        if let primaryKey {
            parts.append("PRIMARY KEY" + (primaryKey.descending ? " DESC" : ""))
            if primaryKey.autoincrement {
                parts.append("AUTOINCREMENT")
            }
        }
        if isNotNull {
            parts.append("NOT NULL")
        }
        if isUnique {
            parts.append("UNIQUE")
        }
        for check in checks {
            parts.append("CHECK (\(try check.inlined(encoder: encoder)))")
        }
        if let defaultValue {
            parts.append("DEFAULT " + (try Self.defaultSQL(defaultValue, encoder: encoder)))
        }
        if let collation {
            parts.append("COLLATE " + SQL.quote(identifier: collation))
        }
        for reference in references {
            parts.append(reference.sql)
        }
        if let generated {
            parts.append(
                "GENERATED ALWAYS AS (\(try generated.expression.inlined(encoder: encoder)))"
                    + (generated.stored ? " STORED" : " VIRTUAL"))
        }
        return parts.joined(separator: " ")
    }

    /// A default as SQLite's grammar takes it: a literal or keyword as it is, any other expression in
    /// parentheses.
    static func defaultSQL(_ value: SQL, encoder: ValueEncoder) throws -> String {
        let text = try value.inlined(encoder: encoder)
        let tokens = SQLTokenizer.tokens(of: text)
        let isSingle: Bool
        switch tokens.map(\.kind) {
        case [.string], [.blob], [.number], [.word]:
            isSingle = true
        case [.symbol(UInt8(ascii: "-")), .number], [.symbol(UInt8(ascii: "+")), .number]:
            isSingle = true
        default:
            isSingle = false
        }
        return isSingle ? text : "(\(text))"
    }
}
