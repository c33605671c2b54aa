import Foundation

/// How a synced table settles a conflict: the same row changed on two copies before either saw the
/// other's change. The hub's order decides which change is *later*; every copy applies the hub's
/// changesets in that order with the same policy, so every copy reaches the same row.
///
/// ```swift
/// var options = Database.Options()
/// options.sync = SyncConfiguration(tables: [
///     SyncTable("tags", policy: .lastWriterWins),
///     SyncTable("todos", policy: .fieldWise),
/// ])
/// ```
///
/// The rules every policy shares (see <doc:Sync#Conflicts>): a delete wins over an update made
/// without knowledge of it; a change that would break a UNIQUE, CHECK or NOT NULL constraint is
/// dropped, the later one losing; a row left without its parent by a delete is deleted, as
/// `ON DELETE CASCADE` would. Every such decision is logged (``SyncCopy/conflicts()``).
public struct SyncPolicy: Sendable {
    enum Kind: Sendable {
        case lastWriterWins
        case fieldWise
        case resolver(AnySyncResolver)
    }

    let kind: Kind

    /// The later change in hub order wins the whole row: the row becomes what the later copy wrote,
    /// every column of it.
    public static let lastWriterWins = SyncPolicy(kind: .lastWriterWins)

    /// Column by column: a column changed on one side only keeps that change; a column changed on
    /// both sides takes the later change in hub order. Two inserts of the same key: the later wins.
    /// A conflict over a row holding TEXT that is not valid UTF-8 stops the pull with
    /// ``SyncError/cannotApply(sequence:table:key:reason:)`` naming the column (as with a resolver):
    /// the merge could not compare or write back those bytes as stored.
    public static let fieldWise = SyncPolicy(kind: .fieldWise)

    /// A closure decides, given the row as it was, as this copy has it and as the other change has
    /// it, each decoded as `T` (the table's record type): keep one side, delete the row, or store a
    /// merged record.
    ///
    /// ```swift
    /// SyncTable(Todo.self, policy: .resolve(Todo.self) { conflict in
    ///     guard let local = conflict.local, let remote = conflict.remote else { return .keepRemote }
    ///     var merged = remote
    ///     merged.done = local.done || remote.done
    ///     return .merged(merged)
    /// })
    /// ```
    ///
    /// `T` is the table's record type: a merged record is stored by an upsert of `T`, in its
    /// ``Record/tableName``. Opening a database whose synced table has a resolver of a type stored in
    /// another table throws ``SyncError/resolverOfAnotherTable(table:recordType:recordTable:)``.
    ///
    /// Every copy runs the resolver for the conflicts of the hub's log, so it must decide from its
    /// arguments alone (no clock, no randomness, no state of its own), or copies may disagree. A
    /// resolver that throws stops the pull at that changeset, which stays pending with
    /// ``SyncError/cannotApply(sequence:table:key:reason:)``.
    public static func resolve<T: Record>(
        _ type: T.Type, _ resolver: @escaping @Sendable (SyncConflict<T>) throws -> SyncResolution<T>
    ) -> SyncPolicy {
        SyncPolicy(kind: .resolver(AnySyncResolver(type, resolver)))
    }

    /// The name of the policy, as the conflict log records it.
    var name: String {
        switch kind {
        case .lastWriterWins: return "last writer wins"
        case .fieldWise: return "field-wise"
        case .resolver: return "resolver"
        }
    }
}
