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
    /// For a request's rows: the columns at the end of the row that the row's own keys never read, the
    /// key columns of its to-many associations (`keys`) followed by the columns of the scopes given
    /// (`scoped`, laid end to end up to the last column). Nil for a query given as SQL, whose scopes
    /// take the whole row. A nested value no scope names then follows the prefixes and the automatic
    /// rule among the other columns (the request's own record among them).
    let trailing: (keys: Int32, scoped: Int32)?
    /// The values of nested properties fetched before the row (a request's to-many associations), by
    /// property name.
    let prefetched: [String: any PrefetchedValues]
    /// Where the ``trailing`` columns end: the end of the row (nil), or of the scope of a nested value
    /// whose own nested values' scopes follow its columns (an association included by an included
    /// association; see ``nested(_:width:end:)``).
    let trailingEnd: Int32?

    init(
        explicit: [RowScope]? = nil, tableName: @escaping (Any.Type) -> String?,
        tableColumns: @escaping (String) throws -> [String], trailing: (keys: Int32, scoped: Int32)? = nil,
        prefetched: [String: any PrefetchedValues] = [:], trailingEnd: Int32? = nil
    ) {
        self.explicit = explicit
        self.tableName = tableName
        self.tableColumns = tableColumns
        self.trailing = trailing
        self.prefetched = prefetched
        self.trailingEnd = trailingEnd
        self.automaticScoping =
            explicit == nil ? nil : RowScoping(tableName: tableName, tableColumns: tableColumns)
    }

    /// The scoping of the nested value `property`, whose scope ends at column `end` with the columns of
    /// `scopes`, `width` of them: its own nested values read those (or the values fetched for them, whose
    /// paths start with `property`), its other properties the columns before. Nil when it has neither
    /// (the automatic rule then applies).
    func nested(_ property: String, _ scopes: [RowScope], width: Int32, end: Int32) -> RowScoping? {
        let prefix = property + "."
        var values: [String: any PrefetchedValues] = [:]
        for (path, value) in prefetched where path.hasPrefix(prefix) {
            values[String(path.dropFirst(prefix.count))] = value
        }
        guard !scopes.isEmpty || !values.isEmpty else { return nil }
        return RowScoping(
            explicit: scopes, tableName: tableName, tableColumns: tableColumns, trailing: (keys: 0, scoped: width),
            prefetched: values, trailingEnd: end)
    }

    /// The scoping of values nested in a scope: always the automatic rule (given scopes name the
    /// properties of the type decoded from the row itself).
    var automatic: RowScoping { automaticScoping ?? self }

    /// Whether `other` splits rows the same way.
    func sameScopes(as other: RowScoping?) -> Bool {
        guard let other, prefetched.isEmpty, other.prefetched.isEmpty else { return false }
        return explicit == other.explicit && trailing?.keys == other.trailing?.keys
            && trailing?.scoped == other.trailing?.scoped
    }
}

/// The values of one nested property of a request's rows fetched before the rows themselves (the
/// records of a to-many association, grouped by key): the decoder asks for the current row's.
protocol PrefetchedValues: AnyObject {
    /// The value for the current row of `statement`, as a `T`; nil when the values are no `T`.
    func value<T>(_ type: T.Type, row statement: OpaquePointer) throws -> T?
}
