/// A count or aggregate of a to-many association's rows, selected into a property of each row by
/// ``QueryRequest/annotated(with:)``, or combined with numbers and other aggregates of the same
/// record type into another aggregate (`Author.books.count * 2`, `Author.books.sum("pages").ifNull(0)`)
/// or a condition (`Author.books.count >= 3`) for ``QueryRequest/filter(_:)-(AggregateCondition<Base>)``
/// and ``QueryRequest/having(_:)-(AggregateCondition<Base>)``.
///
/// ```swift
/// let authors = Author.all()
///     .annotated(with: (Author.books.count + Author.reviews.count).forKey("activity"))
///     .having(Author.books.count >= 3)
/// ```
///
/// Each association's aggregate is computed over that association's rows alone, by a subquery of its
/// own (in a request that groups its rows, over the associated rows of all the group's rows), so that
/// two associations in one aggregate never multiply each other's rows. Numbers are bound as
/// parameters; the operators are SQLite's, so `/` of two integers is an integer division, as in SQL.
public struct AssociationAggregate<Origin: Record>: Sendable {
    /// What it computes.
    let formula: AggregateFormula
    /// The name of the property (the column alias) it goes into: `bookCount`, `bookPagesSum`. An
    /// aggregate made by arithmetic has none (an empty key) until ``forKey(_:)`` gives it one;
    /// ``ifNull(_:)-(Int)`` keeps the key of the aggregate it completes.
    public let key: String

    /// The same aggregate into the property `key`.
    public func forKey(_ key: String) -> Self {
        Self(formula: formula, key: key)
    }
}
