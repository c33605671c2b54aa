/// An association from each row of `Origin` to at most one row of `Destination`, declared with
/// ``Record/belongsTo(_:key:using:)`` or ``Record/hasOne(_:key:using:)``; a request includes it in the
/// same query, by a JOIN.
///
/// ```swift
/// struct OrderInfo: Decodable, Sendable {
///     var order: Order
///     var customer: Customer?        // the association's key
/// }
/// let infos = try conn.fetchAll(OrderInfo.self, Order.all().including(optional: Order.customer))
/// ```
public struct ToOneAssociation<Origin: Record, Destination: Record>: Sendable, AssociationSteps {
    let descriptor: AssociationDescriptor

    /// The property the associated record decodes into, and its table's alias in a request
    /// (`"customer"."Country"`).
    public var key: String { descriptor.key }

    /// The same association under another key: another property, another alias (to join the same
    /// table twice).
    public func forKey(_ key: String) -> Self {
        with { $0.key = key }
    }

    /// The same association under another table alias, which its ``column(_:)-(String)`` qualifies
    /// columns with: to join the same table twice, or two associations with the same key at two depths
    /// of a chain (`Loan.author` and `Loan.book`'s `Book.author`), whose properties keep their names.
    ///
    /// ```swift
    /// let bookAuthor = Book.author.aliased("bookAuthor")
    /// Loan.all()
    ///     .including(required: Loan.book.including(required: bookAuthor))
    ///     .filter("\(bookAuthor.column("country")) = \("FR")")
    /// ```
    public func aliased(_ alias: String) -> Self {
        with { $0.tableAlias = alias }
    }

    /// The same association, each associated row with the record `association` associates to it, by an
    /// INNER JOIN: rows of the request whose associated row has none are left out (or, when this
    /// association is included with `optional`, keep a nil). Decode the associated value into a struct
    /// with a property for the associated record (any property of that record's type) and one named
    /// after `association`'s key:
    ///
    /// ```swift
    /// struct BookInfo: Decodable, Sendable { var book: Book; var author: Author }
    /// struct LoanInfo: Decodable, Sendable { var loan: Loan; var book: BookInfo }
    /// let loans = try conn.fetchAll(
    ///     LoanInfo.self, Loan.including(required: Loan.book.including(required: Book.author)))
    /// ```
    ///
    /// Chains go to any depth in one query, each table under its own alias (the association's key,
    /// or ``aliased(_:)``'s).
    public func including<Next>(required association: ToOneAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .includeRequired)
    }

    /// The same association, each associated row with the record `association` associates to it, by a
    /// LEFT JOIN: a nil when it has none (declare that property optional).
    public func including<Next>(optional association: ToOneAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .includeOptional)
    }

    /// The same association, joined to `association`'s table by an INNER JOIN without selecting its
    /// columns, to filter or order by them (``column(_:)-(String)`` of `association`).
    public func joining<Next>(required association: ToOneAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .joinRequired)
    }

    /// The same association, joined to `association`'s table by a LEFT JOIN without selecting its
    /// columns.
    public func joining<Next>(optional association: ToOneAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .joinOptional)
    }

    /// The same association, joined to the to-many `association`'s table by an INNER JOIN without
    /// selecting its columns, to filter or order by them. As with a request's own `joining(required:)` of
    /// a to-many association, the request's row appears once per associated row that matches (add
    /// ``QueryRequest/distinct()`` to see it once).
    ///
    /// ```swift
    /// // Loans of books with a five-star review.
    /// Loan.all()
    ///     .joining(required: Loan.book.joining(required: Book.reviews.filter("\(Book.reviews.column("stars")) = 5")))
    ///     .distinct()
    /// ```
    public func joining<Next>(required association: ToManyAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .joinRequired)
    }

    /// The same association, joined to the to-many `association`'s table by a LEFT JOIN without
    /// selecting its columns: a row appears once per associated row, or once when there is none.
    public func joining<Next>(optional association: ToManyAssociation<Destination, Next>) -> Self {
        adding(association.descriptor, .joinOptional)
    }

    /// The same association, each associated record with all the records `association` associates to
    /// it, into an array property named after its key: one more query for all of them, whatever the
    /// number of rows (see ``QueryRequest/including(all:)``).
    ///
    /// ```swift
    /// struct BookInfo: Decodable, Sendable { var book: Book; var reviews: [Review] }
    /// struct LoanInfo: Decodable, Sendable { var loan: Loan; var book: BookInfo }
    /// let loans = try conn.fetchAll(LoanInfo.self, Loan.including(required: Loan.book.including(all: Book.reviews)))
    /// ```
    public func including<Next>(all association: ToManyAssociation<Destination, Next>) -> Self {
        addingAll(association)
    }

    /// The same association, selecting only `selection` of its table (name its columns with
    /// `column(_:)`): included, its value decodes from those columns; given to
    /// ``QueryRequest/annotated(withRequired:)``, they join the request's own.
    ///
    /// ```swift
    /// struct AuthorName: Decodable, Sendable { var name: String }
    /// struct BookInfo: Decodable, Sendable { var book: Book; var author: AuthorName }
    /// Book.including(required: Book.author.select("\(Book.author.column("name"))"))
    /// ```
    public func select(_ selection: SQL) -> Self {
        writing { $0.selection = selection }
    }

    /// The same association, sorting the rows of the request that joins or includes it by `ordering`
    /// (name its columns with `column(_:)`), after the request's own orderings and those of the
    /// associations before it; replaces any ordering the association had. Inside a to-many association,
    /// it sorts that association's records after its own ordering.
    ///
    /// ```swift
    /// // Books by their author's name: ORDER BY "author"."name"
    /// Book.including(required: Book.author.order("\(Book.author.column("name"))"))
    /// ```
    public func order(_ ordering: SQL) -> Self {
        writing { $0.orderings = [ordering] }
    }

    /// The same association, joining only the rows matching `condition` (added to its `ON`; name
    /// their columns with `column(_:)`).
    public func filter(_ condition: SQL) -> Self {
        writing { $0.conditions.append(condition) }
    }

    /// A column of the associated table, qualified by the association's alias, for filters and
    /// orderings of a request that joins it: `"customer"."Country"`.
    ///
    /// ```swift
    /// Order.all().joining(required: Order.customer).filter("\(Order.customer.column("Country")) = \("France")")
    /// ```
    public func column(_ name: String) -> Column {
        Column(name, table: descriptor.aliasName)
    }

    /// The column a coding key of the destination names, qualified by the association's alias.
    public func column(_ codingKey: some CodingKey) -> Column {
        Column(codingKey, table: descriptor.aliasName)
    }
}
