import Foundation

/// An association that cannot be joined or included, or whose rows do not match their keys: each case
/// names the tables or the association at fault, and nothing is decoded.
public enum AssociationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No foreign key of `from` refers to `to`, and the association gives no ``ForeignKey``.
    case noForeignKey(from: String, to: String)
    /// Several foreign keys of `from` refer to `to` (`count` of them), and the association gives no
    /// ``ForeignKey`` to say which.
    case ambiguousForeignKey(from: String, to: String, count: Int)
    /// The key of association `association` has `columns` columns on one side and `referenced` on
    /// the other.
    case keyMismatch(association: String, columns: [String], referenced: [String])
    /// A row fetched for the to-many association `association` could not be given to a parent:
    /// `value` says what SQLite reported for the parent key it matched (in `column`), `expected` what
    /// was looked for. Rows are grouped by the key SQLite matched (by the key column's collation and
    /// affinity), so this is not a difference of type or case between the keys: it is never expected.
    case keyTypeMismatch(association: String, column: String, value: String, expected: String)
    /// The to-many association `association` needs `parameters` parameters in one statement (its
    /// conditions' values and one key), more than the connection's `SQLITE_LIMIT_VARIABLE_NUMBER`
    /// (`limit`).
    case tooManyParameters(association: String, parameters: Int, limit: Int)
    /// The request names the association `association` twice (twice the same key): give one of them
    /// another key with `forKey(_:)`.
    case duplicateKey(association: String)
    /// Two associations of the request, at `first` and `second` (their paths of keys, `book.author`),
    /// join their tables under the same alias `alias`: give one another alias with `aliased(_:)`.
    case duplicateAlias(alias: String, first: String, second: String)
    /// The association `association` goes through an association it cannot go through: `reason` says
    /// why (one that goes through another, or that includes or joins others).
    case invalidThrough(association: String, reason: String)
    /// The association at `association` was given conditions, orderings or a selection naming its table
    /// as `alias`, then another alias, `newAlias` (by ``ToOneAssociation/aliased(_:)`` or `forKey(_:)`):
    /// rename it first, so that its `column(_:)` names the new alias.
    case aliasChanged(association: String, alias: String, newAlias: String)
    /// The request aggregates its rows (by `group`, `having` or an aggregate in its selection) and
    /// joins the to-many association `association`: a row of its table then stands several times in
    /// a group, and the annotation `annotation` cannot be aggregated over the group exactly. Annotate
    /// a request without that join (filter with an `EXISTS` subquery instead), or write the SQL.
    case annotationOfGroupedJoin(annotation: String, association: String)
    /// A parent row of the to-many association `association` holds, in its key column `column`, TEXT
    /// that is not valid UTF-8: no `String` holds those bytes, and matching the children by a repaired
    /// key (U+FFFD in place of the invalid bytes) would give a parent other rows' children, or none.
    /// Store such keys as BLOBs, or fix the text.
    case invalidKeyText(association: String, column: String)

    /// A sentence naming the tables or the association at fault.
    public var description: String {
        switch self {
        case .noForeignKey(let from, let to):
            return "no foreign key of \"\(from)\" refers to \"\(to)\": declare one (REFERENCES), or give the"
                + " association a ForeignKey"
        case .ambiguousForeignKey(let from, let to, let count):
            return "\(count) foreign keys of \"\(from)\" refer to \"\(to)\": give the association a ForeignKey"
                + " to say which"
        case .keyMismatch(let association, let columns, let referenced):
            return "the key of the association \"\(association)\" has \(columns.count) column(s) (\(columns))"
                + " but refers to \(referenced.count) (\(referenced))"
        case .keyTypeMismatch(let association, let column, let value, let expected):
            return "the association \"\(association)\" fetched a row for its parents' key (\"\(column)\") but"
                + " SQLite reported \(value) where \(expected) was expected: the row could not be grouped"
        case .tooManyParameters(let association, let parameters, let limit):
            return "the association \"\(association)\" needs \(parameters) parameters in one statement, more"
                + " than this connection's limit of \(limit) (SQLITE_LIMIT_VARIABLE_NUMBER)"
        case .duplicateKey(let association):
            return "the request includes \"\(association)\" twice: give one another key with forKey(_:)"
        case .duplicateAlias(let alias, let first, let second):
            return "the request joins \"\(first)\" and \"\(second)\" both as \"\(alias)\": give one another alias with"
                + " aliased(_:)"
        case .invalidThrough(let association, let reason):
            return "the association \"\(association)\" \(reason)"
        case .aliasChanged(let association, let alias, let newAlias):
            return "the association \"\(association)\" has conditions, orderings or a selection naming its table as"
                + " \"\(alias)\", but was then renamed \"\(newAlias)\": call aliased(_:) or forKey(_:) before filter,"
                + " order and select"
        case .annotationOfGroupedJoin(let annotation, let association):
            return "the request groups its rows and joins the to-many association \"\(association)\", so a row"
                + " can stand several times in one group and \"\(annotation)\" cannot be aggregated over the group"
                + " exactly: annotate a request without that join (filter with an EXISTS subquery instead)"
        case .invalidKeyText(let association, let column):
            return "a parent row of the association \"\(association)\" holds TEXT that is not valid UTF-8 in its key"
                + " column \"\(column)\": its children cannot be matched to it by that key (store such keys as BLOBs)"
        }
    }
}

extension AssociationError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
