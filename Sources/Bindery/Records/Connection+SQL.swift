/// Running ``SQL`` with bound values, and fetching any `Decodable` from its rows.
extension Connection {
    /// Runs one statement, binding every interpolated value as a parameter.
    ///
    /// ```swift
    /// try conn.execute("UPDATE counters SET n = n + 1 WHERE name = \(name)")
    /// ```
    public func execute(_ sql: SQL) throws {
        try withBoundStatement(sql) { statement in try statement.run() }
    }

    /// Runs a query and returns its rows.
    ///
    /// ```swift
    /// let rows = try conn.rows("SELECT name, year FROM students WHERE year > \(2020)")
    /// let first: String = try rows[0]["name"]
    /// ```
    public func rows(_ sql: SQL) throws -> [Row] {
        try rows(sql.text, arguments: try sql.arguments(encoder: recordContext.values))
    }

    /// Every row of a query decoded as `T`: a struct by column name, a single-value type (`String`,
    /// `Int`, `Date`, a raw-value enum …) from the first column.
    ///
    /// ```swift
    /// let names = try conn.fetchAll(String.self, sql: "SELECT name FROM students ORDER BY name")
    /// ```
    ///
    /// A property of `T` whose name is no column and whose type is a ``Record`` reads the columns of
    /// its table in a joined row (see <doc:JoinsAndAssociations>).
    public func fetchAll<T: Decodable>(_ type: T.Type, sql: SQL) throws -> [T] {
        try fetchAll(T.self, sql: sql, scoping: recordContext.scoping)
    }

    /// Every row of a joined query decoded as `T`, whose nested properties read the parts of the row
    /// that `scopes` give, in row order (see ``RowScope``).
    ///
    /// ```swift
    /// let rows = try conn.fetchAll(
    ///     Managed.self,
    ///     sql: "SELECT e.*, m.* FROM Employees e LEFT JOIN Employees m ON e.ReportsTo = m.EmployeeID",
    ///     scopes: [.table("Employees", into: "employee"), .table("Employees", into: "manager")])
    /// ```
    public func fetchAll<T: Decodable>(_ type: T.Type, sql: SQL, scopes: [RowScope]) throws -> [T] {
        try fetchAll(T.self, sql: sql, scoping: scoping(scopes))
    }

    /// The same, with the splitting of joined rows that `scoping` gives: how requests pass theirs.
    func fetchAll<T: Decodable>(_ type: T.Type, sql: SQL, scoping: RowScoping) throws -> [T] {
        try withBoundStatement(sql) { statement in
            guard try statement.step() else { return [] }
            // The decoder is fetched after the first step, which re-prepares a statement whose schema
            // changed: its column look-up must see the columns as they are now.
            let decoder = RowDecoder.attached(
                to: statement, options: recordContext.options, for: T.self, scoping: scoping)
            return try Connection.collect(T.self, statement: statement, decoder: decoder)
        }
    }

    /// The first row of a query decoded as `T`, or nil when there is none.
    ///
    /// ```swift
    /// let name = try conn.fetchOne(String.self, sql: "SELECT name FROM students WHERE id = \(id)")
    /// ```
    public func fetchOne<T: Decodable>(_ type: T.Type, sql: SQL) throws -> T? {
        try fetchOne(T.self, sql: sql, scoping: recordContext.scoping)
    }

    /// The first row of a joined query decoded as `T`, or nil when there is none; its nested
    /// properties read the parts of the row that `scopes` give (see ``fetchAll(_:sql:scopes:)``).
    public func fetchOne<T: Decodable>(_ type: T.Type, sql: SQL, scopes: [RowScope]) throws -> T? {
        try fetchOne(T.self, sql: sql, scoping: scoping(scopes))
    }

    /// The same, with the splitting of joined rows that `scoping` gives: how requests pass theirs.
    func fetchOne<T: Decodable>(_ type: T.Type, sql: SQL, scoping: RowScoping) throws -> T? {
        try withBoundStatement(sql) { statement in
            guard try statement.step() else { return nil }
            return try RowDecoder.attached(to: statement, options: recordContext.options, for: T.self, scoping: scoping)
                .decodeRow(T.self)
        }
    }

