import Foundation

/// A joined row that does not split into the nested values a type asks for: each case names the
/// property (the scope) at fault, and nothing is decoded.
public enum RowScopeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The row has no column for the nested property `property` of type `type`: no column of that
    /// name, and (automatic rule) no column from its table `table`.
    case missingColumns(property: String, type: String, table: String?)
    /// The non-optional nested property `property` of type `type` found every one of its columns NULL
    /// (a LEFT JOIN that matched no row): make the property optional, or join with an inner JOIN.
    case allNull(property: String, type: String)
    /// The automatic rule cannot tell which columns of `table` the property `property` reads: the
    /// table's columns appear in several places or twice in a run (a self-join), or `other` already
    /// reads them. Pass scopes with the query.
    case ambiguousTable(property: String, table: String, other: String?)
    /// The scope of `property` wants `wanted` more columns, but only `available` remain in the row.
    case scopeOverrunsRow(property: String, wanted: Int, available: Int)
    /// The scopes given with the query end before the row does: `columns` are the columns left over.
    case columnsLeftOver(columns: [String])
    /// The scope of `property`, of the table `table`, meets column `position` named `found`, which is
    /// not the column of `table` expected there (`expected`), or does not come from `table`.
    case tableMismatch(property: String, table: String, position: Int, found: String, expected: String)
    /// The scope of `property` names `table`, which has no column (no such table or view).
    case unknownTable(property: String, table: String)
    /// A scope given with the query is empty or names a property another scope names too, or the
    /// columns named with a property's prefix (`manager.FirstName`) are not side by side.
    case invalidScope(property: String, reason: String)
    /// The nested property `property` of type `type` does not decode by column name (a keyed
    /// container), so it cannot read a part of the row.
    case notKeyed(property: String, type: String)

    /// A sentence naming the property (and table or columns) at fault.
    public var description: String {
        switch self {
        case .missingColumns(let property, let type, let table):
            let from = table.map { " and no column comes from table \"\($0)\"" } ?? ""
            // The last key of a path (`book.writer`): the property's own name.
            let name = property.split(separator: ".").last.map(String.init) ?? property
            return
                "no columns for the nested value \"\(property)\" (\(type)): no column is called \"\(name)\"\(from);"
                + " select its columns, pass scopes with the query, or include an association with that key"
        case .allNull(let property, let type):
            return "the nested value \"\(property)\" (\(type)) is not optional, but all its columns are NULL"
                + " (a LEFT JOIN without a match?); declare it optional"
        case .ambiguousTable(let property, let table, let other):
            let why =
                other.map { "\"\($0)\" reads the same columns" }
                ?? "the columns of \"\(table)\" appear more than once in the row"
            return "cannot tell which columns of \"\(table)\" the nested value \"\(property)\" reads: \(why);"
                + " pass scopes with the query (RowScope.table or RowScope.columns)"
        case .scopeOverrunsRow(let property, let wanted, let available):
            return "the scope \"\(property)\" takes \(wanted) column\(wanted == 1 ? "" : "s"), but only \(available)"
                + " remain in the row"
        case .columnsLeftOver(let columns):
            return "the scopes end before the row does: \(columns.count) column\(columns.count == 1 ? "" : "s")"
                + " left over (\(columns.map { "\"\($0)\"" }.joined(separator: ", ")))"
        case .tableMismatch(let property, let table, let position, let found, let expected):
            return "the scope \"\(property)\" reads the columns of \"\(table)\", but column \(position) is \"\(found)\""
                + " where \"\(expected)\" of \"\(table)\" was expected"
        case .unknownTable(let property, let table):
            return "the scope \"\(property)\" names \"\(table)\", which is no table or view with columns"
        case .invalidScope(let property, let reason):
            return "the scope \"\(property)\" \(reason)"
        case .notKeyed(let property, let type):
            return "the nested value \"\(property)\" (\(type)) does not decode by column name, so it cannot read"
                + " part of a joined row"
        }
    }
}

extension RowScopeError {
    /// The same error raised inside the nested value `key`: its property named by its path from the
    /// row's value (`book.author`), as a chain of associations reaches it.
    func nested(in key: String) -> RowScopeError {
        switch self {
        case .missingColumns(let property, let type, let table):
            return .missingColumns(property: key + "." + property, type: type, table: table)
        case .allNull(let property, let type):
            return .allNull(property: key + "." + property, type: type)
        case .ambiguousTable(let property, let table, let other):
            return .ambiguousTable(property: key + "." + property, table: table, other: other.map { key + "." + $0 })
        case .scopeOverrunsRow(let property, let wanted, let available):
            return .scopeOverrunsRow(property: key + "." + property, wanted: wanted, available: available)
        case .columnsLeftOver:
            return self
        case .tableMismatch(let property, let table, let position, let found, let expected):
            return .tableMismatch(
                property: key + "." + property, table: table, position: position, found: found, expected: expected)
        case .unknownTable(let property, let table):
            return .unknownTable(property: key + "." + property, table: table)
        case .invalidScope(let property, let reason):
            return .invalidScope(property: key + "." + property, reason: reason)
        case .notKeyed(let property, let type):
            return .notKeyed(property: key + "." + property, type: type)
        }
    }
}

extension RowScopeError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
