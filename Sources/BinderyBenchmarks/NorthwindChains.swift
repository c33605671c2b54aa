import Bindery
import CSQLite
import Foundation

/// A line of Northwind's `Order Details`.
struct JoinedOrderLine: Record, Equatable {
    static let tableName = "Order Details"
    static let primaryKey = ["OrderID", "ProductID"]
    var OrderID: Int
    var ProductID: Int
    var UnitPrice: Double
    var Quantity: Int
    var Discount: Double
    static let order = belongsTo(JoinedOrder.self, key: "order")
}

/// A row of Northwind's `Shippers`.
struct JoinedShipper: Record, Equatable {
    static let tableName = "Shippers"
    static let primaryKey = ["ShipperID"]
    var ShipperID: Int
    var CompanyName: String?
    var Phone: String?
}

extension JoinedOrder {
    static let customer = belongsTo(JoinedCustomer.self, key: "customer")
    static let shipper = belongsTo(JoinedShipper.self, key: "shipper")
}

/// An order with its customer.
struct OrderAndCustomer: Decodable, Equatable {
    var order: JoinedOrder
    var customer: JoinedCustomer
}

/// An order line with its order and the order's customer: two to-one steps.
struct OrderLineInfo: Decodable, Equatable {
    var line: JoinedOrderLine
    var order: OrderAndCustomer
}

/// An order with its shipper.
struct OrderAndShipper: Decodable, Equatable {
    var order: JoinedOrder
    var shipper: JoinedShipper
}

/// A customer with its orders, each with its shipper: a to-one step inside a to-many one.
struct CustomerOrdersShippers: Decodable, Equatable {
    var customer: JoinedCustomer
    var orders: [OrderAndShipper]
}

/// Chained associations (issue 40): order lines with their order and its customer (one query), and
/// customers with their orders and each order's shipper (two queries), each beside a C loop running
/// the same queries and building the same structs.
enum NorthwindChains {
    static let lines = JoinedOrderLine.including(
        required: JoinedOrderLine.order.including(required: JoinedOrder.customer))
    static let customers = JoinedCustomer.including(
        all: JoinedCustomer.orders.including(required: JoinedOrder.shipper))

    static func run(_ benchmark: Benchmark, path: String) throws {
        try runToOne(benchmark, path: path)
        try runToOneFloor(benchmark, path: path)
        try runToMany(benchmark, path: path)
        try runToManyFloor(benchmark, path: path)
    }

    /// The floor under any Codable decoder of the chained rows: the C loop's rows decoded by the
    /// synthesized `init(from:)`s (with their copies of each nested value) through ``BareRowDecoder``.
    /// No goal: it says how low a goal for the chained line can be.
    static func runToOneFloor(_ benchmark: Benchmark, path: String) throws {
        let conn = try Connection(path: path, options: .init(readOnly: true))
        let raw = try RawDatabase(path: path, readOnly: true)
        let statement = try raw.prepare(try conn.sql(for: lines).text)
        defer { sqlite3_finalize(statement) }
        let decoder = BareRowDecoder(statement: statement)
        var bare: [OrderLineInfo] = []
        let ratio = try benchmark.compare(
            "the floor for the chained to-one line: the C loop's rows through a bare Decoder", goal: nil,
            baselineName: "C API", binderyName: "bare Decoder",
            baseline: { _ = linesByHand(statement).count },
            bindery: { bare = try decoder.decodeAll(OrderLineInfo.self) })
        guard ratio > 0 else { return }
        guard bare.count > 18_000, bare == linesByHand(statement) else {
            throw BenchmarkError.mismatch("order lines: the bare Decoder and the C loop decoded different values")
        }
    }

    /// The floor under any Codable decoder of the to-many chain: its C loop, each order with its
    /// shipper decoded by the synthesized `init(from:)`s through ``BareRowDecoder``. No goal.
    static func runToManyFloor(_ benchmark: Benchmark, path: String) throws {
        let raw = try RawDatabase(path: path, readOnly: true)
        let parents = try raw.prepare("SELECT * FROM Customers")
        defer { sqlite3_finalize(parents) }
        var bare: [CustomerOrdersShippers] = []
        let ratio = try benchmark.compare(
            "the floor for the chained to-many line: the C loop's orders through a bare Decoder", goal: nil,
            baselineName: "C API", binderyName: "bare Decoder",
            baseline: { _ = try customersByHand(raw, parents).count },
            bindery: {
                bare = try customersByHand(raw, parents) { _, decoder in
                    decoder.startRow()
                    return try OrderAndShipper(from: decoder)
                }
            })
        guard ratio > 0 else { return }
        guard bare.count == 93, bare == (try customersByHand(raw, parents)) else {
            throw BenchmarkError.mismatch("customers with orders and shippers: the bare Decoder and the C loop differ")
        }
    }

