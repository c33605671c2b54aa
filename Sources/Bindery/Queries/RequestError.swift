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
    /// `operation` (`deleteAll` or `updateAll`) was given a request that aggregates its rows (`group`,
    /// a `having` of ``SQL``, or an aggregate in its selection or in an annotation's expression): each
    /// row it gives stands for a group of rows of the table, so it names no rows to delete or update
    /// (SQLite would pick one arbitrary row of each group). Filter the rows of the table instead, for
    /// example with `filter("country IN (SELECT country FROM author GROUP BY country HAVING count(*) > \(1))")`.
    case groupedRowsNotWritable(operation: String)
    /// `operation` (`deleteAll` or `updateAll`) was given a request for the distinct values of a
    /// selection (`select(…)` with `distinct()`) that a `limit` or an `offset` cuts: each value it gives
    /// may stand for several rows of the table, and the cut leaves it open whether every row of the
    /// values given was meant, or one row of each. Filter the rows by those values instead.
    case distinctValuesNotWritable(operation: String)

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
        case .groupedRowsNotWritable(let operation):
            return "\(operation) cannot write the rows of a request that groups them (group, having, or an aggregate"
                + " in its selection): each row it gives stands for a group of rows; filter the rows to write instead"
        case .distinctValuesNotWritable(let operation):
            return "\(operation) cannot write the rows of distinct selected values cut by a limit or an offset: each"
                + " value may stand for several rows; filter the rows holding those values instead"
        }
    }
}

extension RequestError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
