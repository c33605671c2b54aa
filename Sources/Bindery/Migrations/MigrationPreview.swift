/// A pending migration and the schema statements it will run, as ``Migrator/preview(_:)-(Connection)``
/// lists them.
public struct MigrationPreview: Sendable, Hashable, CustomStringConvertible {
    /// The migration's identifier.
    public var identifier: String
    /// The statements the table builder runs for it (`CREATE TABLE`, `ALTER TABLE`, the steps of a
    /// rebuild …), in order. SQL the migration runs itself with `execute` is not listed.
    public var statements: [String]

    /// Creates a preview.
    public init(identifier: String, statements: [String]) {
        self.identifier = identifier
        self.statements = statements
    }

    /// The identifier, then each statement, ending with `;`, on its own lines.
    public var description: String {
        (["-- \(identifier)"] + statements.map { $0 + ";" }).joined(separator: "\n")
    }
}
