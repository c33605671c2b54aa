/// What SQLite does to a row whose parent row is deleted or whose parent key changes
/// (`ON DELETE …`, `ON UPDATE …`).
public enum ForeignKeyAction: String, Sendable, Hashable {
    /// `NO ACTION`: the change fails if it leaves the row without a parent (checked at the end of the
    /// statement, or of the transaction for a deferred key).
    case noAction = "NO ACTION"
    /// `RESTRICT`: the change fails at once.
    case restrict = "RESTRICT"
    /// `SET NULL`: the row's key columns become NULL.
    case setNull = "SET NULL"
    /// `SET DEFAULT`: the row's key columns take their defaults.
    case setDefault = "SET DEFAULT"
    /// `CASCADE`: the row is deleted with its parent, or follows its new key.
    case cascade = "CASCADE"
}
