/// What an INSERT does when it would break a UNIQUE, NOT NULL, CHECK or PRIMARY KEY constraint
/// (SQLite's `INSERT OR …`).
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// Undo this statement and throw ``SQLiteError/Code/constraint``; earlier statements of the
    /// transaction stay (the default).
    case abort = "ABORT"
    /// Skip the row silently; the rest goes on.
    case ignore = "IGNORE"
    /// Delete the rows in the way, then insert.
    case replace = "REPLACE"
    /// Throw ``SQLiteError/Code/constraint``, keeping what the statement changed before the conflict.
    case fail = "FAIL"
    /// Roll back the whole transaction and throw ``SQLiteError/Code/constraint``.
    case rollback = "ROLLBACK"
}
