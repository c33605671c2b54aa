/// Collations defined in Swift.
extension Connection {
    /// Registers `collation` on this connection, replacing one of the same name (ignoring ASCII case):
    /// columns, indexes and `ORDER BY` clauses that name it sort by it from now on. A connection
    /// opened with it in ``Options/collations`` has it already.
    ///
    /// ```swift
    /// try conn.add(collation: .localizedStandard)
    /// let files = try conn.fetchAll(File.self, sql: "SELECT * FROM files ORDER BY name COLLATE localizedStandard")
    /// ```
    ///
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code/busy`` while a statement of the connection
    ///   is running (replacing a collation it may be using), or when the connection is closed.
    public func add(collation: Collation) throws {
        try checkOpen()
        try collation.register(on: handle)
    }
}
