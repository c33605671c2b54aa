import Foundation

/// Why a ``Migrator`` did not migrate a database.
///
/// ```swift
/// do {
///     try await migrator.migrate(db)
/// } catch MigrationError.failed(let identifier, let underlying) {
///     print("migration \(identifier) was rolled back: \(underlying)")
/// } catch MigrationError.unknownApplied(let identifiers) {
///     print("this database comes from a newer version of the app: \(identifiers)")
/// }
/// ```
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// The migration `identifier` threw `underlying`, or left rows that break a foreign key
    /// (then `underlying` is ``foreignKeyViolations(_:)``). That migration was rolled back wholly;
    /// the migrations before it stay applied and those after it did not run.
    case failed(identifier: String, underlying: any Error)
    /// The database holds applied migrations that this program does not register: it was migrated by
    /// a newer version of the program. Nothing ran.
    case unknownApplied([String])
    /// The identifier was registered more than once. Nothing ran.
    case duplicateIdentifier(String)
    /// `migrate(_:upTo:)` was given an identifier that is not registered. Nothing ran.
    case unknownTarget(String)
    /// Rows that break a foreign key after a migration ran (at most the first 100), the `underlying`
    /// error of ``failed(identifier:underlying:)``.
    case foreignKeyViolations([ForeignKeyViolation])
    /// ``Migrator/syncTable(for:droppingColumns:)`` found the primary key of `table` to be `database` in
    /// the database and `type` in the record type: it does not change a primary key (the `underlying`
    /// error of ``failed(identifier:underlying:)``). Write a migration, registered before the sync, that
    /// creates the table anew with the new key, copies the rows, drops the old table and renames the
    /// new one.
    case primaryKeyChanged(table: String, database: [String], type: [String])

    /// A sentence naming the migration or identifiers and what went wrong.
    public var description: String {
        switch self {
        case .failed(let identifier, let underlying):
            return "migration \"\(identifier)\" failed and was rolled back: \(underlying)"
        case .unknownApplied(let identifiers):
            return "the database holds migrations this program does not register (it was migrated by a newer "
                + "version): \(MigrationError.list(identifiers))"
        case .duplicateIdentifier(let identifier):
            return "the migration \"\(identifier)\" is registered more than once"
        case .unknownTarget(let identifier):
            return "no migration \"\(identifier)\" is registered"
        case .primaryKeyChanged(let table, let database, let type):
            let quoted = { (columns: [String]) in columns.map { "\"\($0)\"" }.joined(separator: ", ") }
            return
                "the primary key of \"\(table)\" is (\(quoted(database))) in the database but (\(quoted(type))) in the"
                + " record type, and syncTable does not change a primary key: register a migration before the sync"
                + " that creates the table anew under another name with the new key (create(table:)), copies the"
                + " rows (INSERT INTO … SELECT …), drops the old table and renames the new one"
        case .foreignKeyViolations(let violations):
            let shown = violations.prefix(5).map(\.description).joined(separator: "; ")
            let more = violations.count > 5 ? "; and \(violations.count - 5) more" : ""
            return "\(violations.count) row(s) break a foreign key: \(shown)\(more)"
        }
    }

    private static func list(_ identifiers: [String]) -> String {
        identifiers.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}

extension MigrationError: LocalizedError {
    /// The `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
