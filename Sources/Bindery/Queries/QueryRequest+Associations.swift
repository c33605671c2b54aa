/// Joining, including and aggregating the associations of a request's record type.
extension QueryRequest {
    /// Includes the associated record in each row by an INNER JOIN: rows without one are left out.
    /// Decode into a struct with a property named after the association's key.
    ///
    /// ```swift
    /// struct OrderInfo: Decodable, Sendable { var order: Order; var customer: Customer }
    /// let infos = try conn.fetchAll(OrderInfo.self, Order.all().including(required: Order.customer))
    /// ```
    public func including<Destination>(required association: ToOneAssociation<Base, Destination>) -> QueryRequest {
        adding(AssociationPart(descriptor: association.descriptor, mode: .includeRequired))
    }

    /// Includes the associated record in each row by a LEFT JOIN: a row without one keeps a nil
    /// (declare the property optional).
    public func including<Destination>(optional association: ToOneAssociation<Base, Destination>) -> QueryRequest {
        adding(AssociationPart(descriptor: association.descriptor, mode: .includeOptional))
    }

    /// Includes every associated record of each row, into an array property named after the
    /// association's key: one more query for all of them (the keys bound, in as few statements as the
    /// parameter limit allows), each row grouped with the parents whose key SQLite matched (by the
    /// key column's collation and affinity); a row without any gets an empty array.
    ///
    /// ```swift
    /// struct CustomerInfo: Decodable, Sendable { var customer: Customer; var orders: [Order] }
    /// let infos = try conn.fetchAll(CustomerInfo.self, Customer.all().including(all: Customer.orders))
    /// ```
    public func including<Destination>(all association: ToManyAssociation<Base, Destination>) -> QueryRequest {
        adding(
            AssociationPart(
                descriptor: association.descriptor, mode: .includeAll, loader: ToManyLoader<Destination>()))
    }

    /// Joins the associated table by an INNER JOIN without selecting its columns, to filter or order
    /// by them (name them with `column(_:)`): rows without an associated row are
    /// left out.
    ///
    /// ```swift
    /// let french = Order.all()
    ///     .joining(required: Order.customer)
    ///     .filter("\(Order.customer.column("Country")) = \("France")")
    /// ```
    public func joining<Destination>(required association: ToOneAssociation<Base, Destination>) -> QueryRequest {
        adding(AssociationPart(descriptor: association.descriptor, mode: .joinRequired))
    }

    /// Joins the associated table by a LEFT JOIN without selecting its columns: every row stays, its
    /// associated columns NULL when it has no associated row.
    public func joining<Destination>(optional association: ToOneAssociation<Base, Destination>) -> QueryRequest {
        adding(AssociationPart(descriptor: association.descriptor, mode: .joinOptional))
    }

    /// Joins the to-many associated table by an INNER JOIN without selecting its columns, to filter by
    /// them: a row appears once per associated row that matches (add ``distinct()`` to see it once).
    ///
    /// ```swift
    /// let buyers = Customer.all()
    ///     .joining(required: Customer.orders.filter("\(Customer.orders.column("Freight")) > \(500)"))
    ///     .distinct()
    /// ```
    public func joining<Destination>(required association: ToManyAssociation<Base, Destination>) -> QueryRequest {
        adding(AssociationPart(descriptor: association.descriptor, mode: .joinRequired))
    }

    /// Joins the to-many associated table by a LEFT JOIN without selecting its columns.
    public func joining<Destination>(optional association: ToManyAssociation<Base, Destination>) -> QueryRequest {
        adding(AssociationPart(descriptor: association.descriptor, mode: .joinOptional))
    }

    /// Selects a count or aggregate of associated rows into a property of each row, after the
    /// request's columns. In a request that groups its rows (`group`, `having`, or an aggregate in
    /// its selection), into a property of each group: the aggregate over the associated rows of all
    /// the group's rows. Such a request that also joins a to-many association throws
    /// ``AssociationError/annotationOfGroupedJoin(annotation:association:)``. The column is the one the
    /// aggregate's key names under the connection's ``CodingOptions/keyStrategy`` (`order_count` with
    /// `.snakeCase`), which its property reads.
    ///
    /// ```swift
    /// struct CustomerCount: Decodable { var customer: Customer; var orderCount: Int }
    /// let counts = try conn.fetchAll(CustomerCount.self, Customer.all().annotated(with: Customer.orders.count))
    /// ```
    public func annotated(with aggregates: AssociationAggregate<Base>...) -> QueryRequest {
        var request = self
        request.annotations += aggregates.map { AnnotationPart(key: $0.key, value: .aggregate($0.formula)) }
        return request
    }

