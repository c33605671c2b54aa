/// One to-many association's aggregate over the associated rows of a row (`count(*)`,
/// `sum("books"."pages")`): in a request, a correlated subquery of its own.
struct AggregateTerm: Sendable {
    var descriptor: AssociationDescriptor
    /// The SQL of the aggregate (`count(*)`, `sum("orders"."Freight")`).
    var expression: String
    /// What it computes, for a request that groups rows.
    var function: AggregateFunction
    /// The associated table's column it aggregates; nil for `count(*)`.
    var column: String?
}

/// What an ``AssociationAggregate`` or an ``AggregateCondition`` computes: aggregates of associations
/// combined by SQL operators, with numbers that are bound as parameters.
indirect enum AggregateFormula: Sendable {
    /// One association's aggregate.
    case term(AggregateTerm)
    /// A number, bound as a parameter (an `Int64` or a `Double`).
    case value(any Encodable & Sendable)
    /// `ifnull(first, second)`.
    case ifNull(AggregateFormula, AggregateFormula)
    /// `(operator operand)`: `-` or `NOT`.
    case prefix(String, AggregateFormula)
    /// `(left operator right)`: arithmetic, comparison, `AND`, `OR`.
    case infix(String, AggregateFormula, AggregateFormula)

    /// The aggregates of associations it uses, in the order of the SQL.
    var terms: [AggregateTerm] {
        switch self {
        case .term(let term): [term]
        case .value: []
        case .ifNull(let first, let second): first.terms + second.terms
        case .prefix(_, let operand): operand.terms
        case .infix(_, let left, let right): left.terms + right.terms
        }
    }

    /// The SQL, each association's aggregate as `term` gives it.
    func sql(_ term: (AggregateTerm) throws -> SQL) throws -> SQL {
        switch self {
        case .term(let aggregate):
            return try term(aggregate)
        case .value(let value):
            return SQL(text: "?", values: [value])
        case .ifNull(let first, let second):
            return SQL(text: "ifnull(") + (try first.sql(term)) + ", " + (try second.sql(term)) + ")"
        case .prefix(let op, let operand):
            return SQL(text: "(" + op + " ") + (try operand.sql(term)) + ")"
        case .infix(let op, let left, let right):
            return SQL(text: "(") + (try left.sql(term)) + SQL(text: " " + op + " ") + (try right.sql(term)) + ")"
        }
    }

    /// The formula as SQL with each association's aggregate written as its expression on the
    /// association's alias, for messages: `("books"."pages" ...)`.
    var summary: String {
        let sql = try? self.sql { SQL(text: $0.expression + " of " + $0.descriptor.alias) }
        return sql?.text ?? "<aggregate>"
    }
}