    /// A lazy cursor decoding the rows of a query one at a time, in constant memory.
    ///
    /// ```swift
    /// let cursor = try conn.fetchCursor(Event.self, sql: "SELECT * FROM events")
    /// while let event = try cursor.next() { … }
    /// ```
    public func fetchCursor<T: Decodable>(_ type: T.Type, sql: SQL) throws -> RecordCursor<T> {
        try fetchCursor(T.self, sql: sql, scoping: recordContext.scoping)
    }

    /// A lazy cursor over the rows of a joined query, decoded as `T` one at a time; its nested
    /// properties read the parts of the row that `scopes` give (see ``fetchAll(_:sql:scopes:)``).
    public func fetchCursor<T: Decodable>(_ type: T.Type, sql: SQL, scopes: [RowScope]) throws -> RecordCursor<T> {
        try fetchCursor(T.self, sql: sql, scoping: scoping(scopes))
    }

    /// The same, with the splitting of joined rows that `scoping` gives: how requests pass theirs.
    func fetchCursor<T: Decodable>(_ type: T.Type, sql: SQL, scoping: RowScoping) throws -> RecordCursor<T> {
        let arguments = try sql.arguments(encoder: recordContext.values)
        let statement = try checkOutStatement(sql.text)
        do {
            try statement.bind(arguments: arguments)
        } catch {
            release(statement)
            throw error
        }
        return RecordCursor(connection: self, statement: statement, options: recordContext.options, scoping: scoping)
    }

    /// Decodes the current row and every following one into an array.
    ///
    /// The values go into a buffer of `T` first and into the array once at the end: appending to a
    /// `[T]` of a generic `T` row by row would look up the array's metadata on every call.
    private static func collect<T: Decodable>(_ type: T.Type, statement: Statement, decoder: RowDecoder) throws
        -> [T]
    {
        var buffer = RecordBuffer<T>(capacity: 64)
        defer { buffer.deallocate() }
        repeat {
            // Decoded straight into its place; a row that throws leaves nothing behind.
            try buffer.append { try decoder.decodeRow(T.self) }
        } while try statement.step()
        return buffer.array()
    }

    /// Runs `body` with the cached statement for `sql`, its values bound.
    func withBoundStatement<T>(_ sql: SQL, _ body: (Statement) throws -> T) throws -> T {
        try withBoundStatement(sql.text, values: sql, body)
    }

    /// Runs `body` with the cached statement for `text`, the values of `sql` bound: the statement of a
    /// record call around a condition the caller wrote (see ``WrappingMemo``).
    func withBoundStatement<T>(_ text: String, values sql: SQL, _ body: (Statement) throws -> T) throws -> T {
        if sql.hasSpecialValues {
            // Converted before the statement is prepared: a value misplaced after `IN` then throws the
            // error that says how to write it, not SQLite's syntax error.
            let arguments = try sql.arguments(encoder: recordContext.values)
            return try withBoundStatement(
                text, binding: { statement, _ in try statement.bind(arguments: arguments) },
                arguments: { _ in arguments }, body)
        }
        return try withBoundStatement(
            text, binding: { statement, encoder in try sql.bind(to: statement, encoder: encoder) },
            arguments: { encoder in try sql.arguments(encoder: encoder) }, body)
    }

    /// Runs `body` with the cached statement for `text`, its parameters bound by `bind`; an SQLite error
    /// shows the values that `arguments` gives (converted again, for the error only).
    func withBoundStatement<T>(
        _ text: String, binding bind: (Statement, ValueEncoder) throws -> Void,
        arguments: (ValueEncoder) throws -> [SQLiteValue], _ body: (Statement) throws -> T
    ) throws -> T {
        let encoder = recordContext.values
        return try withStatement(text) { statement in
            try bind(statement, encoder)
            do {
                return try body(statement)
            } catch let error as SQLiteError {
                throw error.with(arguments: (try? arguments(encoder)) ?? [])
            }
        }
    }
}
