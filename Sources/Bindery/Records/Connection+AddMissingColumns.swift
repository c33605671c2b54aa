/// Growing a record type's table when the type gains properties.
extension Connection {
    /// Adds to the table of record type `T`, with `ALTER TABLE … ADD COLUMN`, each column of the type
    /// that the table lacks, and returns their names (empty when none was missing). Columns are
    /// never renamed or dropped: a property that was renamed shows up as a new column.
    ///
    /// ```swift
    /// struct Student: Record {           // version 2 gains `email`
    ///     var id: Int64?
    ///     var name: String
    ///     var email: String?
    /// }
    /// migrator.register("students: add missing columns") { conn in
    ///     _ = try conn.addMissingColumns(for: Student.self)   // ["email"]; old rows decode with nil
    /// }
    /// ```
    ///
    /// An optional property becomes a nullable column. A missing column that is not optional, or is
    /// part of the primary key, cannot be added (the existing rows would have no value for it):
    /// ``SchemaError/cannotAddColumn(table:column:reason:)`` is thrown and no column is added. Add such
    /// a column with SQL, `ALTER TABLE … ADD COLUMN … NOT NULL DEFAULT …`, or rebuild the table in a
    /// migration. A table that does not exist throws ``SQLiteError`` (create it with
    /// ``createTable(for:ifNotExists:)``).
    @discardableResult
    public func addMissingColumns<T: Record>(for type: T.Type) throws -> [String] {
        let table = T.tableName
        let existing = try rows("SELECT name FROM pragma_table_info(?)", arguments: [.text(table)])
            .map { try $0[0] as String }
        guard !existing.isEmpty else {
            throw SQLiteError(
                code: .error,
                message: "no such table: \(table) (create it with createTable(for: \(T.self).self) before adding "
                    + "columns to it)")
        }
        let missing = try probeColumns(of: T.self).filter { column in
            !existing.contains { $0.equalsIdentifier(column.name) }
        }
        for column in missing {
            if T.primaryKey.contains(where: { $0.equalsIdentifier(column.name) }) {
                throw SchemaError.cannotAddColumn(
                    table: table, column: column.name,
                    reason: "it is part of the primary key of \(T.self), which ALTER TABLE cannot change; rebuild "
                        + "the table in a migration (create the new table, copy the rows, drop the old one, rename)")
            }
            if column.notNull {
                throw SchemaError.cannotAddColumn(
                    table: table, column: column.name,
                    reason: "its property in \(T.self) is not optional and has no default, so the existing rows "
                        + "would have no value for it; make the property optional, or add the column in a "
                        + "migration with ALTER TABLE … ADD COLUMN … NOT NULL DEFAULT …")
            }
        }
        guard !missing.isEmpty else { return [] }
        try transaction(.immediate) { conn in
            for column in missing {
                var definition = SQL.quote(identifier: column.name)
                if !column.type.isEmpty {
                    definition += " " + column.type
                }
                try conn.execute(script: "ALTER TABLE \(SQL.quote(identifier: table)) ADD COLUMN \(definition)")
            }
        }
        return missing.map(\.name)
    }
}
