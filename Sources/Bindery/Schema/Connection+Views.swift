/// Views: named queries that read like tables.
extension Connection {
    /// Creates the view `name` over the query `select`, whose interpolated values are written into it
    /// as literals (SQLite keeps no bound values in a schema). `columns` names the view's columns
    /// (those of the query when empty); a `temporary` view lives as long as the connection.
    ///
    /// ```swift
    /// try conn.create(view: "recentBooks", as: "SELECT id, title FROM books WHERE year >= \(2020)")
    /// let recent = try conn.fetchAll(BookInfo.self, sql: "SELECT * FROM recentBooks")
    /// ```
    ///
    /// - Throws: ``SQLiteError`` when SQLite refuses the view (a missing table or column, a name
    ///   taken) or `select` holds more than one statement; nothing is created then.
    public func create(
        view name: String, as select: SQL, columns: [String] = [], temporary: Bool = false, ifNotExists: Bool = false
    ) throws {
        var sql = "CREATE " + (temporary ? "TEMP " : "") + "VIEW " + (ifNotExists ? "IF NOT EXISTS " : "")
        sql += SQL.quote(identifier: name)
        if !columns.isEmpty {
            sql += " (" + columns.map(SQL.quote(identifier:)).joined(separator: ", ") + ")"
        }
        sql += " AS " + (try select.inlined(encoder: recordContext.values))
        // One statement: text after the query is refused, not run.
        try execute(sql, arguments: [])
        schemaLog.statements?.append(sql)
    }

    /// Drops the view `name`; with `ifExists`, a missing view is no error.
    public func drop(view name: String, ifExists: Bool = false) throws {
        try runSchema("DROP VIEW \(ifExists ? "IF EXISTS " : "")\(SQL.quote(identifier: name))")
    }
}
