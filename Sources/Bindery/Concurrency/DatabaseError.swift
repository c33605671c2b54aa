import Foundation

/// An error of a ``Database`` itself, as opposed to one reported by SQLite (``SQLiteError``).
///
/// ```swift
/// try await db.close()
/// do {
///     _ = try await db.count(Student.self)
/// } catch DatabaseError.closed {
///     print("the database was closed")
/// }
/// ```
public enum DatabaseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database was closed by ``Database/close()``; it cannot be used any more.
    case closed

    /// A sentence describing the error.
    public var description: String {
        switch self {
        case .closed:
            return "the database is closed: it cannot be used after Database.close()"
        }
    }
}

extension DatabaseError: LocalizedError {
    /// The `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
