/// The scopes given with a joined query, and the table columns they are checked against.
extension Connection {
    /// The splitting of rows that `scopes` give, checked against this connection's schema.
    func scoping(_ scopes: [RowScope]) -> RowScoping {
        RowScoping(
            explicit: scopes, tableName: RecordContext.recordTable,
            tableColumns: { [weak self] table in try self?.selectedColumns(of: table) ?? [] })
    }

    /// The names of the columns that `table.*` selects, in order: every column but the hidden ones of
    /// a virtual table (generated columns are selected too). Empty for no such table or view.
    func selectedColumns(of table: String) throws -> [String] {
        try rows(
            "SELECT name FROM pragma_table_xinfo(?) WHERE hidden IN (0, 2, 3) ORDER BY cid",
            arguments: [.text(table)]
        ).map { try $0[0] }
    }
}

extension RowScope {
    /// A scope for `property` taking the columns of the record type's table, as `table.*` (or
    /// `alias.*`) selects them.
    ///
    /// ```swift
    /// scopes: [.record(Employee.self, into: "employee"), .record(Employee.self, into: "manager")]
    /// ```
    public static func record<R: Record>(_ type: R.Type, into property: String) -> RowScope {
        .table(R.tableName, into: property)
    }
}
