/// Full-text search in requests: the rows a search table matches, best first.
extension QueryRequest {
    /// Only the rows whose entry in the search table `searchTable` (see
    /// ``Connection/create(searchTable:on:columns:tokenizer:content:weights:keptInStep:)``) matches
    /// `pattern`; with `ranked`, sorted best first by the search table's rank (`bm25` with its column
    /// weights), before any ordering given earlier. Other filters, associations, limits and offsets
    /// combine as usual; a second pattern for the same search table must match too.
    ///
    /// ```swift
    /// guard let pattern = SearchPattern.all(typedText) else { return [] }
    /// let notes = try conn.fetchAll(
    ///     Note.all().filter("archived = \(false)").matching(pattern, in: "notes_fts").limit(20))
    /// ```
    ///
    /// The request joins the search table's matches as `JOIN (SELECT rowid, rank, notes_fts FROM
    /// notes_fts WHERE notes_fts MATCH ?) AS notes_fts`: only `"notes_fts".rank` and the search table
    /// itself (for ``SQL/snippet(in:column:before:after:ellipsis:tokens:)``,
    /// ``SQL/highlight(in:column:before:after:)`` or `bm25(notes_fts, …)`) are visible, so the table's
    /// column names stay unambiguous. The pattern is bound, never spliced; a raw pattern FTS5 cannot
    /// parse throws ``SQLiteError`` when the request runs. For a search table over a table without an
    /// `INTEGER PRIMARY KEY` (one that maps the table's primary key to its rowids), the join goes
    /// through that mapping: `"notes"."code" = (SELECT k0 FROM "notes_fts_keys" WHERE id = …)`. A search
    /// table that indexes another table than the request's throws
    /// ``SearchTableError/indexesAnotherTable(searchTable:table:requested:)`` when the request runs.
    public func matching(_ pattern: SearchPattern, in searchTable: String, ranked: Bool = true) -> QueryRequest {
        let fts = SQL.quote(identifier: searchTable)
        let match: SQL = "\(raw: fts) MATCH \(pattern)"
        var request = self
        if let index = request.sourceJoins.firstIndex(where: { ExactText.same($0.alias, fts) }) {
            request.sourceJoins[index].conditions.append(match)
        } else {
            let rowid = SQL.quote(identifier: "bindery.rowid")
            let table = Base.tableName
            var join = SourceJoin(
                alias: fts, columns: "rowid AS \(rowid), rank, \(fts)", source: fts, conditions: [match],
                joinCondition: "\(fts).\(rowid) = \(SQL.quote(identifier: table)).rowid")
            // A search table over a table without a stable rowid maps its rowids to the table's keys;
            // a search table over another table would pair its matches with rows that are not theirs.
            join.schemaJoinCondition = { conn in
                try conn.checkSearchTable(searchTable, indexes: table)
                return try conn.keyedSearchJoinCondition(
                    searchTable: searchTable, table: table, rowid: "\(fts).\(rowid)")
            }
            request.sourceJoins.append(join)
        }
        let rank = SQL(text: fts + ".rank")
        if ranked, !request.orderings.contains(where: { ExactText.same($0.text, rank.text) }) {
            request.orderings.insert(rank, at: 0)
        }
        return request
    }
}
