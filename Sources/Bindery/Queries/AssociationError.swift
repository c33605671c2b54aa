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
    /// A row fetched for the to-many association `association` has the key `value` in `column`, which
    /// the IN of its query matched but which equals no key of the rows it belongs to (SQLite compared
    /// them after converting one, as a TEXT key column against INTEGER keys): declare the columns
    /// with the same type.
    case keyTypeMismatch(association: String, column: String, value: String, expected: String)
    /// The request names the association `association` twice (twice the same key): give one of them
    /// another key with `forKey(_:)`.
    case duplicateKey(association: String)

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
            return "the association \"\(association)\" fetched a row whose \"\(column)\" is \(value), which"
                + " matches no key of its parents (\(expected)): the key columns have different types"
        case .duplicateKey(let association):
            return "the request includes \"\(association)\" twice: give one another key with forKey(_:)"
        }
    }
}

extension AssociationError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
