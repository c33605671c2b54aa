/// The schema statements the table builder ran on a connection while a ``Migrator`` preview
/// recorded them (see ``Migrator/preview(_:)``).
final class SchemaLog {
    /// The statements, in order; nil when nothing is recording.
    var statements: [String]?
}

extension Connection {
    /// The connection's schema log.
    var schemaLog: SchemaLog {
        extensionState { SchemaLog() }
    }

    /// Runs one schema statement of the table builder, and logs it when a preview records. Text after
    /// the statement (from SQL a builder call was given: a column, a constraint, a check) throws
    /// before anything runs.
    func runSchema(_ sql: String) throws {
        try checkCompiles(sql)
        try execute(script: sql)
        schemaLog.statements?.append(sql)
    }
}