    /// Selects the columns of the associated row among the request's own, by an INNER JOIN (rows
    /// without one are left out): those its ``ToOneAssociation/select(_:)`` names, which decode into
    /// properties of the row itself, or all its columns.
    ///
    /// ```swift
    /// struct BookTitle: Decodable, Sendable { var title: String; var authorName: String }
    /// let titles = try conn.fetchAll(
    ///     BookTitle.self,
    ///     Book.all().select("book.title").annotated(withRequired: Book.author.select("\(Book.author.column("name")) AS authorName")))
    /// ```
    public func annotated<Destination>(withRequired association: ToOneAssociation<Base, Destination>) -> QueryRequest {
        adding(AssociationPart(descriptor: association.descriptor, mode: .annotateRequired))
    }

    /// Selects the columns of the associated row among the request's own, by a LEFT JOIN: NULL (a nil
    /// property) where there is none.
    public func annotated<Destination>(withOptional association: ToOneAssociation<Base, Destination>) -> QueryRequest {
        adding(AssociationPart(descriptor: association.descriptor, mode: .annotateOptional))
    }

    private func adding(_ part: AssociationPart) -> QueryRequest {
        var request = self
        request.associations.append(part)
        return request
    }
}

extension Record {
    /// A request for every row with the associated record included by an INNER JOIN:
    /// `Order.including(required: Order.customer)` is `Order.all().including(required: Order.customer)`.
    public static func including<Destination>(required association: ToOneAssociation<Self, Destination>)
        -> QueryRequest<Self>
    {
        all().including(required: association)
    }

    /// A request for every row with the associated record included by a LEFT JOIN.
    public static func including<Destination>(optional association: ToOneAssociation<Self, Destination>)
        -> QueryRequest<Self>
    {
        all().including(optional: association)
    }

    /// A request for every row with all its associated records included (one more query).
    public static func including<Destination>(all association: ToManyAssociation<Self, Destination>)
        -> QueryRequest<Self>
    {
        all().including(all: association)
    }

    /// A request for every row that has an associated row, its table joined by an INNER JOIN:
    /// `Order.joining(required: Order.customer)` is `Order.all().joining(required: Order.customer)`.
    public static func joining<Destination>(required association: ToOneAssociation<Self, Destination>)
        -> QueryRequest<Self>
    {
        all().joining(required: association)
    }

    /// A request for every row, the associated table joined by a LEFT JOIN.
    public static func joining<Destination>(optional association: ToOneAssociation<Self, Destination>)
        -> QueryRequest<Self>
    {
        all().joining(optional: association)
    }
}

/// An association as a request uses it.
struct AssociationPart: Sendable {
    enum Mode: Sendable {
        case includeRequired, includeOptional, includeAll, joinRequired, joinOptional, annotateRequired,
            annotateOptional
    }

    var descriptor: AssociationDescriptor
    var mode: Mode
    /// Fetches the rows of an association included with ``Mode/includeAll``.
    var loader: (any ToManyLoading)?

    /// Whether the association's table is joined in the request's own query.
    var isJoined: Bool { mode != .includeAll }
    /// Whether its columns are selected in the request's own query.
    var isSelected: Bool { mode == .includeRequired || mode == .includeOptional }
    /// Whether its join is a LEFT JOIN.
    var isOptional: Bool { mode == .includeOptional || mode == .joinOptional || mode == .annotateOptional }
}

/// A count or aggregate, or an expression, selected by a request.
struct AnnotationPart: Sendable {
    /// What it selects.
    enum Value: Sendable {
        /// Aggregates of associations (``AssociationAggregate``).
        case aggregate(AggregateFormula)
        /// An expression of the request's row (``QueryRequest/annotated(with:as:)``).
        case expression(SQL)
    }

    /// The column alias, the property it decodes into.
    var key: String
    var value: Value

    /// The formula of an aggregate annotation; nil for an expression.
    var formula: AggregateFormula? {
        if case .aggregate(let formula) = value { return formula }
        return nil
    }
}
