/// An association from each row of `Origin` to any number of rows of `Destination`, declared with
/// ``Record/hasMany(_:key:using:)`` or ``Record/hasMany(_:through:key:originKey:destinationKey:)``.
/// A request includes it by one more query for all its rows (never one per row), grouped by key
/// into an array property; or counts or aggregates its rows into a property.
///
/// ```swift
/// struct CustomerInfo: Decodable, Sendable {
///     var customer: Customer
///     var orders: [Order]            // the association's key
/// }
/// let infos = try conn.fetchAll(CustomerInfo.self, Customer.all().including(all: Customer.orders))
/// ```
public struct ToManyAssociation<Origin: Record, Destination: Record>: Sendable, AssociationSteps {
    let descriptor: AssociationDescriptor

    /// The property the associated records decode into, and their table's alias in a request.
    public var key: String { descriptor.key }

    /// The same association under another key: another property, another alias.
    public func forKey(_ key: String) -> Self {
        with { $0.key = key }
    }

    /// The same association under another table alias, which its ``column(_:)-(String)`` qualifies
    /// columns with (see ``ToOneAssociation/aliased(_:)``).
    public func aliased(_ alias: String) -> Self {
        with { $0.tableAlias = alias }
    }

    /// The same association, each associated record with the record `association` associates to it, by
    /// an INNER JOIN in the association's own query: associated rows without one are left out. Decode
    /// the array's elements as a struct with a property for the associated record and one named after
    /// `association`'s key:
    ///
    /// ```swift
    /// struct BookInfo: Decodable, Sendable { var book: Book; var publisher: Publisher }
    /// struct AuthorInfo: Decodable, Sendable { var author: Author; var books: [BookInfo] }
    /// let authors = try conn.fetchAll(
    ///     AuthorInfo.self, Author.including(all: Author.books.including(required: Book.publisher)))
    /// ```
    ///
    /// The request still runs two queries: its own, and one for all the books with their publishers.
    public func including<Next>(required association: ToOneAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .includeRequired)
    }

    /// The same association, each associated record with the record `association` associates to it, by
    /// a LEFT JOIN: a nil when it has none.
    public func including<Next>(optional association: ToOneAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .includeOptional)
    }

    /// The same association, joined to `association`'s table by an INNER JOIN without selecting its
    /// columns, to filter or order the associated rows by them.
    public func joining<Next>(required association: ToOneAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .joinRequired)
    }

    /// The same association, joined to `association`'s table by a LEFT JOIN without selecting its
    /// columns.
    public func joining<Next>(optional association: ToOneAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .joinOptional)
    }

    /// The same association, joined to the to-many `association`'s table by an INNER JOIN in the
    /// association's own query, without selecting its columns, to filter its records by them: an
    /// associated record appears in its array once per row of `association` that matches, as a
    /// request's row does with ``QueryRequest/joining(required:)-(ToManyAssociation<Base,Destination>)``.
    /// To keep each record once, filter with an `EXISTS` subquery instead.
    public func joining<Next>(required association: ToManyAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .joinRequired)
    }

    /// The same association, joined to the to-many `association`'s table by a LEFT JOIN in its own
    /// query, without selecting its columns.
    public func joining<Next>(optional association: ToManyAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .joinOptional)
    }

    /// The same association, each associated record with all the records `association` associates to
    /// it, into an array property named after its key: one more query for all of them, whatever the
    /// number of rows, as for the request's own to-many associations.
    ///
    /// ```swift
    /// struct BookInfo: Decodable, Sendable { var book: Book; var reviews: [Review] }
    /// struct AuthorInfo: Decodable, Sendable { var author: Author; var books: [BookInfo] }
    /// let authors = try conn.fetchAll(AuthorInfo.self, Author.including(all: Author.books.including(all: Book.reviews)))
    /// ```
    public func including<Next>(all association: ToManyAssociation<Destination, Next>) -> Self {
        addingAll(association)
    }

    /// The same association, selecting only `selection` of its table (name its columns with
    /// `column(_:)`), which its arrays' elements decode from.
    public func select(_ selection: SQL) -> Self {
        writing { $0.selection = selection }
    }

    /// The same association, with only the associated rows matching `condition` (name their columns
    /// with `column(_:)`): in the arrays, the counts and aggregates, and the joins.
    public func filter(_ condition: SQL) -> Self {
        writing { $0.conditions.append(condition) }
    }

    /// The same association, its arrays sorted by `ordering` (`"\(Customer.orders.column("OrderDate"))"`),
    /// replacing any ordering it had, as ``QueryRequest/order(_:)-(SQL)`` does: an association declared
    /// with `.order("position")` and used as `.order("name")` sorts by name alone. Use
    /// ``thenOrder(_:)`` to sort by more columns after those given.
    ///
    /// ```swift
    /// extension Team { static let players = hasMany(Player.self).order("position") }
    /// Team.including(all: Team.players.order("name"))                  // by name
    /// Team.including(all: Team.players.thenOrder("name"))              // by position, then name
    /// ```
    public func order(_ ordering: SQL) -> Self {
        with { $0.orderings = [ordering] }
    }

    /// The same association, its arrays sorted by `ordering` after the orderings it already has
    /// (`.order(a).thenOrder(b)` sorts by `a`, then `b`).
    public func thenOrder(_ ordering: SQL) -> Self {
        with { $0.orderings.append(ordering) }
    }

    /// A column of the associated table, qualified by the association's alias: `"orders"."Freight"`.
    public func column(_ name: String) -> Column {
        Column(name, table: descriptor.aliasName)
    }

    /// The column a coding key of the destination names, qualified by the association's alias.
    public func column(_ codingKey: some CodingKey) -> Column {
        Column(codingKey, table: descriptor.aliasName)
    }

    /// The number of associated rows, into a property named after the destination type: `orderCount`
    /// for `Order` (rename it with ``AssociationAggregate/forKey(_:)``).
    ///
    /// ```swift
    /// struct CustomerCount: Decodable { var customer: Customer; var orderCount: Int }
    /// let counts = try conn.fetchAll(CustomerCount.self, Customer.all().annotated(with: Customer.orders.count))
    /// ```
    public var count: AssociationAggregate<Origin> {
        aggregate(.count, suffix: "Count", column: nil)
    }

    /// The sum of a column of the associated rows (NULL, so nil, when there are none), into a property
    /// such as `orderFreightSum`.
    public func sum(_ column: String) -> AssociationAggregate<Origin> {
        aggregate(.sum, suffix: "Sum", column: column)
    }

    /// The sum of a column of the associated rows as a REAL, 0.0 when there are none (SQLite's `total`),
    /// into a property such as `orderFreightTotal`: never nil, and never an integer overflow.
    public func total(_ column: String) -> AssociationAggregate<Origin> {
        aggregate(.total, suffix: "Total", column: column)
    }

    /// The average of a column of the associated rows, into a property such as `orderFreightAverage`.
    public func average(_ column: String) -> AssociationAggregate<Origin> {
        aggregate(.average, suffix: "Average", column: column)
    }

    /// The smallest value of a column of the associated rows, into a property such as `orderFreightMin`.
    public func min(_ column: String) -> AssociationAggregate<Origin> {
        aggregate(.min, suffix: "Min", column: column)
    }

    /// The largest value of a column of the associated rows, into a property such as `orderFreightMax`.
    public func max(_ column: String) -> AssociationAggregate<Origin> {
        aggregate(.max, suffix: "Max", column: column)
    }

    private func aggregate(_ function: AggregateFunction, suffix: String, column: String?)
        -> AssociationAggregate<Origin>
    {
        let base = AssociationDescriptor.singularKey(Destination.self)
        guard let column else {
            let term = AggregateTerm(descriptor: descriptor, expression: "count(*)", function: function, column: nil)
            return AssociationAggregate(formula: .term(term), key: base + suffix)
        }
        let capitalized = (column.first.map { $0.uppercased() } ?? "") + column.dropFirst()
        let term = AggregateTerm(
            descriptor: descriptor,
            expression: function.sqlName + "(" + descriptor.alias + "." + SQL.quote(identifier: column) + ")",
            function: function, column: column)
        return AssociationAggregate(formula: .term(term), key: base + capitalized + suffix)
    }
}

/// The function of an ``AssociationAggregate``.
enum AggregateFunction: Sendable {
    case count, sum, total, average, min, max

    /// The SQL function for one row's associated rows.
    var sqlName: String {
        switch self {
        case .count: "count"
        case .sum: "sum"
        case .total: "total"
        case .average: "avg"
        case .min: "min"
        case .max: "max"
        }
    }
}
