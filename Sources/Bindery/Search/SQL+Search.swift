/// Fragments that read, for each row a search matched, the text it matched.
extension SQL {
    /// The fragments of the row's text around the terms the search matched, the terms between
    /// `before` and `after` (FTS5 `snippet`), to select next to the row's columns in a request that
    /// matches the search table (``QueryRequest/matching(_:in:ranked:)``); NULL for a contentless
    /// search table.
    ///
    /// `column` is the 0-based index of a column among those the search table indexes, or -1 for the
    /// one that matches best; `tokens` is the most words the snippet holds (1 to 64). The markers are
    /// bound, never spliced.
    ///
    /// ```swift
    /// struct Hit: Decodable { var title: String; var excerpt: String? }
    /// let excerpt = SQL.snippet(in: "notes_fts")
    /// let hits = try conn.fetchAll(
    ///     Hit.self,
    ///     Note.all().matching(SearchPattern(raw: "swift"), in: "notes_fts").limit(20)
    ///         .select("title, \(excerpt) AS excerpt"))
    /// ```
    public static func snippet(
        in searchTable: String, column: Int = -1, before: String = "<b>", after: String = "</b>",
        ellipsis: String = "…", tokens: Int = 15
    ) -> SQL {
        let count = Swift.min(Swift.max(tokens, 1), 64)
        return "snippet(\(raw: searchColumn(searchTable)), \(column), \(before), \(after), \(ellipsis), \(count))"
    }

    /// The whole text of the row's `column` (0-based, among those the search table indexes), each term
    /// the search matched between `before` and `after` (FTS5 `highlight`), in a request that matches
    /// the search table (``QueryRequest/matching(_:in:ranked:)``); NULL for a contentless search
    /// table. The markers are bound, never spliced.
    ///
    /// ```swift
    /// let title = SQL.highlight(in: "notes_fts", column: 0, before: "**", after: "**")
    /// ```
    public static func highlight(
        in searchTable: String, column: Int, before: String = "<b>", after: String = "</b>"
    ) -> SQL {
        "highlight(\(raw: searchColumn(searchTable)), \(column), \(before), \(after))"
    }

    /// The search table's own column in the subquery a matching request joins: `"notes_fts"."notes_fts"`.
    private static func searchColumn(_ searchTable: String) -> String {
        let fts = quote(identifier: searchTable)
        return fts + "." + fts
    }
}
