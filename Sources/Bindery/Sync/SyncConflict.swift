/// A conflict handed to a resolver (``SyncPolicy/resolve(_:_:)``): one row of `table`, changed on
/// this copy and by another change, with each version decoded as the table's record type.
public struct SyncConflict<T: Record>: Sendable {
    /// The synced table.
    public let table: String
    /// The row's primary-key values, in the table's key order.
    public let key: [SQLiteValue]
    /// The row as it was before either change: nil when both sides inserted it.
    public let base: T?
    /// The row as this copy has it; nil when this copy deleted it.
    public let local: T?
    /// The row as the other change has it; nil when that change deleted it.
    public let remote: T?
}

/// What a resolver decides about a ``SyncConflict``.
public enum SyncResolution<T: Record>: Sendable {
    /// Keep the row as this copy has it (``SyncConflict/local``; a deleted row stays deleted).
    case keepLocal
    /// Take the row as the other change has it (``SyncConflict/remote``).
    case keepRemote
    /// Store this record (its primary key must be the conflict's key).
    case merged(T)
    /// Delete the row.
    case delete
}
