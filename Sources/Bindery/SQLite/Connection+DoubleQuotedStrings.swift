import CSQLite

/// SQLite's legacy rule that reads a double-quoted name matching no column as a string literal
/// (sqlite.org/quirks.html, "Double-quoted String Literals Are Accepted"), which Bindery turns off.
extension Connection {
    /// Turns the double-quoted string rule on or off for DML and DDL statements on `db`; throws when
    /// SQLite does not confirm the setting (an SQLite older than 3.29).
    static func configureDoubleQuotedStrings(_ db: OpaquePointer, accept: Bool) throws {
        let wanted: Int32 = accept ? 1 : 0
        try setConfigFlag(db, SQLITE_DBCONFIG_DQS_DML, name: "SQLITE_DBCONFIG_DQS_DML", to: wanted, since: "3.29")
        try setConfigFlag(db, SQLITE_DBCONFIG_DQS_DDL, name: "SQLITE_DBCONFIG_DQS_DDL", to: wanted, since: "3.29")
    }

    /// `error`, or when it is a "no such column" that comes from a double-quoted string in a view or
    /// trigger of the schema, the same error saying so and what to do.
    ///
    /// Called only when `sql` failed to prepare. The explanation is given only when all of this holds:
    /// the name does not stand in double quotes in `sql` itself (there it is the caller's misspelt
    /// identifier), `sql` does prepare with the legacy rule on, and a view or trigger writes the name
    /// in double quotes.
    func explainingDoubleQuotedStrings(_ error: SQLiteError, sql: String) -> SQLiteError {
        let marker = "no such column: "
        guard !options.acceptsDoubleQuotedStringLiterals, error.code == .error,
            let range = error.message.range(of: marker, options: .backwards)
        else { return error }
        let name = String(error.message[range.upperBound...])
        let quoted = "\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\""
        guard !name.isEmpty, !sql.lowercased().contains(quoted.lowercased()), preparesWithDoubleQuotedStrings(sql),
            let objects = try? rows(
                "SELECT type, name FROM sqlite_schema WHERE type IN ('view', 'trigger') "
                    + "AND instr(lower(sql), lower(?)) > 0 ORDER BY type DESC, name",
                arguments: [.text(quoted)]),
            !objects.isEmpty
        else { return error }
        let culprits = objects.map { row in
            "the \((try? row[0] as String) ?? "view") \"\((try? row[1] as String) ?? "")\""
        }
        return error.explained(
            "\(culprits.joined(separator: ", ")) of the schema \(culprits.count == 1 ? "writes" : "write") \(quoted), "
                + "which SQLite once read as the string '\(name)' because no column has that name; Bindery turns "
                + "that legacy rule off so that a misspelt name is an error: rewrite the schema with '\(name)' in "
                + "single quotes, or open the database with acceptsDoubleQuotedStringLiterals: true")
    }

    /// Whether `sql` prepares when the legacy rule is on; the rule is off again afterwards.
    private func preparesWithDoubleQuotedStrings(_ sql: String) -> Bool {
        guard (try? Connection.configureDoubleQuotedStrings(handle, accept: true)) != nil else { return false }
        defer { try? Connection.configureDoubleQuotedStrings(handle, accept: false) }
        guard let statement = try? Statement(database: handle, status: status, sql: sql, persistent: false) else {
            return false
        }
        statement.finalize()
        return true
    }
}
