import Bindery
import CSQLite
import Foundation

extension JoinedCustomer {
    /// Every order of the customer.
    static let orders = hasMany(JoinedOrder.self, key: "orders")
}

/// A customer with all its orders.
struct CustomerWithOrders: Decodable, Equatable {
    var customer: JoinedCustomer
    var orders: [JoinedOrder]
}

/// Requests on Northwind: customers each with all their orders (to-many, two queries) beside a C
/// loop running the same two queries and grouping by hand; and a request's fetch beside the fetch of
/// the same SQL through `fetchAll(_:sql:)`.
enum NorthwindRequests {
    static let customersWithOrders = "customers with all their orders (to-many)"
    static let requestFetch = "a request's fetch (Orders, filtered)"

    static func run(_ benchmark: Benchmark, path: String) throws {
        try runToMany(benchmark, path: path)
        try runToManyFloor(benchmark, path: path)
        try runRequest(benchmark, path: path)
    }

    static func runToMany(_ benchmark: Benchmark, path: String) throws {
        let conn = try Connection(path: path, options: .init(readOnly: true))
        let raw = try RawDatabase(path: path, readOnly: true)
        let customers = try raw.prepare("SELECT * FROM Customers")
        defer { sqlite3_finalize(customers) }
        let request = JoinedCustomer.including(all: JoinedCustomer.orders)
        var binderyCount = 0
        var rawCount = 0
        let ratio = try benchmark.compare(
            customersWithOrders, goal: 1.3,
            baseline: {
                rawCount = try byHand(raw, customers).count
            },
            bindery: {
                binderyCount = (try? conn.fetchAll(CustomerWithOrders.self, request).count) ?? -1
            })
        guard ratio > 0 else { return }
        guard binderyCount == rawCount && rawCount == 93 else {
            throw BenchmarkError.mismatch(
                "customers with orders: Bindery decoded \(binderyCount) customers, the C loop \(rawCount)")
        }
        // The same customers with the same orders (each customer's orders compared as sets: neither
        // query orders them).
        let byBindery = try conn.fetchAll(CustomerWithOrders.self, request)
        let handMade = try byHand(raw, customers)
        let sameOrders = zip(byBindery, handMade).allSatisfy { bindery, hand in
            bindery.customer == hand.customer
                && bindery.orders.sorted { $0.OrderID < $1.OrderID } == hand.orders.sorted { $0.OrderID < $1.OrderID }
        }
        guard byBindery.count == handMade.count, sameOrders else {
            throw BenchmarkError.mismatch("customers with orders: Bindery and the C loop decoded different values")
        }
    }

    /// The floor under any Codable decoder of these records: the C loop, its orders decoded by
    /// `JoinedOrder`'s synthesized `init(from:)` through ``BareRowDecoder``, against the C loop. No goal:
    /// it says how low a goal for the to-many line can be.
    static func runToManyFloor(_ benchmark: Benchmark, path: String) throws {
        let raw = try RawDatabase(path: path, readOnly: true)
        let customers = try raw.prepare("SELECT * FROM Customers")
        defer { sqlite3_finalize(customers) }
        var bare: [CustomerWithOrders] = []
        let ratio = try benchmark.compare(
            "the floor for to-many: the C loop's orders through a bare Decoder", goal: nil,
            baselineName: "C API", binderyName: "bare Decoder",
            baseline: {
                _ = try byHand(raw, customers).count
            },
            bindery: {
                bare = try byHand(raw, customers) { orders, decoder in
                    decoder.startRow()
                    return try JoinedOrder(from: decoder)
                }
            })
        guard ratio > 0 else { return }
        guard bare.count == 93, bare == (try byHand(raw, customers)) else {
            throw BenchmarkError.mismatch(
                "customers with orders: the bare Decoder and the C loop decoded different values")
        }
    }

