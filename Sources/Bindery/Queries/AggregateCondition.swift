/// A condition on aggregates of the associations of `Origin`, made by comparing an
/// ``AssociationAggregate`` (`Author.books.count >= 3`), for ``QueryRequest/filter(_:)-(AggregateCondition<Base>)``
/// and ``QueryRequest/having(_:)-(AggregateCondition<Base>)``. Conditions combine with `&&`, `||`
/// and `!`, as SQL's `AND`, `OR` and `NOT`.
///
/// ```swift
/// let prolific = Author.having(Author.books.count >= 3 && Author.books.sum("pages").ifNull(0) > 1000)
/// ```
public struct AggregateCondition<Origin: Record>: Sendable {
    /// What it tests.
    let formula: AggregateFormula

    /// Both conditions (SQL's `AND`).
    public static func && (lhs: Self, rhs: Self) -> Self {
        Self(formula: .infix("AND", lhs.formula, rhs.formula))
    }

    /// Either condition (SQL's `OR`).
    public static func || (lhs: Self, rhs: Self) -> Self {
        Self(formula: .infix("OR", lhs.formula, rhs.formula))
    }

    /// The opposite condition (SQL's `NOT`: still false where the comparison is NULL).
    public static prefix func ! (operand: Self) -> Self {
        Self(formula: .prefix("NOT", operand.formula))
    }
}
