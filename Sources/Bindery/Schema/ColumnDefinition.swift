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
    var primaryKey: (descending: Bool, autoincrement: Bool, onConflict: ConflictPolicy?)?
    var notNull: ConflictClause?
    var unique: ConflictClause?
    var checks: [SQL] = []
    var defaultValue: SQL?
    var collation: String?
    /// The `REFERENCES` clauses, in the order given: SQLite makes a foreign key of each.
    var references: [ForeignKeyReference] = []
    var generated: (expression: SQL, stored: Bool)?
    /// Whether an index over the column is made with it.
    var isIndexed = false
    /// Why the definition cannot be written, thrown when it is.
    var invalid: SchemaChangeError?

    init(name: String, type: ColumnType?) {
        self.name = name
        self.type = type
    }

    /// `PRIMARY KEY`: the column is the table's key. An `INTEGER` key is the rowid, and
    /// `autoincrement` keeps SQLite from reusing the ids of deleted rows. `onConflict` is what a
    /// statement that breaks it does when it names no policy of its own (SQLite's `ON CONFLICT`
    /// clause; `ABORT` when nil).
    @discardableResult
    public func primaryKey(
        descending: Bool = false, autoincrement: Bool = false, onConflict: ConflictPolicy? = nil
    ) -> ColumnDefinition {
        primaryKey = (descending, autoincrement, onConflict)
        return self
    }

    /// `NOT NULL`, with what a statement that breaks it does when it names no policy of its own
    /// (`ON CONFLICT`; `ABORT` when nil; with `.replace`, a NULL becomes the column's default).
    ///
    /// ```swift
    /// t.column("status", .text).notNull(onConflict: .replace).defaults(to: "draft")
    /// ```
    @discardableResult
    public func notNull(onConflict: ConflictPolicy? = nil) -> ColumnDefinition {
        notNull = ConflictClause(onConflict: onConflict)
        return self
    }

    /// `UNIQUE`: no two rows hold the same non-NULL value; `onConflict` as for ``notNull(onConflict:)``.
    @discardableResult
    public func unique(onConflict: ConflictPolicy? = nil) -> ColumnDefinition {
        unique = ConflictClause(onConflict: onConflict)
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

    /// `COLLATE` a collation defined in Swift, which every connection that reads the column must
    /// know (see ``Collation``).
    ///
    /// ```swift
    /// t.column("name", .text).notNull().collate(.localizedStandard)
    /// ```
    @discardableResult
    public func collate(_ collation: Collation) -> ColumnDefinition {
        collate(collation.name)
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

    /// `REFERENCES` the table of `Parent`, over its primary key: the column refers to a row of
    /// `Parent`. A `Parent` whose key has several columns throws
    /// ``SchemaChangeError/keyColumnCount(column:table:keyColumns:)`` when the table is made:
    /// declare a table foreign key over as many columns then.
    ///
    /// ```swift
    /// t.column("authorID", .integer).notNull().references(Author.self, onDelete: .cascade).indexed()
    /// ```
    @discardableResult
    public func references<Parent: Record>(
        _ parent: Parent.Type, onDelete: ForeignKeyAction? = nil, onUpdate: ForeignKeyAction? = nil,
        deferred: Bool = false
    ) -> ColumnDefinition {
        let key = Parent.primaryKey
        guard key.count == 1 else {
            invalid = .keyColumnCount(column: name, table: Parent.tableName, keyColumns: key)
            return self
        }
        return references(Parent.tableName, column: key[0], onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
    }

    /// Makes an index over the column with the table (or with the column, added by
    /// ``TableAlteration/add(column:_:)``), named `<table>_on_<column>`: what a foreign-key column
    /// usually needs, so that finding a parent's rows, or the rows a delete cascades to, reads no
    /// whole table. A ``unique(onConflict:)`` column has one already.
    @discardableResult
    public func indexed() -> ColumnDefinition {
        isIndexed = true
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
        parts += try clauses(encoder: encoder).map(\.text)
        return parts.joined(separator: " ")
    }

    /// The constraint clauses this definition declares, in the order `CREATE TABLE` takes them.
    func clauses(encoder: ValueEncoder) throws -> [ColumnClauses.Clause] {
        if let invalid {
            throw invalid
        }
        var clauses: [ColumnClauses.Clause] = []
        func add(_ kind: ColumnClauses.Kind, _ text: String) {
            clauses.append(ColumnClauses.Clause(kind: kind, text: text))
        }
        if let primaryKey {
            add(
                .primaryKey,
                "PRIMARY KEY" + (primaryKey.descending ? " DESC" : "") + ConflictClause.sql(primaryKey.onConflict)
                    + (primaryKey.autoincrement ? " AUTOINCREMENT" : ""))
        }
        if let notNull {
            add(.notNull, "NOT NULL" + notNull.sql)
        }
        if let unique {
            add(.unique, "UNIQUE" + unique.sql)
        }
        for check in checks {
            add(.check, "CHECK (\(try check.inlined(encoder: encoder)))")
        }
        if let defaultValue {
            add(.defaultValue, "DEFAULT " + (try Self.defaultSQL(defaultValue, encoder: encoder)))
        }
        if let collation {
            add(.collate, "COLLATE " + SQL.quote(identifier: collation))
        }
        for reference in references {
            add(.references, reference.sql)
        }
        if let generated {
            add(
                .generated,
                "GENERATED ALWAYS AS (\(try generated.expression.inlined(encoder: encoder)))"
                    + (generated.stored ? " STORED" : " VIRTUAL"))
        }
        return clauses
    }

    /// The `CREATE INDEX` statement of an ``indexed()`` column of `table`.
    func indexSQL(table: String, ifNotExists: Bool) -> String {
        "CREATE INDEX " + (ifNotExists ? "IF NOT EXISTS " : "") + SQL.quote(identifier: "\(table)_on_\(name)")
            + " ON " + SQL.quote(identifier: table) + " (" + SQL.quote(identifier: name) + ")"
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
