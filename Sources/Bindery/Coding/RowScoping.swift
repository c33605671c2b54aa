/// How the nested values of a type decoded from a joined row find their part of the row: the scopes
/// given with the query, or the automatic rule (a nested ``Record`` reads the one run of columns
/// whose origin table is its table). Made by the record layer, which knows records and connections;
/// the decoder resolves it to column ranges once per statement, never per row.
final class RowScoping {
    /// The scopes given with the query, in row order; nil for the automatic rule.
    let explicit: [RowScope]?
    /// The table a nested type's rows come from (a record's table), or nil for a type with none.
    let tableName: (Any.Type) -> String?
    /// The names of a table's columns, in order, as `*` selects them; empty for no such table.
    let tableColumns: (String) throws -> [String]
    /// The automatic scoping of the same connection, for values nested deeper; nil when this is it.
    private let automaticScoping: RowScoping?

    init(
        explicit: [RowScope]? = nil, tableName: @escaping (Any.Type) -> String?,
        tableColumns: @escaping (String) throws -> [String]
    ) {
        self.explicit = explicit
        self.tableName = tableName
        self.tableColumns = tableColumns
        self.automaticScoping =
            explicit == nil ? nil : RowScoping(tableName: tableName, tableColumns: tableColumns)
    }

    /// The scoping of values nested in a scope: always the automatic rule (given scopes name the
    /// properties of the type decoded from the row itself).
    var automatic: RowScoping { automaticScoping ?? self }

    /// Whether `other` splits rows the same way.
    func sameScopes(as other: RowScoping?) -> Bool {
        guard let other else { return false }
        return explicit == other.explicit
    }
}
