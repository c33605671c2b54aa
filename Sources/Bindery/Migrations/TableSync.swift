/// A record type whose table a ``Migrator`` keeps in step with the type on every `migrate`
/// (``Migrator/syncTable(for:droppingColumns:)``).
struct TableSync: Sendable {
    /// The table's name.
    let table: String
    /// Brings the table in step with the type inside the caller's transaction; returns what it did
    /// (`created`, `added shelf`, `changed price`, `dropped legacy`), empty when nothing changed.
    let run: @Sendable (Connection) throws -> [String]

    /// The prefix of the ledger identifiers of table syncs, which `migrate` does not take for
    /// migrations of a newer version.
    static let ledgerPrefix = "sync table "

    /// The sync of record type `T`'s table.
    init<T: Record>(_ type: T.Type, droppingColumns: Bool) {
        table = T.tableName
        run = { conn in try TableSync.sync(T.self, conn, droppingColumns: droppingColumns) }
    }

    /// Creates `T`'s table when it is missing; otherwise adds the missing columns, rebuilds when a
    /// column's type or nullability changed, and drops the columns the type no longer has when
    /// `droppingColumns`.
    private static func sync<T: Record>(_ type: T.Type, _ conn: Connection, droppingColumns: Bool) throws -> [String] {
        let table = T.tableName
        let existing = try conn.rows(
            "SELECT name, type, \"notnull\", pk, hidden FROM pragma_table_xinfo(?)", arguments: [.text(table)])
        guard !existing.isEmpty else {
            try conn.runSchema(try conn.createTableSQL(for: T.self))
            return ["created"]
        }
        let key = T.primaryKey
        // The table's declared key, in key order; a table without one (a rowid table made by hand) is
        // left as it is.
        let declared = try existing.filter { try ($0[3] as Int) > 0 }
            .sorted { try ($0[3] as Int) < ($1[3] as Int) }
            .map { try $0[0] as String }
        let sameKey =
            declared.count == key.count && declared.allSatisfy { name in key.contains { $0.equalsIdentifier(name) } }
        guard declared.isEmpty || sameKey else {
            throw MigrationError.primaryKeyChanged(table: table, database: declared, type: key)
        }
        let wanted = try conn.probeColumns(of: T.self)
        let alteration = TableAlteration(name: table)
        var actions: [String] = []
        for column in wanted {
            let isKey = key.contains { $0.equalsIdentifier(column.name) }
            guard let row = try existing.first(where: { try ($0[0] as String).equalsIdentifier(column.name) }) else {
                let added = alteration.add(column: column.name, column.type.isEmpty ? nil : ColumnType(column.type))
                if column.notNull || isKey {
                    added.notNull()
                }
                actions.append("added \(column.name)")
                continue
            }
            let type: String = try row[1]
            let notNull: Bool = try row[2]
            let inKey = try (row[3] as Int) > 0
            let integerKey = key.count == 1 && isKey && column.type == "INTEGER"
            let wantsNotNull = (column.notNull || isKey) && !integerKey
            guard !type.equalsIdentifier(column.type) || (notNull != wantsNotNull && !inKey) else { continue }
            // Only the type and NOT NULL follow the type: every other constraint of the column (its
            // key, foreign key, UNIQUE, CHECK, DEFAULT, COLLATE) stays as the table has it.
            alteration.retype(
                column: column.name, to: column.type.isEmpty ? nil : ColumnType(column.type), notNull: wantsNotNull)
            actions.append("changed \(column.name)")
        }
        if droppingColumns {
            for row in existing where try (row[4] as Int) == 0 {
                let name: String = try row[0]
                guard !wanted.contains(where: { $0.name.equalsIdentifier(name) }) else { continue }
                alteration.drop(column: name)
                actions.append("dropped \(name)")
            }
        }
        try conn.alter(alteration)
        return actions
    }
}
