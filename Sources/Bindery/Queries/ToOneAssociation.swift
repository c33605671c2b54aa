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
public struct ToOneAssociation<Origin: Record, Destination: Record>: Sendable {
    let descriptor: AssociationDescriptor

    /// The property the associated record decodes into, and its table's alias in a request
    /// (`"customer"."Country"`).
    public var key: String { descriptor.key }

    /// The same association under another key: another property, another alias (to join the same
    /// table twice).
    public func forKey(_ key: String) -> Self {
        var descriptor = self.descriptor
        descriptor.key = key
        return Self(descriptor: descriptor)
    }

    /// The same association, joining only the rows matching `condition` (added to its `ON`; name
    /// their columns with `column(_:)`).
    public func filter(_ condition: SQL) -> Self {
        var descriptor = self.descriptor
        descriptor.conditions.append(condition)
        return Self(descriptor: descriptor)
    }

    /// A column of the associated table, qualified by the association's alias, for filters and
    /// orderings of a request that joins it: `"customer"."Country"`.
    ///
    /// ```swift
    /// Order.all().joining(required: Order.customer).filter("\(Order.customer.column("Country")) = \("France")")
    /// ```
    public func column(_ name: String) -> Column {
        Column(name, table: key)
    }

    /// The column a coding key of the destination names, qualified by the association's alias.
    public func column(_ codingKey: some CodingKey) -> Column {
        Column(codingKey, table: key)
    }
}
