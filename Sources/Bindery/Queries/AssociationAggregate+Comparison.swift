/// Comparisons of aggregates: conditions for ``QueryRequest/filter(_:)-(AggregateCondition<Base>)``
/// and ``QueryRequest/having(_:)-(AggregateCondition<Base>)``.
extension AssociationAggregate {
    /// Whether the aggregate is equal to the other (`=` in SQL; false where either is NULL).
    public static func == (lhs: Self, rhs: Self) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("=", lhs.formula, rhs.formula))
    }

    /// Whether the aggregate is equal to a number, bound as a parameter.
    public static func == (lhs: Self, rhs: Int) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("=", lhs.formula, .value(Int64(rhs))))
    }

    /// Whether the aggregate is equal to a number, bound as a parameter.
    public static func == (lhs: Self, rhs: Double) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("=", lhs.formula, .value(rhs)))
    }

    /// Whether the aggregate is not equal to the other (`<>` in SQL; false where either is NULL).
    public static func != (lhs: Self, rhs: Self) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("<>", lhs.formula, rhs.formula))
    }

    /// Whether the aggregate is not equal to a number, bound as a parameter.
    public static func != (lhs: Self, rhs: Int) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("<>", lhs.formula, .value(Int64(rhs))))
    }

    /// Whether the aggregate is not equal to a number, bound as a parameter.
    public static func != (lhs: Self, rhs: Double) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("<>", lhs.formula, .value(rhs)))
    }

    /// Whether the aggregate is less than the other (`<` in SQL; false where either is NULL).
    public static func < (lhs: Self, rhs: Self) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("<", lhs.formula, rhs.formula))
    }

    /// Whether the aggregate is less than a number, bound as a parameter.
    public static func < (lhs: Self, rhs: Int) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("<", lhs.formula, .value(Int64(rhs))))
    }

    /// Whether the aggregate is less than a number, bound as a parameter.
    public static func < (lhs: Self, rhs: Double) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("<", lhs.formula, .value(rhs)))
    }

    /// Whether the aggregate is less than or equal to the other (`<=` in SQL; false where either is NULL).
    public static func <= (lhs: Self, rhs: Self) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("<=", lhs.formula, rhs.formula))
    }

    /// Whether the aggregate is less than or equal to a number, bound as a parameter.
    public static func <= (lhs: Self, rhs: Int) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("<=", lhs.formula, .value(Int64(rhs))))
    }

    /// Whether the aggregate is less than or equal to a number, bound as a parameter.
    public static func <= (lhs: Self, rhs: Double) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix("<=", lhs.formula, .value(rhs)))
    }

    /// Whether the aggregate is greater than the other (`>` in SQL; false where either is NULL).
    public static func > (lhs: Self, rhs: Self) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix(">", lhs.formula, rhs.formula))
    }

    /// Whether the aggregate is greater than a number, bound as a parameter.
    public static func > (lhs: Self, rhs: Int) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix(">", lhs.formula, .value(Int64(rhs))))
    }

    /// Whether the aggregate is greater than a number, bound as a parameter.
    public static func > (lhs: Self, rhs: Double) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix(">", lhs.formula, .value(rhs)))
    }

    /// Whether the aggregate is greater than or equal to the other (`>=` in SQL; false where either is NULL).
    public static func >= (lhs: Self, rhs: Self) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix(">=", lhs.formula, rhs.formula))
    }

    /// Whether the aggregate is greater than or equal to a number, bound as a parameter.
    public static func >= (lhs: Self, rhs: Int) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix(">=", lhs.formula, .value(Int64(rhs))))
    }

    /// Whether the aggregate is greater than or equal to a number, bound as a parameter.
    public static func >= (lhs: Self, rhs: Double) -> AggregateCondition<Origin> {
        AggregateCondition(formula: .infix(">=", lhs.formula, .value(rhs)))
    }
}
