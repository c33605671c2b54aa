/// A column named in a request, by name or by a record's coding key, so that the compiler checks it:
/// interpolated in ``SQL``, it becomes a quoted identifier, qualified by its table when it has one.
///
/// ```swift
/// let late = Order.all()
///     .filter("\(Column(Order.CodingKeys.shippedDate)) > \(deadline)")
///     .order(Column(Order.CodingKeys.orderDate).desc)
/// ```
///
/// A coding key names the column as the key spells it: with ``CodingOptions/KeyStrategy/snakeCase``,
/// name the column by its stored name instead (`Column("order_date")`).
public struct Column: Sendable, Hashable, CustomStringConvertible {
    /// The column's name.
    public let name: String
    /// The table or alias that qualifies the name (`"customer"."Country"`), or nil.
    public let table: String?

    /// The column `name`, of table (or alias) `table` when given.
    public init(_ name: String, table: String? = nil) {
        self.name = name
        self.table = table
    }

    /// The column that a coding key names (`Column(Order.CodingKeys.orderDate)`), of table (or
    /// alias) `table` when given.
    public init(_ key: some CodingKey, table: String? = nil) {
        self.init(key.stringValue, table: table)
    }

    /// The quoted identifier: `"name"`, or `"table"."name"`.
    public var sql: SQL {
        SQL(text: quoted)
    }

    /// The column in ascending order, for ``QueryRequest/order(_:)-(SQL)``: `"name" ASC`.
    public var asc: SQL { SQL(text: quoted + " ASC") }

    /// The column in descending order, for ``QueryRequest/order(_:)-(SQL)``: `"name" DESC`.
    public var desc: SQL { SQL(text: quoted + " DESC") }

    /// An assignment of `value` to the column, for ``Connection/updateAll(_:set:)-(_,SQL...)``: the value is bound.
    ///
    /// ```swift
    /// try conn.updateAll(Order.all().filter("ShipCountry = \("UK")"), set: [Column("Freight").set(to: 0)])
    /// ```
    public func set(to value: some Encodable & Sendable) -> SQL {
        SQL(text: SQL.quote(identifier: name) + " = ") + "\(value)"
    }

    /// The quoted identifier, as ``sql``'s text.
    public var description: String { quoted }

    private var quoted: String {
        guard let table else { return SQL.quote(identifier: name) }
        return SQL.quote(identifier: table) + "." + SQL.quote(identifier: name)
    }
}

extension SQL.StringInterpolation {
    /// Inserts the column's quoted identifier (`"customer"."Country"`).
    ///
    /// ```swift
    /// .filter("\(Column(Order.CodingKeys.freight)) > \(100)")
    /// ```
    public mutating func appendInterpolation(_ column: Column) {
        appendText(column.description)
    }

    /// Inserts the quoted name of the column a coding key names, so that the compiler checks it.
    ///
    /// ```swift
    /// .filter("\(column: Order.CodingKeys.freight) > \(100)")
    /// ```
    public mutating func appendInterpolation(column key: some CodingKey) {
        appendText(SQL.quote(identifier: key.stringValue))
    }
}
