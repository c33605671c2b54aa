/// The columns that link two tables, for an association whose keys the schema does not tell (no
/// `REFERENCES` clause, or several of them between the same tables).
///
/// ```swift
/// static let customer = belongsTo(Customer.self, using: ForeignKey(["CustomerID"]))
/// static let lines = hasMany(OrderLine.self, using: ForeignKey(["orderId", "orderYear"], to: ["id", "year"]))
/// ```
public struct ForeignKey: Sendable, Hashable {
    /// The columns of the table that holds the key (the origin of `belongsTo`, the destination of
    /// `hasOne` and `hasMany`).
    public let columns: [String]
    /// The columns of the other table they match, in the same order; nil for its primary key.
    public let referencedColumns: [String]?

    /// The key made of `columns`, matching `referencedColumns` of the other table (its primary key
    /// when nil).
    public init(_ columns: [String], to referencedColumns: [String]? = nil) {
        self.columns = columns
        self.referencedColumns = referencedColumns
    }
}
