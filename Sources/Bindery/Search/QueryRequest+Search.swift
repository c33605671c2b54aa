/// Full-text search in requests: the rows a search table matches, best first.
extension QueryRequest {
    /// Only the rows whose entry in the search table `searchTable` (see
    /// ``Connection/create(searchTable:on:columns:tokenizer:content:weights:)``) matches `pattern`;
    /// with `ranked`, sorted best first by the search table's rank (`bm25` with its column weights),
    /// before any ordering given earlier. Other filters, limits and offsets combine as usual.
    ///
    /// ```swift
    /// guard let pattern = SearchPattern.all(typedText) else { return [] }
    /// let notes = try conn.fetchAll(
    ///     Note.all().filter("archived = \(false)").matching(pattern, in: "notes_fts").limit(20))
    /// ```
    ///
    /// The pattern is bound, never spliced; a raw pattern FTS5 cannot parse throws ``SQLiteError``
    /// when the request runs.
    public func matching(_ pattern: SearchPattern, in searchTable: String, ranked: Bool = true) -> QueryRequest {
        let fts = SQL.quote(identifier: searchTable)
        let rowid = SQL.quote(identifier: Base.tableName) + ".rowid"
        var request = filter("\(raw: rowid) IN (SELECT rowid FROM \(raw: fts) WHERE \(raw: fts) MATCH \(pattern))")
        if ranked {
            let rank: SQL =
                "(SELECT rank FROM \(raw: fts) WHERE \(raw: fts) MATCH \(pattern) AND rowid = \(raw: rowid))"
            request.orderings.insert(rank, at: 0)
        }
        return request
    }
}
