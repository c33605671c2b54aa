import Foundation
import NorthwindFixture
import Testing

@testable import Bindery

/// All 16,704 `Orders` of the Northwind fixture decode to the values the `sqlite3` shell prints; in
/// particular none of the 4,167 `Freight` values stored as INTEGER is lost.
@Suite struct NorthwindTests {
    struct Order: Decodable, Sendable {
        var orderID: Int
        var customerID: String?
        var employeeID: Int?
        var orderDate: Date?
        var requiredDate: Date?
        var shippedDate: Date?
        var shipVia: Int?
        var freight: Double?
        var shipName: String?
        var shipAddress: String?
        var shipCity: String?
        var shipRegion: String?
        var shipPostalCode: String?
        var shipCountry: String?

        enum CodingKeys: String, CodingKey {
            case orderID = "OrderID"
            case customerID = "CustomerID"
            case employeeID = "EmployeeID"
            case orderDate = "OrderDate"
            case requiredDate = "RequiredDate"
            case shippedDate = "ShippedDate"
            case shipVia = "ShipVia"
            case freight = "Freight"
            case shipName = "ShipName"
            case shipAddress = "ShipAddress"
            case shipCity = "ShipCity"
            case shipRegion = "ShipRegion"
            case shipPostalCode = "ShipPostalCode"
            case shipCountry = "ShipCountry"
        }
    }

    /// The Northwind fixture, expanded from the repository's `Tests/Fixtures/northwind.sql.gz`.
    static var databasePath: String {
        get throws { try NorthwindFixture.databasePath() }
    }

    static let sqlite3Path = "/usr/bin/sqlite3"

    struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }

    static func requireFiles() throws {
        guard FileManager.default.isExecutableFile(atPath: sqlite3Path) else {
            throw ToolFailure(
                description:
                    "\(sqlite3Path) is missing: install it (apt-get install -y sqlite3); the test cannot be skipped")
        }
    }

    /// What `sqlite3 -readonly -separator '|' …` prints, one array of fields per line.
    static func shell(_ sql: String, extraArguments: [String] = []) throws -> [[String]] {
        let (status, data, _) = try TestProcess.run(
            sqlite3Path, ["-readonly", "-batch", "-separator", "|"] + extraArguments + [try databasePath, sql])
        guard status == 0 else {
            throw ToolFailure(description: "sqlite3 exited with \(status) for \(sql)")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
            .map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    static func fetchOrders() throws -> [Order] {
        let conn = try Connection(path: try databasePath, options: .init(readOnly: true))
        return try conn.fetchAll(Order.self, sql: "SELECT * FROM Orders ORDER BY OrderID")
    }

    /// The date the shell's text stands for, nil for an empty field (NULL).
    static func date(_ field: String) -> Date? {
        field.isEmpty ? nil : SQLiteDate.date(from: field)
    }

    @Test func everyOrderMatchesTheShell() throws {
        try Self.requireFiles()
        let orders = try Self.fetchOrders()
        #expect(orders.count == 16_704)
        let lines = try Self.shell("SELECT OrderID, Freight, ShippedDate, ShipName FROM Orders ORDER BY OrderID")
        try #require(lines.count == orders.count)
        var mismatches = 0
        for (order, fields) in zip(orders, lines) {
            guard fields.count == 4 else {
                Issue.record("unexpected line \(fields)")
                mismatches += 1
                continue
            }
            let matches =
                Int(fields[0]) == order.orderID && Double(fields[1]) == order.freight
                && Self.date(fields[2]) == order.shippedDate && (fields[2].isEmpty == (order.shippedDate == nil))
                && fields[3] == order.shipName
            if !matches {
                mismatches += 1
                if mismatches <= 5 {
                    Issue.record("order \(order.orderID): shell \(fields), Bindery \(order)")
                }
            }
        }
        #expect(mismatches == 0)
        #expect(orders.compactMap(\.freight).count == 16_704)
    }

    @Test func integerFreightIsNotLost() throws {
        try Self.requireFiles()
        let conn = try Connection(path: try Self.databasePath, options: .init(readOnly: true))
        #expect(
            try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM Orders WHERE typeof(Freight) = 'integer'") == 4_167)
        let integerFreights = try conn.fetchAll(
            Double?.self, sql: "SELECT Freight FROM Orders WHERE typeof(Freight) = 'integer' ORDER BY OrderID")
        #expect(integerFreights.count == 4_167)
        #expect(integerFreights.allSatisfy { $0 != nil })
        let orders = try conn.fetchAll(Order.self, sql: "SELECT * FROM Orders WHERE typeof(Freight) = 'integer'")
        #expect(orders.compactMap(\.freight).count == 4_167)
    }

    @Test func everyOtherColumnMatchesTheShell() throws {
        try Self.requireFiles()
        let orders = try Self.fetchOrders()
        let lines = try Self.shell(
            """
            SELECT OrderID, CustomerID, EmployeeID, OrderDate, RequiredDate, ShipVia, ShipAddress, ShipCity,
                ShipRegion, ShipPostalCode, ShipCountry
            FROM Orders ORDER BY OrderID
            """, extraArguments: ["-nullvalue", "<NULL>"])
        try #require(lines.count == orders.count)
        func text(_ field: String) -> String? { field == "<NULL>" ? nil : field }
        var mismatches = 0
        for (order, fields) in zip(orders, lines) {
            guard fields.count == 11 else {
                Issue.record("unexpected line \(fields)")
                mismatches += 1
                continue
            }
            let matches =
                Int(fields[0]) == order.orderID && text(fields[1]) == order.customerID
                && text(fields[2]).flatMap { Int($0) } == order.employeeID
                && text(fields[3]).flatMap { SQLiteDate.date(from: $0) } == order.orderDate
                && text(fields[4]).flatMap { SQLiteDate.date(from: $0) } == order.requiredDate
                && text(fields[5]).flatMap { Int($0) } == order.shipVia && text(fields[6]) == order.shipAddress
                && text(fields[7]) == order.shipCity && text(fields[8]) == order.shipRegion
                && text(fields[9]) == order.shipPostalCode && text(fields[10]) == order.shipCountry
            if !matches {
                mismatches += 1
                if mismatches <= 5 {
                    Issue.record("order \(order.orderID): shell \(fields), Bindery \(order)")
                }
            }
        }
        #expect(mismatches == 0)
        #expect(orders.filter { $0.orderDate == nil }.isEmpty)
        #expect(orders.filter { $0.shippedDate == nil }.count == 21)
        #expect(orders.filter { $0.shipPostalCode == nil }.count == 196)
    }

    @Test func datesMatchSQLiteFunctions() throws {
        try Self.requireFiles()
        let orders = try Self.fetchOrders()
        let lines = try Self.shell(
            """
            SELECT strftime('%Y-%m-%d %H:%M:%f', OrderDate), strftime('%Y-%m-%d %H:%M:%f', ShippedDate)
            FROM Orders ORDER BY OrderID
            """)
        try #require(lines.count == orders.count)
        var mismatches = 0
        for (order, fields) in zip(orders, lines) {
            let orderDate = order.orderDate.flatMap(SQLiteDate.string(from:)) ?? ""
            let shippedDate = order.shippedDate.flatMap(SQLiteDate.string(from:)) ?? ""
            if fields != [orderDate, shippedDate] {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test func readOnlyConnectionRefusesWrites() throws {
        try Self.requireFiles()
        let conn = try Connection(path: try Self.databasePath, options: .init(readOnly: true))
        // A write that would change nothing even if it ran: the fixture file must never change.
        #expect(throws: SQLiteError.self) {
            try conn.execute("UPDATE Orders SET Freight = Freight WHERE OrderID = \(-1)")
        }
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM Orders") == 16_704)
    }

    /// The fixture keeps what its README promises: every table with its rows, and the mixed storage
    /// classes, date forms and NULLs the decoding tests rely on.
    @Test func fixtureHoldsTheRealMixedData() throws {
        let conn = try Connection(path: try Self.databasePath, options: .init(readOnly: true))
        for (table, count) in NorthwindFixture.rowCounts {
            #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM \(identifier: table)") == count, "\(table)")
        }
        func counts(_ sql: SQL) throws -> [String: Int] {
            var result: [String: Int] = [:]
            for row in try conn.rows(sql) {
                result[try row[0] as String] = try row[1] as Int
            }
            return result
        }
        #expect(
            try counts("SELECT typeof(Freight), count(*) FROM Orders GROUP BY 1") == ["integer": 4_167, "real": 12_537])
        #expect(
            try counts("SELECT typeof(UnitPrice), count(*) FROM \(identifier: "Order Details") GROUP BY 1")
                == ["integer": 10_023, "real": 8_909])
        // Dates as `YYYY-MM-DD` and as `YYYY-MM-DD HH:MM:SS`, and shipped dates that are NULL.
        #expect(
            try counts("SELECT ifnull(CAST(length(ShippedDate) AS TEXT), 'null'), count(*) FROM Orders GROUP BY 1")
                == ["10": 809, "19": 15_874, "null": 21])
        #expect(
            try counts("SELECT CAST(length(OrderDate) AS TEXT), count(*) FROM Orders GROUP BY 1") == [
                "10": 830, "19": 15_874,
            ])
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM Categories WHERE typeof(Picture) = 'blob'") == 8)
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'view'") == 17)
    }
}
