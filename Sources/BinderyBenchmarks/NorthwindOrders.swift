import Bindery
import CSQLite
import Foundation

/// A row of Northwind's `Orders`: 14 columns, mostly optional text, dates as text.
struct Order: Decodable, Equatable {
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

/// Decoding all of `Orders`, with `Connection.fetchAll` and with a hand-written C API loop.
enum NorthwindOrders {
    static let sql = "SELECT * FROM Orders"

    static func run(_ benchmark: Benchmark, path: String) throws {
        let conn = try Connection(path: path, options: .init(readOnly: true))
        let raw = try RawDatabase(path: path, readOnly: true)
        let statement = try raw.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var binderyCount = 0
        var rawCount = 0
        benchmark.compare(
            "decode Northwind Orders (16,704 rows, 14 columns)", goal: 1.5,
            baseline: {
                rawCount = decodeByHand(statement).count
            },
            bindery: {
                binderyCount = (try? conn.fetchAll(Order.self, sql: "SELECT * FROM Orders").count) ?? -1
            })
        guard benchmark.only != nil || (binderyCount == rawCount && rawCount == 16_704) else {
            throw BenchmarkError.mismatch("Orders: Bindery decoded \(binderyCount) rows, the C loop \(rawCount)")
        }
        let byHand = decodeByHand(statement)
        let byBindery = try conn.fetchAll(Order.self, sql: "SELECT * FROM Orders")
        guard byHand == byBindery else {
            throw BenchmarkError.mismatch("Orders: Bindery and the C loop decoded different values")
        }
    }

    /// The C loop: every column read with `sqlite3_column_*`, NULLs checked, dates parsed.
    static func decodeByHand(_ statement: OpaquePointer) -> [Order] {
        var orders: [Order] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            orders.append(
                Order(
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
                    ShipCountry: text(statement, 13)))
        }
        sqlite3_reset(statement)
        return orders
    }
}

@inline(__always)
func text(_ statement: OpaquePointer, _ column: Int32) -> String? {
    guard sqlite3_column_type(statement, column) == SQLITE_TEXT, let bytes = sqlite3_column_text(statement, column)
    else { return nil }
    let count = Int(sqlite3_column_bytes(statement, column))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

@inline(__always)
func integer(_ statement: OpaquePointer, _ column: Int32) -> Int? {
    sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(statement, column))
}

@inline(__always)
func real(_ statement: OpaquePointer, _ column: Int32) -> Double? {
    sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
}

@inline(__always)
func date(_ statement: OpaquePointer, _ column: Int32) -> Date? {
    guard sqlite3_column_type(statement, column) == SQLITE_TEXT, let bytes = sqlite3_column_text(statement, column)
    else { return nil }
    let count = Int(sqlite3_column_bytes(statement, column))
    return SQLiteDate.date(fromUTF8: UnsafeBufferPointer(start: bytes, count: count))
}
