/// Fragments that read, for each row of a table, the text its search table matched.
extension SQL {
    /// The fragments of the row's text around the terms `pattern` matches, the terms between
    /// `before` and `after` (FTS5 `snippet`), to select next to the row's columns; NULL for a row the
    /// pattern does not match, or for a contentless search table.
    ///
    /// `column` is the 0-based index of a column among those the search table indexes, or -1 for the
    /// one that matches best; `tokens` is the most words the snippet holds (at most 64). The markers
    /// are bound, never spliced.
    ///
    /// ```swift
    /// struct Hit: Decodable { var title: String; var excerpt: String? }
    /// let pattern = SearchPattern(raw: "swift")
    /// let excerpt = SQL.snippet(pattern, in: "notes_fts", of: "notes")
    /// let hits = try conn.fetchAll(
    ///     Hit.self, Note.all().matching(pattern, in: "notes_fts").select("title, \(excerpt) AS excerpt"))
    /// ```
    public static func snippet(
        _ pattern: SearchPattern, in searchTable: String, of table: String, column: Int = -1,
        before: String = "<b>", after: String = "</b>", ellipsis: String = "…", tokens: Int = 15
    ) -> SQL {
        let fts = SQL.quote(identifier: searchTable)
        let rowid = SQL.quote(identifier: table) + ".rowid"
        let count = Swift.min(Swift.max(tokens, 1), 64)
        return """
            (SELECT snippet(\(raw: fts), \(column), \(before), \(after), \(ellipsis), \(count)) \
            FROM \(raw: fts) WHERE \(raw: fts) MATCH \(pattern) AND rowid = \(raw: rowid))
            """
    }

    /// The whole text of the row's `column` (0-based, among those the search table indexes), each term
    /// `pattern` matches between `before` and `after` (FTS5 `highlight`); NULL for a row the pattern
    /// does not match, or for a contentless search table. The markers are bound, never spliced.
    ///
    /// ```swift
    /// let title = SQL.highlight(SearchPattern(raw: "swift"), in: "notes_fts", of: "notes", column: 0)
    /// ```
    public static func highlight(
        _ pattern: SearchPattern, in searchTable: String, of table: String, column: Int, before: String = "<b>",
        after: String = "</b>"
    ) -> SQL {
        let fts = SQL.quote(identifier: searchTable)
        let rowid = SQL.quote(identifier: table) + ".rowid"
        return """
            (SELECT highlight(\(raw: fts), \(column), \(before), \(after)) \
            FROM \(raw: fts) WHERE \(raw: fts) MATCH \(pattern) AND rowid = \(raw: rowid))
            """
    }
}
