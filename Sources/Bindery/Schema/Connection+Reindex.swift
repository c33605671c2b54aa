/// Rebuilding indexes (`REINDEX`), after a collation's order changed.
extension Connection {
    /// Rebuilds every index of every attached database.
    public func reindex() throws {
        try execute("REINDEX", arguments: [])
    }

    /// Rebuilds the indexes that use the collation `name` (one registered with
    /// ``add(collation:)`` whose order changed, say).
    ///
    /// - Throws: ``SchemaChangeError/noSuchObject(kind:name:)`` when the connection knows no such
    ///   collation (SQLite would read the name as a table's or an index's instead).
    public func reindex(collation name: String) throws {
        let known = try rows("SELECT name FROM pragma_collation_list", arguments: [])
            .contains { try ($0[0] as String).equalsIdentifier(name) }
        guard known else { throw SchemaChangeError.noSuchObject(kind: "collation", name: name) }
        try execute("REINDEX \(SQL.quote(identifier: name))", arguments: [])
    }

    /// Rebuilds the indexes of the table `name` of the main schema.
    ///
    /// - Throws: ``SchemaChangeError/noSuchObject(kind:name:)`` when the main schema has no such table.
    public func reindex(table name: String) throws {
        try reindex(name, kind: "table")
    }

    /// Rebuilds the index `name` of the main schema.
    ///
    /// - Throws: ``SchemaChangeError/noSuchObject(kind:name:)`` when the main schema has no such index.
    public func reindex(index name: String) throws {
        try reindex(name, kind: "index")
    }

    /// `REINDEX main.name` after checking that `name` is a `kind` (a collation of that name would be
    /// taken first without the schema's name).
    private func reindex(_ name: String, kind: String) throws {
        let found = try !rows(
            "SELECT 1 FROM main.sqlite_schema WHERE type = ? AND name = ? COLLATE NOCASE",
            arguments: [.text(kind), .text(name)]
        ).isEmpty
        guard found else { throw SchemaChangeError.noSuchObject(kind: kind, name: name) }
        try execute("REINDEX main.\(SQL.quote(identifier: name))", arguments: [])
    }
}
