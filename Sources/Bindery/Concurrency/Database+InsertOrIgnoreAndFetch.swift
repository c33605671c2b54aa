extension Database {
    /// Inserts many records with `INSERT OR IGNORE` in one transaction and returns, in order, each
    /// record as stored, or nil for a record whose row was skipped. See
    /// ``Connection/insertOrIgnoreAndFetch(contentsOf:)``.
    ///
    /// ```swift
    /// let saved = try await db.insertOrIgnoreAndFetch(contentsOf: students)
    /// let skipped = saved.filter { $0 == nil }.count
    /// ```
    public nonisolated func insertOrIgnoreAndFetch<S: Sequence & Sendable>(
        contentsOf records: S
    ) async throws -> [S.Element?] where S.Element: Record {
        try await write { conn in try conn.insertOrIgnoreAndFetch(contentsOf: records) }
    }
}
