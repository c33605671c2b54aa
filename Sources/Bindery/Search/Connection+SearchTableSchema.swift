/// What the schema says of an existing search table, for `create(searchTable:…, ifNotExists: true)`.
extension Connection {
    /// A schema object's `CREATE` statement, and whether it creates an FTS5 table.
    struct SearchSchemaEntry {
        var sql: String
        var isSearchTable: Bool
    }

    /// The schema object `name` (names compared as SQLite compares them), nil when there is none.
    func schemaEntry(named name: String) throws -> SearchSchemaEntry? {
        guard
            let row = try rows(
                "SELECT name, type, sql FROM sqlite_schema WHERE name = ? COLLATE NOCASE", arguments: [.text(name)]
            ).first
        else { return nil }
        let stored: String? = try row["sql"]
        let sql = stored ?? ""
        let type: String = try row["type"]
        let entryName: String = try row["name"]
        return SearchSchemaEntry(
            sql: sql, isSearchTable: type == "table" && SearchTableDefinition(name: entryName, sql: sql) != nil)
    }

    /// The `rank` the search table `name` stores (its column weights), nil when it stores none.
    func searchRank(of name: String) throws -> String? {
        let config = SQL.quote(identifier: name + "_config")
        return try rows("SELECT v FROM \(config) WHERE k = 'rank'", arguments: []).first.map { try $0[0] as String }
    }

    /// Whether the triggers that keep the search table `name` in step all exist.
    func hasSearchTriggers(_ name: String) throws -> Bool {
        let names = SearchTriggers.triggerSuffixes.map { name + "_" + $0 }
        let found = try rows(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name IN (?, ?, ?, ?, ?)",
            arguments: names.map { .text($0) })
        return try found.first.map { try $0[0] as Int64 } == Int64(names.count)
    }
}
