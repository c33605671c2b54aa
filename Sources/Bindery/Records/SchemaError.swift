import Foundation

/// Errors in creating or growing a table from a record type.
public enum SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The columns of the type could not be read from its `Decodable` conformance; the reason says
    /// why and how to declare the table instead.
    case unreadableType(String, reason: String)
    /// A column the type needs cannot be added to an existing table: it is not optional and has no
    /// default, so the existing rows would have no value for it.
    case cannotAddColumn(table: String, column: String, reason: String)

    /// A sentence naming the type or table and the reason.
    public var description: String {
        switch self {
        case .unreadableType(let type, let reason):
            return "cannot read the columns of \(type): \(reason)"
        case .cannotAddColumn(let table, let column, let reason):
            return "cannot add column \"\(column)\" to \"\(table)\": \(reason)"
        }
    }
}

extension SchemaError: LocalizedError {
    /// The `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
