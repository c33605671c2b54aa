/// One row that breaks a foreign key, as `PRAGMA foreign_key_check` reports it.
///
/// A migration that leaves such a row behind is rolled back, and
/// ``MigrationError/failed(identifier:underlying:)`` carries the violations in
/// ``MigrationError/foreignKeyViolations(_:)``:
///
/// ```swift
/// catch MigrationError.failed(let identifier, let underlying as MigrationError) {
///     if case .foreignKeyViolations(let violations) = underlying {
///         for violation in violations { print(identifier, violation.table, violation.rowid ?? 0, violation.parent) }
///     }
/// }
/// ```
public struct ForeignKeyViolation: Sendable, Hashable, CustomStringConvertible {
    /// The table holding the row whose foreign key has no parent row.
    public var table: String
    /// The rowid of that row, or nil for a `WITHOUT ROWID` table.
    public var rowid: Int64?
    /// The table the foreign key refers to.
    public var parent: String
    /// The index of the foreign key among the table's foreign keys, as `PRAGMA foreign_key_list` numbers them.
    public var foreignKeyIndex: Int

    /// Creates a violation.
    public init(table: String, rowid: Int64?, parent: String, foreignKeyIndex: Int = 0) {
        self.table = table
        self.rowid = rowid
        self.parent = parent
        self.foreignKeyIndex = foreignKeyIndex
    }

    /// A sentence such as `row 3 of "tracks" refers to a missing row of "albums"`.
    public var description: String {
        let row = rowid.map { "row \($0)" } ?? "a row"
        return "\(row) of \"\(table)\" refers to a missing row of \"\(parent)\""
    }
}

extension ForeignKeyViolation {
    /// The first `limit` rows of `PRAGMA foreign_key_check` on `connection`.
    static func all(in connection: Connection, limit: Int) throws -> [ForeignKeyViolation] {
        let cursor = try connection.rowCursor("PRAGMA foreign_key_check", arguments: [])
        var violations: [ForeignKeyViolation] = []
        while violations.count < limit, let row = try cursor.next() {
            violations.append(
                ForeignKeyViolation(
                    table: try row[0], rowid: try row[1], parent: try row[2], foreignKeyIndex: try row[3]))
        }
        return violations
    }
}