    /// The C loop: the customers, their keys collected; one query for the orders of those keys
    /// (`IN (?, ?, …)`), each order read by `readOrder` (by default with `sqlite3_column_*` at its
    /// known index), grouped by key in a dictionary; then each customer with its array.
    static func byHand(
        _ raw: RawDatabase, _ customers: OpaquePointer,
        readOrder: (OpaquePointer, BareRowDecoder) throws -> JoinedOrder = { orders, _ in order(orders) }
    ) throws -> [CustomerWithOrders] {
        let (parents, orders) = try customersAndOrders(raw, customers) {
            "SELECT * FROM Orders WHERE CustomerID IN (\($0))"
        }
        defer { sqlite3_finalize(orders) }
        var groups: [String: [JoinedOrder]] = [:]
        let decoder = BareRowDecoder(statement: orders)
        while sqlite3_step(orders) == SQLITE_ROW {
            let order = try readOrder(orders, decoder)
            groups[order.CustomerID ?? "", default: []].append(order)
        }
        return parents.map { CustomerWithOrders(customer: $0, orders: groups[$0.CustomerID] ?? []) }
    }

    /// The customers of `customers`, and the statement of `query` (given the placeholders of their
    /// keys, `?, ?, …`, for an `IN (…)`) prepared with their keys bound: the first query of a to-many C
    /// loop and the second, ready to step. The caller finalizes the second.
    static func customersAndOrders(
        _ raw: RawDatabase, _ customers: OpaquePointer, query: (String) -> String
    ) throws -> (parents: [JoinedCustomer], orders: OpaquePointer) {
        var parents: [JoinedCustomer] = []
        while sqlite3_step(customers) == SQLITE_ROW {
            parents.append(customer(customers, from: 0))
        }
        sqlite3_reset(customers)
        let orders = try raw.prepare(query(Array(repeating: "?", count: parents.count).joined(separator: ", ")))
        for (index, parent) in parents.enumerated() {
            sqlite3_bind_text(orders, Int32(index + 1), parent.CustomerID, -1, bindery_sqlite_transient())
        }
        return (parents, orders)
    }

    /// The order in the 14 columns of the current row of `row` from `first` on, read with
    /// `sqlite3_column_*` at each column's known index.
    static func order(_ row: OpaquePointer, from first: Int32 = 0) -> JoinedOrder {
        JoinedOrder(
            OrderID: Int(sqlite3_column_int64(row, first)), CustomerID: text(row, first + 1),
            EmployeeID: integer(row, first + 2), OrderDate: date(row, first + 3), RequiredDate: date(row, first + 4),
            ShippedDate: date(row, first + 5), ShipVia: integer(row, first + 6), Freight: real(row, first + 7),
            ShipName: text(row, first + 8), ShipAddress: text(row, first + 9), ShipCity: text(row, first + 10),
            ShipRegion: text(row, first + 11), ShipPostalCode: text(row, first + 12), ShipCountry: text(row, first + 13)
        )
    }

    /// The customer in the 11 columns of the current row of `row` from `first` on.
    static func customer(_ row: OpaquePointer, from first: Int32) -> JoinedCustomer {
        JoinedCustomer(
            CustomerID: text(row, first) ?? "", CompanyName: text(row, first + 1), ContactName: text(row, first + 2),
            ContactTitle: text(row, first + 3), Address: text(row, first + 4), City: text(row, first + 5),
            Region: text(row, first + 6), PostalCode: text(row, first + 7), Country: text(row, first + 8),
            Phone: text(row, first + 9), Fax: text(row, first + 10))
    }

    static func runRequest(_ benchmark: Benchmark, path: String) throws {
        let conn = try Connection(path: path, options: .init(readOnly: true))
        let request = JoinedOrder.all().filter("Freight > \(1.0)").order("OrderID")
        let sql: SQL = "SELECT \"Orders\".* FROM \"Orders\" WHERE Freight > \(1.0) ORDER BY OrderID"
        var bySQL = 0
        var byRequest = 0
        let ratio = benchmark.compare(
            requestFetch, goal: 1.05, baselineName: "fetchAll(sql:)", binderyName: "request",
            baseline: {
                bySQL = (try? conn.fetchAll(JoinedOrder.self, sql: sql).count) ?? -1
            },
            bindery: {
                byRequest = (try? conn.fetchAll(request).count) ?? -1
            })
        guard ratio > 0 else { return }
        guard bySQL == byRequest, bySQL > 0, try conn.fetchAll(request) == conn.fetchAll(JoinedOrder.self, sql: sql)
        else {
            throw BenchmarkError.mismatch("a request's fetch: \(byRequest) rows, fetchAll(sql:) \(bySQL)")
        }
    }
}
