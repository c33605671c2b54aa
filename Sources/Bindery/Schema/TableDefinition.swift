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
    /// The columns, in order.
    var columns: [ColumnDefinition] = []
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
        columns.append(column)
        return column
    }

    /// `PRIMARY KEY (columns)`: a key over one or several columns.
    public func primaryKey(_ columns: [String]) {
        constraints.append(TableConstraint(name: nil, kind: .primaryKey(columns)))
    }

    /// `UNIQUE (columns)`: no two rows hold the same values in these columns together.
    public func unique(_ columns: [String], name: String? = nil) {
        constraints.append(TableConstraint(name: name, kind: .unique(columns)))
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

    /// The `CREATE TABLE` statement.
    func sql(encoder: ValueEncoder) throws -> String {
        var definitions = try columns.map { try $0.sql(encoder: encoder) }
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
}

/// A table constraint: `[CONSTRAINT name] PRIMARY KEY (…) | UNIQUE (…) | CHECK (…) | FOREIGN KEY …`.
struct TableConstraint {
    enum Kind {
        case primaryKey([String])
        case unique([String])
        case check(SQL)
        case foreignKey([String], ForeignKeyReference)
    }

    var name: String?
    var kind: Kind

    func sql(encoder: ValueEncoder) throws -> String {
        let prefix = name.map { "CONSTRAINT " + SQL.quote(identifier: $0) + " " } ?? ""
        func list(_ columns: [String]) -> String {
            "(" + columns.map(SQL.quote(identifier:)).joined(separator: ", ") + ")"
        }
        switch kind {
        case .primaryKey(let columns):
            return prefix + "PRIMARY KEY " + list(columns)
        case .unique(let columns):
            return prefix + "UNIQUE " + list(columns)
        case .check(let condition):
            return prefix + "CHECK (\(try condition.inlined(encoder: encoder)))"
        case .foreignKey(let columns, let reference):
            return prefix + "FOREIGN KEY " + list(columns) + " " + reference.sql
        }
    }
}
