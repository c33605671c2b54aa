/// A table being created: its columns, in order, and its table constraints (composite keys,
/// uniqueness over several columns, checks, foreign keys).
///
/// ```swift
/// try conn.create(table: "enrollments") { t in
///     t.column("studentID", .integer).notNull().references("students", onDelete: .cascade)
///     t.column("courseID", .integer).notNull().references("courses", onDelete: .cascade)
///     t.column("grade", .text)
///     t.primaryKey(["studentID", "courseID"])
/// }
/// ```
public final class TableDefinition {
    /// The table's name.
    public let name: String
    /// The table's options.
    public let options: TableOptions
    /// The columns, in order: built, or written in SQL.
    var columns: [Either] = []
    /// The table constraints, in order.
    var constraints: [TableConstraint] = []

    init(name: String, options: TableOptions) {
        self.name = name
        self.options = options
    }

    /// Adds a column of type `type` (none when nil) and returns it, for its constraints.
    @discardableResult
    public func column(_ name: String, _ type: ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        columns.append(.built(column))
        return column
    }

    /// Adds a column written in SQL: its name, type and constraints, as `CREATE TABLE` takes them.
    /// An interpolated value is written as a literal.
    ///
    /// ```swift
    /// t.column(sql: "code TEXT NOT NULL CHECK (length(code) = \(3))")
    /// ```
    public func column(sql: SQL) {
        columns.append(.written(sql))
    }

    /// `PRIMARY KEY (columns)`: a key over one or several columns, with what a statement that breaks
    /// it does when it names no policy of its own (`ON CONFLICT`; `ABORT` when nil).
    public func primaryKey(_ columns: [String], onConflict: ConflictPolicy? = nil) {
        constraints.append(TableConstraint(name: nil, kind: .primaryKey(columns, onConflict)))
    }

    /// `UNIQUE (columns)`: no two rows hold the same values in these columns together; `onConflict`
    /// as for ``primaryKey(_:onConflict:)``.
    public func unique(_ columns: [String], name: String? = nil, onConflict: ConflictPolicy? = nil) {
        constraints.append(TableConstraint(name: name, kind: .unique(columns, onConflict)))
    }

    /// `CHECK (condition)` over the whole row.
    ///
    /// ```swift
    /// t.check("startsAt < endsAt", name: "ordered")
    /// ```
    public func check(_ condition: SQL, name: String? = nil) {
        constraints.append(TableConstraint(name: name, kind: .check(condition)))
    }

    /// `FOREIGN KEY (columns) REFERENCES table(parentColumns)`: a foreign key over several columns
    /// (the parent's primary key when `parentColumns` is empty).
    public func foreignKey(
        _ columns: [String], references table: String, columns parentColumns: [String] = [],
        onDelete: ForeignKeyAction? = nil, onUpdate: ForeignKeyAction? = nil, deferred: Bool = false,
        name: String? = nil
    ) {
        let reference = ForeignKeyReference(
            table: table, columns: parentColumns, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
        constraints.append(TableConstraint(name: name, kind: .foreignKey(columns, reference)))
    }

    /// `FOREIGN KEY (columns) REFERENCES` the table of `Parent`, over its primary key (as many
    /// columns as it has, in its order).
    ///
    /// ```swift
    /// t.foreignKey(["country", "number"], references: Passport.self, onDelete: .cascade)
    /// ```
    public func foreignKey<Parent: Record>(
        _ columns: [String], references parent: Parent.Type, onDelete: ForeignKeyAction? = nil,
        onUpdate: ForeignKeyAction? = nil, deferred: Bool = false, name: String? = nil
    ) {
        foreignKey(
            columns, references: Parent.tableName, columns: Parent.primaryKey, onDelete: onDelete, onUpdate: onUpdate,
            deferred: deferred, name: name)
    }

    /// Adds a table constraint written in SQL, as `CREATE TABLE` takes it after the columns.
    ///
    /// ```swift
    /// t.constraint(sql: "CHECK (startsAt < endsAt)")
    /// ```
    public func constraint(sql: SQL) {
        constraints.append(TableConstraint(name: nil, kind: .written(sql)))
    }

    /// The `CREATE TABLE` statement, then the `CREATE INDEX` statements of the columns marked
    /// ``ColumnDefinition/indexed()``.
    func statements(encoder: ValueEncoder) throws -> [String] {
        var statements = [try sql(encoder: encoder)]
        for case .built(let column) in columns where column.isIndexed {
            statements.append(
                column.indexSQL(table: name, ifNotExists: options.contains(.ifNotExists)))
        }
        return statements
    }

    /// The `CREATE TABLE` statement.
    func sql(encoder: ValueEncoder) throws -> String {
        var definitions = try columns.map { column in
            switch column {
            case .built(let column): try column.sql(encoder: encoder)
            case .written(let sql): try sql.inlined(encoder: encoder)
            }
        }
        definitions += try constraints.map { try $0.sql(encoder: encoder) }
        var text = "CREATE "
        if options.contains(.temporary) {
            text += "TEMP "
        }
        text += "TABLE "
        if options.contains(.ifNotExists) {
            text += "IF NOT EXISTS "
        }
        text += SQL.quote(identifier: name) + " (\n    " + definitions.joined(separator: ",\n    ") + "\n)"
        text += Self.suffix(options)
        return text
    }

    /// ` WITHOUT ROWID`, ` STRICT`, both separated by a comma, or nothing.
    static func suffix(_ options: TableOptions) -> String {
        var parts: [String] = []
        if options.contains(.withoutRowID) {
            parts.append("WITHOUT ROWID")
        }
        if options.contains(.strict) {
            parts.append("STRICT")
        }
        return parts.isEmpty ? "" : " " + parts.joined(separator: ", ")
    }

    /// A column built with the builder, or written in SQL.
    enum Either {
        case built(ColumnDefinition)
        case written(SQL)
    }
}

/// A table constraint: `[CONSTRAINT name] PRIMARY KEY (…) | UNIQUE (…) | CHECK (…) | FOREIGN KEY …`.
struct TableConstraint {
    enum Kind {
        case primaryKey([String], ConflictPolicy?)
        case unique([String], ConflictPolicy?)
        case check(SQL)
        case foreignKey([String], ForeignKeyReference)
        case written(SQL)
    }

    var name: String?
    var kind: Kind

    func sql(encoder: ValueEncoder) throws -> String {
        let prefix = name.map { "CONSTRAINT " + SQL.quote(identifier: $0) + " " } ?? ""
        func list(_ columns: [String]) -> String {
            "(" + columns.map(SQL.quote(identifier:)).joined(separator: ", ") + ")"
        }
        switch kind {
        case .primaryKey(let columns, let policy):
            return prefix + "PRIMARY KEY " + list(columns) + ConflictClause.sql(policy)
        case .unique(let columns, let policy):
            return prefix + "UNIQUE " + list(columns) + ConflictClause.sql(policy)
        case .check(let condition):
            return prefix + "CHECK (\(try condition.inlined(encoder: encoder)))"
        case .foreignKey(let columns, let reference):
            return prefix + "FOREIGN KEY " + list(columns) + " " + reference.sql
        case .written(let sql):
            return prefix + (try sql.inlined(encoder: encoder))
        }
    }
}
