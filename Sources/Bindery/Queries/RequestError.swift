import Foundation

/// A request that cannot run as written: each case names the ordering, the annotation or the column
/// at fault, and the request runs no SQL.
public enum RequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// ``QueryRequest/reversed()`` met the ordering `ordering` (its SQL text), which it cannot
    /// reverse term by term: `reason` says why (a comment, unbalanced parentheses, an empty term).
    /// Give the ordering in the order wanted instead (`order(_:)` with `ASC` or `DESC`). `ordering`
    /// is empty for a request without any ordering whose rows the primary key does not sort (groups,
    /// or distinct values of a selection).
    case irreversibleOrdering(ordering: String, reason: String)
    /// An annotation has no key to name its column: an aggregate made by arithmetic
    /// (`Author.books.count + Author.reviews.count`) has none until ``AssociationAggregate/forKey(_:)``
    /// gives it one. `annotation` is its SQL, as far as it is known.
    case annotationWithoutKey(annotation: String)
    /// Two annotations of the request, or an annotation and a column of the request's table, have the
    /// same name `key` (compared as SQLite compares names, ignoring ASCII case): a struct would decode
    /// one of them into the other's property. `other` says what the other one is (`the column
    /// "title" of "books"`, `another annotation`).
    case annotationKeyClash(key: String, other: String)

    /// A sentence naming the ordering or the annotation at fault.
    public var description: String {
        switch self {
        case .irreversibleOrdering(let ordering, let reason) where ordering.isEmpty:
            return "reversed() has no ordering to reverse: \(reason); give an ordering (ASC or DESC) instead"
        case .irreversibleOrdering(let ordering, let reason):
            return "reversed() cannot reverse the ordering \(ordering): \(reason); give it in the order wanted"
                + " (ASC or DESC) instead"
        case .annotationWithoutKey(let annotation):
            return "the annotation \(annotation) has no key to name its column: give it one with forKey(_:)"
        case .annotationKeyClash(let key, let other):
            return "the annotation \"\(key)\" has the name of \(other): give it another key"
        }
    }
}

extension RequestError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
