/// A change to one column of a table, made by ``TableAlteration/change(column:to:)``: the column
/// keeps its definition as the table has it (its type unless one is given, its key, `NOT NULL`,
/// `UNIQUE`, `CHECK`s, `DEFAULT`, `COLLATE`, `REFERENCES` and generated expression), and each method
/// replaces, adds or drops one part of it. Each returns the change, so that they chain.
///
/// ```swift
/// try conn.alter(table: "books") { t in
///     t.change(column: "pages", to: .real)                  // keeps NOT NULL, DEFAULT, CHECK…
///     t.change(column: "title").collate("NOCASE")           // keeps the type, replaces the collation
///     t.change(column: "price").dropDefault().dropChecks()  // drops what is no longer wanted
/// }
/// ```
///
/// A `NOT NULL`, `UNIQUE`, `DEFAULT`, `COLLATE` or generated expression given here replaces the
/// column's own; a `CHECK` or `REFERENCES` is added to those it has (one it already has, word for word,
/// is not added twice). To give a column a whole new definition, with only the constraints
/// written, use ``TableAlteration/replace(column:with:)``.
public final class ColumnChange {
    /// The column's name.
    public let name: String
    /// The new type, or nil to keep the column's.
    let type: ColumnType??
    /// What is replaced or added.
    let additions: ColumnDefinition
    /// What is dropped (before the additions apply).
    var dropped: Set<ColumnClauses.Kind> = []
    /// Whether the column gets a `NOT NULL` when it has none (one it has stays as written).
    var ensuresNotNull = false

    init(name: String, type: ColumnType??) {
        self.name = name
        self.type = type
        self.additions = ColumnDefinition(name: name, type: nil)
    }

    /// `NOT NULL`, replacing the column's own (and its `ON CONFLICT` clause); see
    /// ``ColumnDefinition/notNull(onConflict:)``.
    @discardableResult
    public func notNull(onConflict: ConflictPolicy? = nil) -> ColumnChange {
        additions.notNull(onConflict: onConflict)
        return self
    }

    /// Drops the column's `NOT NULL`: it takes NULL again.
    @discardableResult
    public func dropNotNull() -> ColumnChange {
        additions.notNull = nil
        dropped.insert(.notNull)
        return self
    }

    /// `UNIQUE`, replacing the column's own; see ``ColumnDefinition/unique(onConflict:)``.
    @discardableResult
    public func unique(onConflict: ConflictPolicy? = nil) -> ColumnChange {
        additions.unique(onConflict: onConflict)
        return self
    }

    /// Drops the column's `UNIQUE` constraint (not a UNIQUE index, which ``Connection/drop(index:ifExists:)``
    /// drops, nor a table's `UNIQUE (…)`, which ``TableAlteration/drop(constraint:)`` drops).
    @discardableResult
    public func dropUnique() -> ColumnChange {
        additions.unique = nil
        dropped.insert(.unique)
        return self
    }

    /// Adds `CHECK (condition)`, unless the column has this one already, word for word.
    @discardableResult
    public func check(_ condition: SQL) -> ColumnChange {
        additions.check(condition)
        return self
    }

    /// Drops the column's `CHECK` constraints, and those given to this change before; one given after
    /// is added.
    @discardableResult
    public func dropChecks() -> ColumnChange {
        additions.checks.removeAll()
        dropped.insert(.check)
        return self
    }

    /// A `DEFAULT` value, replacing the column's own; see ``ColumnDefinition/defaults(to:)``.
    @discardableResult
    public func defaults<Value: Encodable & Sendable>(to value: Value) -> ColumnChange {
        additions.defaults(to: value)
        return self
    }

    /// A `DEFAULT` expression, replacing the column's own; see ``ColumnDefinition/defaults(sql:)``.
    @discardableResult
    public func defaults(sql: SQL) -> ColumnChange {
        additions.defaults(sql: sql)
        return self
    }

    /// Drops the column's `DEFAULT`: an insert that leaves the column out stores NULL.
    @discardableResult
    public func dropDefault() -> ColumnChange {
        additions.defaultValue = nil
        dropped.insert(.defaultValue)
        return self
    }

    /// `COLLATE name`, replacing the column's own collation.
    @discardableResult
    public func collate(_ name: String) -> ColumnChange {
        additions.collate(name)
        return self
    }

    /// `COLLATE` a collation defined in Swift, replacing the column's own (see ``Collation``).
    @discardableResult
    public func collate(_ collation: Collation) -> ColumnChange {
        collate(collation.name)
    }

    /// Drops the column's `COLLATE`: its text compares byte by byte (`BINARY`) again.
    @discardableResult
    public func dropCollation() -> ColumnChange {
        additions.collation = nil
        dropped.insert(.collate)
        return self
    }

    /// Adds a foreign key on the column, unless it has this one already, word for word; see ``ColumnDefinition/references(_:column:onDelete:onUpdate:deferred:)``.
    @discardableResult
    public func references(
        _ table: String, column: String? = nil, onDelete: ForeignKeyAction? = nil, onUpdate: ForeignKeyAction? = nil,
        deferred: Bool = false
    ) -> ColumnChange {
        additions.references(table, column: column, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
        return self
    }

    /// Drops the column's `REFERENCES` clauses, and those given to this change before; one given after
    /// is added. A table's `FOREIGN KEY (…)` stays: drop it with ``TableAlteration/drop(constraint:)``.
    @discardableResult
    public func dropReferences() -> ColumnChange {
        additions.references.removeAll()
        dropped.insert(.references)
        return self
    }

    /// A generated expression, replacing the column's own; see ``ColumnDefinition/generated(as:stored:)``.
    @discardableResult
    public func generated(as expression: SQL, stored: Bool = false) -> ColumnChange {
        additions.generated(as: expression, stored: stored)
        return self
    }

    /// `definition` (the column's as written after its name) with this change made.
    func definition(from definition: String, encoder: ValueEncoder) throws -> String {
        var current = ColumnClauses(definition: definition)
        if let type {
            current.type = try type?.checkedName() ?? ""
        }
        let added = try additions.clauses(encoder: encoder)
        let replaced: Set<ColumnClauses.Kind> = [.primaryKey, .notNull, .unique, .defaultValue, .collate, .generated]
        var removed = dropped
        for clause in added where replaced.contains(clause.kind) {
            removed.insert(clause.kind)
        }
        if removed.contains(.notNull) || added.contains(where: { $0.kind == .notNull }) {
            // A bare `NULL` says the opposite of `NOT NULL`: it goes with it.
            removed.insert(.null)
        }
        var pending = added
        var clauses: [ColumnClauses.Clause] = []
        if ensuresNotNull, !removed.contains(.notNull), !current.clauses.contains(where: { $0.kind == .notNull }) {
            // Right after the type, where a table that follows its record type has always put it.
            clauses.append(ColumnClauses.Clause(kind: .notNull, text: "NOT NULL"))
            removed.insert(.null)
        }
        for clause in current.clauses {
            guard removed.contains(clause.kind) else {
                clauses.append(clause)
                continue
            }
            // A replaced clause takes the old one's place.
            if let index = pending.firstIndex(where: { $0.kind == clause.kind && replaced.contains($0.kind) }) {
                clauses.append(pending.remove(at: index))
            }
        }
        // A CHECK or REFERENCES the column has, word for word, is not added twice.
        for clause in pending where !clauses.contains(where: { $0.kind == clause.kind && $0.text == clause.text }) {
            clauses.append(clause)
        }
        current.clauses = clauses
        return current.definition
    }
}
