/// Where a ``SyncCopy`` stands (``SyncCopy/status()``).
public struct SyncStatus: Sendable, Hashable {
    /// The copy's id, made when the database was first opened with ``Database/Options/sync``.
    public let copyID: String
    /// Local changesets not yet seen back from the hub (pushed or not).
    public let pendingChangesets: Int
    /// Local changesets not yet pushed.
    public let unpushedChangesets: Int
    /// The hub sequence of the last changeset this copy applied (0 before the first pull).
    public let lastAppliedSequence: Int64
    /// Why the last pull stopped before the hub's head (a changeset held for a newer schema, or one
    /// that could not be applied), or nil.
    public let lastError: String?
}

/// One decision a merge made about a conflict (``SyncCopy/conflicts()``).
public struct SyncConflictRecord: Sendable, Hashable {
    /// The hub sequence of the changeset being applied; nil while this copy's own unpushed changes
    /// were applied again over the hub's.
    public let hubSequence: Int64?
    /// The table.
    public let table: String
    /// The row's key values, as SQL literals.
    public let key: String
    /// What happened: "update of a changed row", "insert of an existing key", "update of a deleted
    /// row", "delete of a changed row", "constraint", "row without its parent".
    public let kind: String
    /// What was decided.
    public let decision: String
    /// The values the decision dropped, as `column = value` pairs (a value written on a copy that
    /// another copy's later change overwrote, a row deleted, a change refused); nil when nothing was
    /// dropped (a merge that kept every change).
    public let dropped: String?
}
