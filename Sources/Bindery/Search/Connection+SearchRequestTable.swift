/// Which table a search table indexes, so that a request matches through its own table's search
/// tables only (``QueryRequest/matching(_:in:ranked:)``).
extension Connection {
    /// The table the search table `name` indexes, as its schema says: the table a keyed search
    /// table's content view reads, an external content table, or the table its triggers are on; nil
    /// when nothing in the schema says (a search table written by hand, content read from a view, or
    /// no search table of that name).
    func indexedTable(ofSearchTable name: String) throws -> String? {
        if try isKeyedSearchTable(name) {
            return try keyedSearchSource(of: name)
        }
        guard
            let sql = try rows(
                "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
                arguments: [.text(name)]
            ).first.map({ try $0[0] as String? }) ?? nil,
            let definition = SearchTableDefinition(name: name, sql: sql)
        else { return nil }
        if let content = definition.content, !content.isEmpty {
            let isTable = try !rows(
                "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
                arguments: [.text(content)]
            ).isEmpty
            return isTable ? content : nil
        }
        return try rows(
            "SELECT tbl_name FROM sqlite_schema WHERE type = 'trigger' AND name IN (?, ?, ?, ?, ?)",
            arguments: SearchTriggers.triggerSuffixes.map { .text(name + "_" + $0) }
        ).first.map { try $0[0] as String }
    }

    /// Throws ``SearchTableError/indexesAnotherTable(searchTable:table:requested:)`` when the search
    /// table `name` indexes another table than `table` (names compared as SQLite compares them): its
    /// matches would be paired with the rows of `table` that have the same rowids or keys.
    func checkSearchTable(_ name: String, indexes table: String) throws {
        guard let indexed = try indexedTable(ofSearchTable: name), !FoldedIdentifier.same(indexed, table) else {
            return
        }
        throw SearchTableError.indexesAnotherTable(searchTable: name, table: indexed, requested: table)
    }
}
