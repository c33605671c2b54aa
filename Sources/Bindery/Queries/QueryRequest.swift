/// A query of a record type's table, built by modifiers that each return a new request: a value to
/// keep, pass around and run later on any ``Connection`` or ``Database``.
///
/// ```swift
/// let recent = Order.all()
///     .filter("ShipCountry = \(country)")
///     .filter("OrderDate >= \(start)")          // filters AND together
///     .order("OrderDate DESC")
///     .limit(20)
/// let orders = try await db.fetchAll(recent)
/// let count = try await db.fetchCount(recent)
/// print(recent)                                   // SELECT "Orders".* FROM "Orders" WHERE … LIMIT 20
/// ```
///
/// Conditions and orderings are ``SQL`` interpolations: values are bound, never spliced. A record's
/// `CodingKeys` name columns where the compiler should check them (``Column``). A request fetches its
/// record type (`fetchAll(_:)`) or any other `Decodable` type
/// (``Connection/fetchAll(_:_:)``), such as a struct of nested records for one with included
/// associations (see <doc:JoinsAndAssociations>).
public struct QueryRequest<Base: Record>: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The `WHERE` conditions given to `filter(_:)`, in order (see ``ConditionList``).
    var conditionList = ConditionList()
    /// The orderings (`ORDER BY`), in order. Here rather than among the ``extras``: a request that
    /// orders its rows, which most lists do, then allocates no extras (callgrind, the bench's
    /// `fetchOne(request)` with `.order("c1")` added: 2,326 instructions a call for `order(_:)` with the
    /// orderings among the extras).
    var orderings: [SQL] = []
    var limitCount: Int?
    var offsetCount: Int?
    var isDistinct = false
    /// The parts that most requests leave empty (the selection, groupings, `HAVING` conditions,
    /// associations, annotations, joined subqueries, conditions on aggregates, reversal, key filters);
    /// nil without them, so that a request without them is made, moved and destroyed cheaply (see
    /// ``RequestExtras``).
    var extras: RequestExtras?

    /// A request for every row of `Base`'s table; see ``Record/all()``.
    init() {}

    /// The `WHERE` conditions given to `filter(_:)`, in order.
    var conditions: [SQL] { conditionList.array }

    /// Only the rows matching `condition`; several filters AND together.
    ///
    /// ```swift
    /// Order.all().filter("Freight > \(100)").filter("\(column: Order.CodingKeys.shipCountry) = \("UK")")
    /// ```
    public consuming func filter(_ condition: consuming SQL) -> QueryRequest {
        // Taken, not borrowed: a request made and filtered in one expression (`Order.all().filter(…)`) is
        // moved into the result with its new condition, not copied (each of its parts retained) and then
        // destroyed (see the commit that made it so for the figures).
        conditionList.append(condition)
        return self
    }

    /// Rows sorted by `ordering` (`"OrderDate DESC, OrderID"`), replacing any earlier ordering (and
    /// its reversal by ``reversed()``).
    public func order(_ ordering: SQL) -> QueryRequest {
        var request = self
        request.orderings = [ordering]
        if request.isReversed {
            request.isReversed = false
        }
        return request
    }

    /// Rows sorted by the columns the coding keys name, ascending, replacing any earlier ordering (and
    /// its reversal by ``reversed()``).
    ///
    /// ```swift
    /// Order.all().order(Order.CodingKeys.orderDate, Order.CodingKeys.orderID)
    /// ```
    public func order<Key: CodingKey>(_ keys: Key...) -> QueryRequest {
        var request = self
        request.orderings = keys.map { Column($0).asc }
        if request.isReversed {
            request.isReversed = false
        }
        return request
    }

    /// Rows sorted by `ordering` after the orderings already given (`.order(a).thenOrder(b)`).
    public func thenOrder(_ ordering: SQL) -> QueryRequest {
        var request = self
        request.orderings.append(ordering)
        return request
    }

    /// At most `limit` rows, after skipping `offset` of them.
    public func limit(_ limit: Int, offset: Int? = nil) -> QueryRequest {
        var request = self
        request.limitCount = limit
        request.offsetCount = offset
        return request
    }

    /// Selects `selection` instead of every column of the table, for decoding into another type:
    ///
    /// ```swift
    /// struct Total: Decodable { var country: String; var total: Double }
    /// let totals = try conn.fetchAll(
    ///     Total.self,
    ///     Order.all().select("ShipCountry AS country, sum(Freight) AS total").group("ShipCountry"))
    /// ```
    public func select(_ selection: SQL) -> QueryRequest {
        var request = self
        request.selection = selection
        return request
    }

    /// Only distinct rows (`SELECT DISTINCT`).
    public func distinct() -> QueryRequest {
        var request = self
        request.isDistinct = true
        return request
    }

    /// Groups rows by `grouping` (`GROUP BY`), replacing any earlier grouping.
    public func group(_ grouping: SQL) -> QueryRequest {
        var request = self
        request.groupings = [grouping]
        return request
    }

    /// Only the groups matching `condition` (`HAVING`); several AND together.
    public func having(_ condition: SQL) -> QueryRequest {
        var request = self
        request.havingConditions.append(condition)
        return request
    }

    /// The SQL the request runs: text with `?` for each bound value (``debugDescription`` shows the
    /// values too). The key columns of an association that gives its ``ForeignKey`` are printed; those
    /// that come from the schema are known only on a connection, and print as what they are:
    /// `<"customer" = "Orders" on the foreign key from "Orders" to "Customers", read from the schema
    /// when the request runs>`. ``Connection/sql(for:)`` gives the SQL with them resolved.
    public var description: String {
        (try? statement(keys: .unresolved).sql.text) ?? "<invalid request>"
    }

    /// ``description`` followed by the bound values: `… WHERE "Freight" > ? -- arguments: [100]`.
    public var debugDescription: String {
        guard let sql = try? statement(keys: .unresolved).sql else { return "<invalid request>" }
        return sql.debugText
    }
}

extension Record {
    /// A request for every row of the table, to refine with ``QueryRequest/filter(_:)-(SQL)``,
    /// `order(_:)` and the other modifiers.
    ///
    /// ```swift
    /// let top = try conn.fetchAll(Order.all().order("Freight DESC").limit(10))
    /// ```
    public static func all() -> QueryRequest<Self> {
        QueryRequest()
    }

    /// A request for the rows matching `condition`: `Order.filter(…)` is `Order.all().filter(…)`.
    public static func filter(_ condition: consuming SQL) -> QueryRequest<Self> {
        // Through the two public calls, which the caller's module can inline: an internal initializer
        // made this call one the caller cannot inline, which looked up the request type's metadata and
        // copied the request through its value witnesses (callgrind, the bench's `fetchOne(request)`:
        // 650 instructions a call, against about 95).
        all().filter(condition)
    }

    /// A request for every row sorted by `ordering`: `Order.order(…)` is `Order.all().order(…)`.
    public static func order(_ ordering: SQL) -> QueryRequest<Self> {
        all().order(ordering)
    }
}

extension SQL {
    /// The text followed by the bound values, for debugging: `… -- arguments: [100, "UK"]`.
    var debugText: String {
        guard valueCount > 0 else { return text }
        return text + " -- arguments: [" + valueDescriptions.joined(separator: ", ") + "]"
    }
}
