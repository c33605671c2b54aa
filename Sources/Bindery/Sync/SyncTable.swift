/// A table whose changes a synced database records and merges (``SyncConfiguration``).
///
/// A synced table needs a primary key that two copies never give to two different rows: a UUID
/// (stored as TEXT or BLOB) or another key the app chooses. An `INTEGER PRIMARY KEY` that SQLite
/// assigns is refused (``SyncError/unsafeKey(table:reason:)``): each copy would count from its own
/// last row, and two copies would give the same id to different rows.
public struct SyncTable: Sendable {
    /// The table's name.
    public let name: String
    /// How the table's conflicts are settled.
    public let policy: SyncPolicy

    /// Syncs the table `name`, settling conflicts by `policy`.
    ///
    /// ```swift
    /// SyncTable("todos", policy: .fieldWise)
    /// ```
    public init(_ name: String, policy: SyncPolicy = .lastWriterWins) {
        self.name = name
        self.policy = policy
    }

    /// Syncs the table of the record type `type` (its ``Record/tableName``).
    ///
    /// ```swift
    /// SyncTable(Todo.self, policy: .fieldWise)
    /// ```
    public init<T: Record>(_ type: T.Type, policy: SyncPolicy = .lastWriterWins) {
        self.init(T.tableName, policy: policy)
    }
}
