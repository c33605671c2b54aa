extension Connection {
    /// Inserts many records with `INSERT OR IGNORE` (in batches through multi-row statements, or one by
    /// one, in one transaction, as ``insert(contentsOf:onConflict:)`` inserts) and returns, in order, each record as stored, or nil for a record whose row was
    /// skipped because it conflicts with a row already there (a primary key or a UNIQUE value taken).
    ///
    /// ``insertAndFetch(contentsOf:onConflict:)`` with ``ConflictPolicy/ignore`` returns such a record
    /// as given, which cannot be told from one stored as given; this one says which rows were skipped.
    ///
    /// ```swift
    /// let saved = try conn.insertOrIgnoreAndFetch(contentsOf: students)
    /// let skipped = zip(students, saved).filter { $0.1 == nil }.map(\.0)
    /// ```
    public func insertOrIgnoreAndFetch<S: Sequence>(contentsOf records: S) throws -> [S.Element?]
    where S.Element: Record {
        try insertReturningEach(records, policy: .ignore) { stored, _ in stored }
    }
}
