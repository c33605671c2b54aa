/// Compiling a statement without running it.
extension Connection {
    /// Prepares `sql` and finalizes it unrun: throws ``SQLiteError`` when it does not compile. A
    /// statement that writes a table compiles the triggers it would fire, so a trigger that names a
    /// missing column makes it throw.
    func checkCompiles(_ sql: String) throws {
        let statement = try Statement(database: handle, status: status, sql: sql, persistent: false)
        statement.finalize()
    }
}
