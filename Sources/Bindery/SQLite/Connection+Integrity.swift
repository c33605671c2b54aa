/// Checking a database file for damage.
extension Connection {
    /// The problems `PRAGMA integrity_check` finds in the database, one message each (at most 100);
    /// empty when the database is sound.
    ///
    /// ```swift
    /// let problems = try conn.integrityCheck()
    /// if !problems.isEmpty { print("damaged:", problems.joined(separator: "\n")) }
    /// ```
    ///
    /// It reads every page, so it takes time on a large file. A file too damaged to be checked at
    /// all (its schema cannot be read, say) throws ``SQLiteError`` with code
    /// ``SQLiteError/Code/corrupt`` or ``SQLiteError/Code/notADatabase`` instead.
    public func integrityCheck() throws -> [String] {
        let rows: [String] = try rows("PRAGMA integrity_check", arguments: []).map { row in try row[0] }
        guard rows != ["ok"] else { return [] }
        // SQLite may put several problems in one row, one a line, under a "*** in database main ***"
        // heading: one message each, without the heading.
        return rows.flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("*** in database ") }
    }
}