    static func runToOne(_ benchmark: Benchmark, path: String) throws {
        let conn = try Connection(path: path, options: .init(readOnly: true))
        let raw = try RawDatabase(path: path, readOnly: true)
        // The query Bindery runs, which the C loop runs too.
        let statement = try raw.prepare(try conn.sql(for: lines).text)
        defer { sqlite3_finalize(statement) }
        var binderyCount = 0
        var rawCount = 0
        let ratio = benchmark.compare(
            "order lines with their order and its customer (2 to-one steps)", goal: 1.5,
            baseline: { rawCount = linesByHand(statement).count },
            bindery: { binderyCount = (try? conn.fetchAll(OrderLineInfo.self, lines).count) ?? -1 })
        guard ratio > 0 else { return }
        // Throws the error, if any, that the timed run turned into a count of -1.
        let fetched = try conn.fetchAll(OrderLineInfo.self, lines)
        guard binderyCount == rawCount, fetched.count == rawCount, rawCount > 18_000 else {
            throw BenchmarkError.mismatch("order lines: Bindery decoded \(binderyCount) rows, the C loop \(rawCount)")
        }
        guard fetched == linesByHand(statement) else {
            throw BenchmarkError.mismatch("order lines: Bindery and the C loop decoded different values")
        }
    }

    /// The C loop of the to-one chain: each column read at its known index.
    static func linesByHand(_ statement: OpaquePointer) -> [OrderLineInfo] {
        var rows: [OrderLineInfo] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let line = JoinedOrderLine(
                OrderID: Int(sqlite3_column_int64(statement, 0)), ProductID: Int(sqlite3_column_int64(statement, 1)),
                UnitPrice: sqlite3_column_double(statement, 2), Quantity: Int(sqlite3_column_int64(statement, 3)),
                Discount: sqlite3_column_double(statement, 4))
            let order = NorthwindRequests.order(statement, from: 5)
            let customer = NorthwindRequests.customer(statement, from: 19)
            rows.append(OrderLineInfo(line: line, order: OrderAndCustomer(order: order, customer: customer)))
        }
        sqlite3_reset(statement)
        return rows
    }

    static func runToMany(_ benchmark: Benchmark, path: String) throws {
        let conn = try Connection(path: path, options: .init(readOnly: true))
        let raw = try RawDatabase(path: path, readOnly: true)
        let parents = try raw.prepare("SELECT * FROM Customers")
        defer { sqlite3_finalize(parents) }
        var binderyCount = 0
        var rawCount = 0
        let ratio = try benchmark.compare(
            "customers with their orders and each order's shipper (to-many, to-one)", goal: 1.5,
            baseline: { rawCount = try customersByHand(raw, parents).count },
            bindery: { binderyCount = (try? conn.fetchAll(CustomerOrdersShippers.self, customers).count) ?? -1 })
        guard ratio > 0 else { return }
        let fetched = try conn.fetchAll(CustomerOrdersShippers.self, customers)
        guard binderyCount == rawCount, fetched.count == rawCount, rawCount == 93 else {
            throw BenchmarkError.mismatch(
                "customers with orders and shippers: Bindery decoded \(binderyCount) customers, the C loop \(rawCount)")
        }
        // Neither query orders the orders: each customer's compared in the order of their keys.
        let sorted = { (rows: [CustomerOrdersShippers]) in
            rows.map {
                CustomerOrdersShippers(
                    customer: $0.customer, orders: $0.orders.sorted { $0.order.OrderID < $1.order.OrderID })
            }
        }
        guard
            sorted(try conn.fetchAll(CustomerOrdersShippers.self, customers))
                == sorted(try customersByHand(raw, parents))
        else {
            throw BenchmarkError.mismatch("customers with orders and shippers: Bindery and the C loop differ")
        }
    }

    /// The C loop of the to-many chain: the customers, then one query for the orders of their keys
    /// joined to their shippers, grouped by key in a dictionary.
    static func customersByHand(
        _ raw: RawDatabase, _ parents: OpaquePointer,
        readOrder: (OpaquePointer, BareRowDecoder) throws -> OrderAndShipper = { orders, _ in orderAndShipper(orders) }
    ) throws -> [CustomerOrdersShippers] {
        let (found, orders) = try NorthwindRequests.customersAndOrders(raw, parents) {
            "SELECT o.*, s.* FROM Orders o JOIN Shippers s ON s.ShipperID = o.ShipVia WHERE o.CustomerID IN (\($0))"
        }
        defer { sqlite3_finalize(orders) }
        var groups: [String: [OrderAndShipper]] = [:]
        let decoder = BareRowDecoder(statement: orders)
        while sqlite3_step(orders) == SQLITE_ROW {
            let entry = try readOrder(orders, decoder)
            groups[entry.order.CustomerID ?? "", default: []].append(entry)
        }
        return found.map { CustomerOrdersShippers(customer: $0, orders: groups[$0.CustomerID] ?? []) }
    }

    /// The order and its shipper in the current row of `orders`, each column read at its known index.
    static func orderAndShipper(_ orders: OpaquePointer) -> OrderAndShipper {
        OrderAndShipper(
            order: NorthwindRequests.order(orders, from: 0),
            shipper: JoinedShipper(
                ShipperID: Int(sqlite3_column_int64(orders, 14)), CompanyName: text(orders, 15), Phone: text(orders, 16)
            ))
    }
}
