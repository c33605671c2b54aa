/// Joined queries whose nested values read the parts of the row given with the query, as `async`
/// methods; see ``Connection/fetchAll(_:sql:scopes:)``.
extension Database {
    /// Every row of a joined query decoded as `T`, whose nested properties read the parts of the row
    /// that `scopes` give, in row order.
    ///
    /// ```swift
    /// let rows = try await db.fetchAll(
    ///     Managed.self,
    ///     sql: "SELECT e.*, m.* FROM Employees e LEFT JOIN Employees m ON e.ReportsTo = m.EmployeeID",
    ///     scopes: [.table("Employees", into: "employee"), .table("Employees", into: "manager")])
    /// ```
    public nonisolated func fetchAll<T: Decodable & Sendable>(_ type: T.Type, sql: SQL, scopes: [RowScope])
        async throws -> [T]
    {
        try await read { conn in try conn.fetchAll(T.self, sql: sql, scopes: scopes) }
    }

    /// The first row of a joined query decoded as `T`, or nil when there is none; its nested
    /// properties read the parts of the row that `scopes` give.
    public nonisolated func fetchOne<T: Decodable & Sendable>(_ type: T.Type, sql: SQL, scopes: [RowScope])
        async throws -> T?
    {
        try await read { conn in try conn.fetchOne(T.self, sql: sql, scopes: scopes) }
    }

    /// The rows of a joined query decoded as `T` one small batch at a time, as an asynchronous
    /// sequence (see ``DatabaseCursor``); their nested properties read the parts of the row that
    /// `scopes` give.
    public nonisolated func fetchCursor<T: Decodable & Sendable>(_ type: T.Type, sql: SQL, scopes: [RowScope])
        -> DatabaseCursor<T>
    {
        DatabaseCursor(database: self) { conn in try conn.fetchCursor(T.self, sql: sql, scopes: scopes) }
    }
}
