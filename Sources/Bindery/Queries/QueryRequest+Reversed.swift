/// Reversing a request's ordering.
extension QueryRequest {
    /// The request with its ordering reversed when it runs: each term of its orderings, those of its
    /// included or joined to-one associations after them, goes the other way (`ASC` ↔ `DESC`, and
    /// `NULLS FIRST` ↔ `NULLS LAST`; a term without a direction, ascending, becomes `DESC`). Without
    /// any ordering, the rows are sorted by the primary key, descending. Reversing twice gives the
    /// request back; ``order(_:)-(SQL)`` replaces the ordering and its reversal, ``thenOrder(_:)`` adds a
    /// term that is reversed with the others. Limit and offset apply to the reversed order.
    /// A request without any ordering whose rows are groups (`group`, `having`, an aggregate selected)
    /// or distinct values of a selection, which the primary key does not sort, throws
    /// ``RequestError/irreversibleOrdering(ordering:reason:)`` with an empty ordering.
    ///
    /// ```swift
    /// let latest = try conn.fetchAll(Order.all().order("OrderDate, OrderID").reversed().limit(10))
    /// // … ORDER BY OrderDate DESC, OrderID DESC LIMIT 10
    /// ```
    ///
    /// An ordering written as ``SQL`` is reversed term by term, its values bound as before. One that
    /// cannot be read term by term (it holds a comment, or unbalanced parentheses) throws
    /// ``RequestError/irreversibleOrdering(ordering:reason:)`` when the request runs, naming it.
    public func reversed() -> QueryRequest {
        var request = self
        request.isReversed.toggle()
        return request
    }
}
