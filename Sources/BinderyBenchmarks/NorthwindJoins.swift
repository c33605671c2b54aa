import Bindery
import CSQLite
import Foundation

/// A row of Northwind's `Customers`: 11 columns of optional text.
struct JoinedCustomer: Record, Equatable {
    static let tableName = "Customers"
    static let primaryKey = ["CustomerID"]
    var CustomerID: String
    var CompanyName: String?
    var ContactName: String?
    var ContactTitle: String?
    var Address: String?
    var City: String?
    var Region: String?
    var PostalCode: String?
    var Country: String?
    var Phone: String?
    var Fax: String?
}

/// A row of Northwind's `Employees` without its photo (12 KB of BLOB that would only measure copying):
/// 17 columns, two of them dates.
struct JoinedEmployee: Record, Equatable {
    static let tableName = "Employees"
    static let primaryKey = ["EmployeeID"]
    var EmployeeID: Int
    var LastName: String?
    var FirstName: String?
    var Title: String?
    var TitleOfCourtesy: String?
    var BirthDate: Date?
    var HireDate: Date?
    var Address: String?
    var City: String?
    var Region: String?
    var PostalCode: String?
    var Country: String?
    var HomePhone: String?
    var Extension: String?
    var Notes: String?
    var ReportsTo: Int?
    var PhotoPath: String?
}

/// `Orders` as a record, with the same 14 columns as ``Order``.
struct JoinedOrder: Record, Equatable {
    static let tableName = "Orders"
    static let primaryKey = ["OrderID"]
    var OrderID: Int
    var CustomerID: String?
    var EmployeeID: Int?
    var OrderDate: Date?
    var RequiredDate: Date?
    var ShippedDate: Date?
    var ShipVia: Int?
    var Freight: Double?
    var ShipName: String?
    var ShipAddress: String?
    var ShipCity: String?
    var ShipRegion: String?
    var ShipPostalCode: String?
    var ShipCountry: String?
}

/// One joined row: an order with its customer and its employee, each a record of its own.
struct OrderWithParties: Decodable, Equatable {
    var order: JoinedOrder
    var customer: JoinedCustomer
    var employee: JoinedEmployee
}

/// Every order joined to its customer and employee, decoded into three nested records by the
/// automatic rule, beside a C loop building the same structs.
enum NorthwindJoins {
    static let sql = """
        SELECT o.*, c.*, e.EmployeeID, e.LastName, e.FirstName, e.Title, e.TitleOfCourtesy, e.BirthDate, e.HireDate,
        e.Address, e.City, e.Region, e.PostalCode, e.Country, e.HomePhone, e.Extension, e.Notes, e.ReportsTo,
        e.PhotoPath
        FROM Orders o JOIN Customers c ON c.CustomerID = o.CustomerID JOIN Employees e ON e.EmployeeID = o.EmployeeID
        """

    static func run(_ benchmark: Benchmark, path: String) throws {
        let conn = try Connection(path: path, options: .init(readOnly: true))
        let raw = try RawDatabase(path: path, readOnly: true)
        let statement = try raw.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var binderyCount = 0
        var rawCount = 0
        let ratio = benchmark.compare(
            "joined Orders, Customers, Employees (3 records)", goal: 1.2,
            baseline: {
                rawCount = decodeByHand(statement).count
            },
            bindery: {
                binderyCount = (try? conn.fetchAll(OrderWithParties.self, sql: SQL(stringLiteral: sql)).count) ?? -1
            })
        // Not selected by --only: nothing ran, nothing to check (and no time spent for the other lines).
        guard ratio > 0 else { return }
        guard binderyCount == rawCount && rawCount == 16_704 else {
            throw BenchmarkError.mismatch("joined Orders: Bindery decoded \(binderyCount) rows, the C loop \(rawCount)")
        }
        let byHand = decodeByHand(statement)
        let byBindery = try conn.fetchAll(OrderWithParties.self, sql: SQL(stringLiteral: sql))
        guard byHand == byBindery else {
            throw BenchmarkError.mismatch("joined Orders: Bindery and the C loop decoded different values")
        }
    }

    /// The floor under any Codable decoder of these rows: the same C loop's rows, each decoded by the
    /// synthesized `init(from:)`s through ``BareRowDecoder`` (every value the next column), against
    /// the C loop. No goal: it says how low a goal for the joined line can be.
    static func runFloor(_ benchmark: Benchmark, path: String) throws {
        let raw = try RawDatabase(path: path, readOnly: true)
        let statement = try raw.prepare(sql)
        defer { sqlite3_finalize(statement) }
        let decoder = BareRowDecoder(statement: statement)
        var bareCount = 0
        let ratio = try benchmark.compare(
            "the floor for joined rows: the C loop's rows through a bare Decoder", goal: nil,
            baselineName: "C API", binderyName: "bare Decoder",
            baseline: {
                _ = decodeByHand(statement).count
            },
            bindery: {
                bareCount = try decoder.decodeAll(OrderWithParties.self).count
            })
        guard ratio > 0 else { return }
        guard bareCount == 16_704, try decoder.decodeAll(OrderWithParties.self) == decodeByHand(statement) else {
            throw BenchmarkError.mismatch("joined Orders: the bare Decoder and the C loop decoded different values")
        }
    }

    /// The C loop: every column read with `sqlite3_column_*` at its known index, NULLs checked,
    /// dates parsed.
    static func decodeByHand(_ statement: OpaquePointer) -> [OrderWithParties] {
        var rows: [OrderWithParties] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let order = JoinedOrder(
                OrderID: Int(sqlite3_column_int64(statement, 0)),
                CustomerID: text(statement, 1),
                EmployeeID: integer(statement, 2),
                OrderDate: date(statement, 3),
                RequiredDate: date(statement, 4),
                ShippedDate: date(statement, 5),
                ShipVia: integer(statement, 6),
                Freight: real(statement, 7),
                ShipName: text(statement, 8),
                ShipAddress: text(statement, 9),
                ShipCity: text(statement, 10),
                ShipRegion: text(statement, 11),
                ShipPostalCode: text(statement, 12),
                ShipCountry: text(statement, 13))
            let customer = JoinedCustomer(
                CustomerID: text(statement, 14) ?? "",
                CompanyName: text(statement, 15),
                ContactName: text(statement, 16),
                ContactTitle: text(statement, 17),
                Address: text(statement, 18),
                City: text(statement, 19),
                Region: text(statement, 20),
                PostalCode: text(statement, 21),
                Country: text(statement, 22),
                Phone: text(statement, 23),
                Fax: text(statement, 24))
            let employee = JoinedEmployee(
                EmployeeID: Int(sqlite3_column_int64(statement, 25)),
                LastName: text(statement, 26),
                FirstName: text(statement, 27),
                Title: text(statement, 28),
                TitleOfCourtesy: text(statement, 29),
                BirthDate: date(statement, 30),
                HireDate: date(statement, 31),
                Address: text(statement, 32),
                City: text(statement, 33),
                Region: text(statement, 34),
                PostalCode: text(statement, 35),
                Country: text(statement, 36),
                HomePhone: text(statement, 37),
                Extension: text(statement, 38),
                Notes: text(statement, 39),
                ReportsTo: integer(statement, 40),
                PhotoPath: text(statement, 41))
            rows.append(OrderWithParties(order: order, customer: customer, employee: employee))
        }
        sqlite3_reset(statement)
        return rows
    }
}
