/// Arithmetic on aggregates: new aggregates, computed by SQLite from the aggregates of each row.
extension AssociationAggregate {
    /// The aggregate, or `value` where it is NULL (a sum of no rows): SQLite's `ifnull`. Keeps the key.
    ///
    /// ```swift
    /// Author.all().annotated(with: Author.books.sum("pages").ifNull(0))   // bookPagesSum, 0 for none
    /// ```
    public func ifNull(_ value: Int) -> Self {
        Self(formula: .ifNull(formula, .value(Int64(value))), key: key)
    }

    /// The aggregate, or `value` where it is NULL. Keeps the key.
    public func ifNull(_ value: Double) -> Self {
        Self(formula: .ifNull(formula, .value(value)), key: key)
    }

    /// The aggregate, or `other` where it is NULL. Keeps the key.
    public func ifNull(_ other: Self) -> Self {
        Self(formula: .ifNull(formula, other.formula), key: key)
    }

    /// The aggregate negated; it has no key (see ``forKey(_:)``).
    public static prefix func - (operand: Self) -> Self {
        Self(formula: .prefix("-", operand.formula), key: "")
    }

    /// The sum of two aggregates; it has no key (see ``forKey(_:)``).
    public static func + (lhs: Self, rhs: Self) -> Self {
        Self(formula: .infix("+", lhs.formula, rhs.formula), key: "")
    }

    /// The sum of the aggregate and a number, bound as a parameter; it has no key.
    public static func + (lhs: Self, rhs: Int) -> Self {
        Self(formula: .infix("+", lhs.formula, .value(Int64(rhs))), key: "")
    }

    /// The sum of the aggregate and a number, bound as a parameter; it has no key.
    public static func + (lhs: Self, rhs: Double) -> Self {
        Self(formula: .infix("+", lhs.formula, .value(rhs)), key: "")
    }

    /// The difference of two aggregates; it has no key (see ``forKey(_:)``).
    public static func - (lhs: Self, rhs: Self) -> Self {
        Self(formula: .infix("-", lhs.formula, rhs.formula), key: "")
    }

    /// The difference of the aggregate and a number, bound as a parameter; it has no key.
    public static func - (lhs: Self, rhs: Int) -> Self {
        Self(formula: .infix("-", lhs.formula, .value(Int64(rhs))), key: "")
    }

    /// The difference of the aggregate and a number, bound as a parameter; it has no key.
    public static func - (lhs: Self, rhs: Double) -> Self {
        Self(formula: .infix("-", lhs.formula, .value(rhs)), key: "")
    }

    /// The product of two aggregates; it has no key (see ``forKey(_:)``).
    public static func * (lhs: Self, rhs: Self) -> Self {
        Self(formula: .infix("*", lhs.formula, rhs.formula), key: "")
    }

    /// The product of the aggregate and a number, bound as a parameter; it has no key.
    public static func * (lhs: Self, rhs: Int) -> Self {
        Self(formula: .infix("*", lhs.formula, .value(Int64(rhs))), key: "")
    }

    /// The product of the aggregate and a number, bound as a parameter; it has no key.
    public static func * (lhs: Self, rhs: Double) -> Self {
        Self(formula: .infix("*", lhs.formula, .value(rhs)), key: "")
    }

    /// The quotient (an integer division when both are integers, as in SQL) of two aggregates; it has no key (see ``forKey(_:)``).
    public static func / (lhs: Self, rhs: Self) -> Self {
        Self(formula: .infix("/", lhs.formula, rhs.formula), key: "")
    }

    /// The quotient (an integer division when both are integers, as in SQL) of the aggregate and a number, bound as a parameter; it has no key.
    public static func / (lhs: Self, rhs: Int) -> Self {
        Self(formula: .infix("/", lhs.formula, .value(Int64(rhs))), key: "")
    }

    /// The quotient (an integer division when both are integers, as in SQL) of the aggregate and a number, bound as a parameter; it has no key.
    public static func / (lhs: Self, rhs: Double) -> Self {
        Self(formula: .infix("/", lhs.formula, .value(rhs)), key: "")
    }
}
