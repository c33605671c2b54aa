import Bindery

/// The record of the read replica example.
struct Order: Record {
    static let tableName = "Orders"
    static let primaryKey = ["OrderID"]
    var OrderID: Int64
    var CustomerID: String?
    var Freight: Double
    var ShipCountry: String?
}
