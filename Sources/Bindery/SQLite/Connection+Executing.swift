/// Running SQL text with bound arguments, and reading its rows.
extension Connection {
    /// Runs one statement with positional arguments, for `?` and `?NNN` parameters (the array is
    /// indexed from parameter 1). A count that does not match the parameters throws before anything
    /// runs.
    ///
    /// The SQL text is used as it is: to put values into it, pass them as `arguments`, or use the
    /// ``SQL`` overload, `execute("… \(value)")`, which binds them.
    public func execute(_ sql: String, arguments: [SQLiteValue]) throws {
        try withStatement(sql) { statement in
            try statement.bind(arguments: arguments)
            do {
                try statement.run()
            } catch let error as SQLiteError {
                throw error.with(arguments: arguments)
            }
        }
    }

    /// Runs one statement with named arguments for `:name`, `@name` or `$name` parameters; keys may
    /// be written with or without the prefix, and are matched to the names by their bytes, as SQLite
    /// matches them (`:café` composed and decomposed are two parameters). A missing or unknown name
    /// throws before anything runs.
    public func execute(_ sql: String, arguments: [String: SQLiteValue]) throws {
        try withStatement(sql) { statement in
            try statement.bind(namedArguments: arguments)
            do {
                try statement.run()
            } catch let error as SQLiteError {
                throw error.with(arguments: arguments.keys.sorted().compactMap { arguments[$0] })
            }
        }
    }

    /// Runs a query and returns every row, copied out of SQLite.
    public func rows(_ sql: String, arguments: [SQLiteValue]) throws -> [Row] {
        try withStatement(sql) { statement in
            try statement.bind(arguments: arguments)
            return try Connection.collectRows(statement)
        }
    }

    /// Runs a query with named arguments and returns every row.
    public func rows(_ sql: String, arguments: [String: SQLiteValue]) throws -> [Row] {
        try withStatement(sql) { statement in
            try statement.bind(namedArguments: arguments)
            return try Connection.collectRows(statement)
        }
    }

    /// A lazy cursor over the rows of a query: one row in memory at a time, whatever the size of the
    /// result. The statement stays busy until the cursor is done or deallocated.
    ///
    /// ```swift
    /// let cursor = try conn.rowCursor("SELECT id FROM events", arguments: [])
    /// while let row = try cursor.next() { … }
    /// ```
    public func rowCursor(_ sql: String, arguments: [SQLiteValue]) throws -> RowCursor {
        let statement = try checkOutStatement(sql)
        do {
            try statement.bind(arguments: arguments)
        } catch {
            release(statement)
            throw error
        }
        return RowCursor(connection: self, statement: statement)
    }

    static func collectRows(_ statement: Statement) throws -> [Row] {
        var rows: [Row] = []
        guard try statement.step() else { return rows }
        // Columns are read after the first step, which re-prepares a statement whose schema changed.
        let columns = RowColumns(names: statement.columnNames)
        let count = statement.columnCount
        repeat {
            rows.append(Row(values: try (0..<count).map { try statement.value(at: $0) }, columns: columns))
        } while try statement.step()
        return rows
    }
}
