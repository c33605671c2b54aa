/// Deletes the rows of synced tables that a merge left without their parent (a foreign key whose
/// parent row another copy deleted), as `ON DELETE CASCADE` would, logging each; a delete may leave
/// grandchildren without parent, so it repeats until `PRAGMA foreign_key_check` finds nothing.
struct SyncOrphans {
    let capture: SyncCapture
    let connection: Connection
    let hubSequence: Int64?

    func remove() throws {
        for _ in 0..<64 {
            let violations = try connection.rows("PRAGMA main.foreign_key_check", arguments: [])
            guard !violations.isEmpty else { return }
            var tables: [String: Set<Int64>] = [:]
            for row in violations {
                guard case .text(let table) = row.values[0], case .integer(let foreignKey) = row.values[3] else {
                    continue
                }
                tables[table, default: []].insert(foreignKey)
            }
            for (table, foreignKeys) in tables.sorted(by: { $0.key < $1.key }) {
                guard capture.configuration.table(named: table) != nil else {
                    throw SyncError.cannotApply(
                        sequence: hubSequence, table: table, key: "",
                        reason: "the change leaves rows of this table, which is not synced, without their parent")
                }
                for foreignKey in foreignKeys.sorted() {
                    try removeOrphans(of: table, foreignKey: foreignKey)
                }
            }
        }
        throw SyncError.cannotApply(
            sequence: hubSequence, table: "", key: "", reason: "rows without parent remain after 64 rounds of deletes")
    }

    /// Deletes the rows of `table` whose foreign key number `foreignKey` has no parent row.
    private func removeOrphans(of table: String, foreignKey: Int64) throws {
        let schema = try capture.schema(of: table, on: connection)
        let columns = try connection.rows(
            "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?, 'main') WHERE id = ? ORDER BY seq",
            arguments: [.text(table), .integer(foreignKey)])
        guard case .text(let parent) = columns.first?.values[0] else { return }
        let children = columns.compactMap { row -> String? in
            if case .text(let name) = row.values[1] { return name }
            return nil
        }
        var parents = columns.compactMap { row -> String? in
            if case .text(let name) = row.values[2] { return name }
            return nil
        }
        if parents.count != children.count {
            parents = try connection.rows(
                "SELECT name FROM pragma_table_info(?, 'main') WHERE pk > 0 ORDER BY pk", arguments: [.text(parent)]
            ).compactMap { row -> String? in
                if case .text(let name) = row.values[0] { return name }
                return nil
            }
        }
        guard parents.count == children.count else { return }
        // Named in the main schema: a TEMP table of the same name would be found first.
        let child = SQL.quote(identifier: schema.name)
        let parentName = SQL.quote(identifier: parent)
        let notNull = children.map { "\(child).\(SQL.quote(identifier: $0)) IS NOT NULL" }.joined(separator: " AND ")
        let matches = zip(children, parents).map {
            "\(parentName).\(SQL.quote(identifier: $1)) = \(child).\(SQL.quote(identifier: $0))"
        }.joined(separator: " AND ")
        let orphan = "\(notNull) AND NOT EXISTS (SELECT 1 FROM main.\(parentName) WHERE \(matches))"
        let names = schema.columns.map { SQL.quote(identifier: $0) }
        let rows = try connection.rows(
            "SELECT \(names.joined(separator: ", ")) FROM main.\(child) WHERE \(orphan)", arguments: [])
        for row in rows {
            let key = schema.key(of: row.values)
            try SyncState.logConflict(
                hubSequence: hubSequence, table: schema.name, key: key, kind: "row without its parent",
                decision: "deleted: its parent \(parent) row was deleted",
                dropped: SyncState.describe(row.values, columns: schema.columns), on: connection)
            try schema.delete(key: key, on: connection)
        }
    }
}
