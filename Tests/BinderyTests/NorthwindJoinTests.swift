import Foundation
import NorthwindFixture
import Testing

@testable import Bindery

/// Joined rows of the Northwind fixture: every order with its customer and employee, and each
/// employee with the manager they report to (a self-join).
@Suite struct NorthwindJoinTests {
    struct Order: Record, Equatable {
        static let tableName = "Orders"
        static let primaryKey = ["OrderID"]
        var OrderID: Int
        var CustomerID: String?
        var EmployeeID: Int?
        var OrderDate: Date?
        var Freight: Double?
        var ShipCountry: String?
    }

    struct Customer: Record, Equatable {
        static let tableName = "Customers"
        static let primaryKey = ["CustomerID"]
        var CustomerID: String
        var CompanyName: String?
        var Country: String?
    }

    struct Employee: Record, Equatable {
        static let tableName = "Employees"
        static let primaryKey = ["EmployeeID"]
        var EmployeeID: Int
        var LastName: String?
        var FirstName: String?
        var ReportsTo: Int?
    }

    struct OrderInfo: Decodable, Sendable {
        var order: Order
        var customer: Customer
        var employee: Employee
    }

    struct Managed: Decodable, Sendable {
        var employee: Employee
        var manager: Employee?
    }

    static let ordersSQL: SQL = """
        SELECT o.*, c.*, e.* FROM Orders o JOIN Customers c ON c.CustomerID = o.CustomerID
        JOIN Employees e ON e.EmployeeID = o.EmployeeID ORDER BY o.OrderID
        """

    @Test func everyOrderWithItsCustomerAndEmployee() async throws {
        let db = try Database(path: NorthwindFixture.databasePath(), options: .init(readOnly: true))
        let rows = try await db.fetchAll(OrderInfo.self, sql: Self.ordersSQL)
        #expect(rows.count == 16_704)
        #expect(rows.allSatisfy { $0.order.CustomerID == $0.customer.CustomerID })
        #expect(rows.allSatisfy { $0.order.EmployeeID == $0.employee.EmployeeID })
        // The same values as each table read on its own.
        let orders = try await db.fetchAll(Order.self, orderBy: "OrderID")
        let customers = try await db.fetchAll(Customer.self)
        let employees = try await db.fetchAll(Employee.self)
        #expect(rows.map(\.order) == orders)
        let customerByID = Dictionary(uniqueKeysWithValues: customers.map { ($0.CustomerID, $0) })
        let employeeByID = Dictionary(uniqueKeysWithValues: employees.map { ($0.EmployeeID, $0) })
        #expect(rows.allSatisfy { customerByID[$0.customer.CustomerID] == $0.customer })
        #expect(rows.allSatisfy { employeeByID[$0.employee.EmployeeID] == $0.employee })
        let shippedHome = try await db.fetchOne(
            Int.self,
            sql: """
                SELECT count(*) FROM Orders o JOIN Customers c ON c.CustomerID = o.CustomerID
                JOIN Employees e ON e.EmployeeID = o.EmployeeID WHERE o.ShipCountry = c.Country
                """)
        #expect(rows.filter { $0.order.ShipCountry == $0.customer.Country }.count == shippedHome)
    }

    @Test func employeesWithTheirManagersBySelfJoin() throws {
        let conn = try Connection(path: NorthwindFixture.databasePath(), options: .init(readOnly: true))
        let sql: SQL = """
            SELECT e.*, m.* FROM Employees e LEFT JOIN Employees m ON e.ReportsTo = m.EmployeeID ORDER BY e.EmployeeID
            """
        let rows = try conn.fetchAll(
            Managed.self, sql: sql,
            scopes: [.record(Employee.self, into: "employee"), .record(Employee.self, into: "manager")])
        #expect(rows.count == 9)
        #expect(rows.filter { $0.manager == nil }.map(\.employee.EmployeeID) == [2])
        #expect(rows.allSatisfy { $0.manager?.EmployeeID == $0.employee.ReportsTo })
        #expect(rows.allSatisfy { $0.manager.map { $0.EmployeeID != $0.ReportsTo } ?? true })
        // Without scopes the two copies of Employees cannot be told apart: an error, not a guess.
        #expect(throws: RowScopeError.ambiguousTable(property: "employee", table: "Employees", other: nil)) {
            try conn.fetchAll(Managed.self, sql: sql)
        }
        // A cursor reads the same.
        let cursor = try conn.fetchCursor(
            Managed.self, sql: sql,
            scopes: [.table("Employees", into: "employee"), .table("Employees", into: "manager")])
        var managers: [Int?] = []
        while let row = try cursor.next() {
            managers.append(row.manager?.EmployeeID)
        }
        #expect(managers == rows.map(\.manager?.EmployeeID))
    }
}
