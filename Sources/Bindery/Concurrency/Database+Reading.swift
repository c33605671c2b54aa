/// The read helpers of ``Connection`` as `async` methods: rows, and cursors as asynchronous sequences.
extension Database {
    /// Runs a query in a read and returns its rows, copied out of SQLite. See ``Connection/rows(_:)``.
    ///
    /// ```swift
    /// let rows = try await db.rows("SELECT name, year FROM students WHERE year > \(2020)")
    /// let name: String = try rows[0]["name"]
    /// ```
    public nonisolated func rows(_ sql: SQL) async throws -> [Row] {
        try await read { conn in try conn.rows(sql) }
    }

    /// The rows of a query decoded as `T` one small batch at a time, as an asynchronous sequence that
    /// holds one reader connection while it is iterated; see ``DatabaseCursor``.
    ///
    /// ```swift
    /// for try await student in db.fetchCursor(Student.self, sql: "SELECT * FROM students ORDER BY id") {
    ///     try await send(student)
    /// }
    /// ```
    ///
    /// Nothing runs until the loop asks for the first value; SQL and decoding errors are thrown by
    /// the loop.
    public nonisolated func fetchCursor<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) -> DatabaseCursor<T> {
        DatabaseCursor(database: self) { conn in try conn.fetchCursor(T.self, sql: sql) }
    }

    /// The records matching `condition` (all when nil) in the order `orderBy`, as an asynchronous
    /// sequence; see ``fetchCursor(_:sql:)`` and ``DatabaseCursor``.
    ///
    /// ```swift
    /// for try await student in db.fetchCursor(Student.self, where: "year >= \(2020)", orderBy: "name") {
    ///     print(student.name)
    /// }
    /// ```
    public nonisolated func fetchCursor<T: Record>(
        _ type: T.Type, where condition: SQL? = nil, orderBy order: SQL? = nil
    ) -> DatabaseCursor<T> {
        DatabaseCursor(database: self) { conn in try conn.fetchCursor(T.self, where: condition, orderBy: order) }
    }
}
