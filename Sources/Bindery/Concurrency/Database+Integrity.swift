/// Checking the database file for damage.
extension Database {
    /// The problems `PRAGMA integrity_check` finds in the database, one message each (at most 100);
    /// empty when the database is sound. See ``Connection/integrityCheck()``.
    ///
    /// ```swift
    /// let problems = try await db.integrityCheck()
    /// if !problems.isEmpty { print("damaged:", problems.joined(separator: "\n")) }
    /// ```
    ///
    /// It runs as a read (on a reader connection in WAL mode, so writes go on meanwhile) and reads
    /// every page. A file too damaged to be checked at all throws ``SQLiteError`` with code
    /// ``SQLiteError/Code/corrupt`` or ``SQLiteError/Code/notADatabase``.
    public nonisolated func integrityCheck() async throws -> [String] {
        try await read { conn in try conn.integrityCheck() }
    }
}
