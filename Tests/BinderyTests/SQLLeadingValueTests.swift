import Foundation
import Testing

@testable import Bindery

/// The first value of an interpolation, when it is an `Int` or an `Int64`, is kept as an integer
/// beside the array of the others (issue 39): every way of building, joining, binding, showing and
/// writing out `SQL` sees it as the first value, in its place.
@Suite struct SQLLeadingValueTests {
    /// The values SQLite received for `sql`'s placeholders, read back as one row.
    static func bound(_ sql: SQL, on conn: Connection) throws -> [SQLiteValue] {
        try conn.rows(sql).first?.values ?? []
    }

    @Test func eachLeadingTypeBindsAsTheEncoderConvertsIt() throws {
        let conn = try Connection.inMemory()
        let big = Int64.max
        #expect(try Self.bound("SELECT \(7)", on: conn) == [.integer(7)])
        #expect(try Self.bound("SELECT \(big)", on: conn) == [.integer(.max)])
        #expect(try Self.bound("SELECT \("it's")", on: conn) == [.text("it's")])
        // Other first values take the general path, unchanged.
        #expect(try Self.bound("SELECT \(2.5)", on: conn) == [.real(2.5)])
        #expect(try Self.bound("SELECT \(true)", on: conn) == [.integer(1)])
        #expect(try Self.bound("SELECT \(Int32(3))", on: conn) == [.integer(3)])
        let missing: Int? = nil
        #expect(try Self.bound("SELECT \(missing)", on: conn) == [.null])
    }

    @Test func leadingValueKeepsItsPlaceWhenFragmentsJoin() throws {
        let conn = try Connection.inMemory()
        let first: SQL = "SELECT \(1), \("b")"
        #expect(try Self.bound(first + ", \(3)", on: conn) == [.integer(1), .text("b"), .integer(3)])
        // A fragment whose only value leads, after one without values and after one with values.
        var built = SQL(stringLiteral: "SELECT ")
        built += "\(4)"
        built += ", \("e")"
        built += SQL(text: ", ?", values: [6])
        #expect(try Self.bound(built, on: conn) == [.integer(4), .text("e"), .integer(6)])
        // Embedded: the inner fragment's leading value after the outer one's, and as the first value.
        let inner: SQL = "\(20)"
        #expect(
            try Self.bound("SELECT \(10), \(inner), \(30)", on: conn) == [.integer(10), .integer(20), .integer(30)])
        #expect(try Self.bound("SELECT \(inner), \("x")", on: conn) == [.integer(20), .text("x")])
        #expect((first + ", \(3)").valueCount == 3)
        #expect(SQL(stringLiteral: "SELECT 1").valueCount == 0)
    }

    @Test func listPaddingCountsTheLeadingValue() throws {
        let conn = try Connection.inMemory()
        // Three elements padded to four placeholders, after a leading value: the pad starts at value 4.
        let sql: SQL = "SELECT \(5) WHERE 1 IN \(list: [1, 2, 3]) AND \("z") = 'z'"
        #expect(sql.valueCount == 6)
        #expect(try Self.bound("SELECT \(5), 1 IN \(list: [1, 2, 3]), \("z")", on: conn).count == 3)
        #expect(try conn.rows(sql).count == 1)
        let written = try sql.inlined(encoder: ValueEncoder(options: CodingOptions()))
        #expect(written == "SELECT 5 WHERE 1 IN (1, 2, 3) AND 'z' = 'z'")
    }

    struct Item: Record {
        static let tableName = "items"
        var id: Int64
        var name: String
    }

    @Test func requestsShowAndBindTheLeadingValues() throws {
        let conn = try Connection.inMemory()
        try conn.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT)")
        try conn.insert(contentsOf: [Item(id: 1, name: "a"), Item(id: 2, name: "b"), Item(id: 3, name: "b")])
        let request = Item.filter("name = \("b")").filter("id > \(2)")
        #expect(request.debugDescription.hasSuffix("-- arguments: [b, 2]"))
        #expect(try conn.fetchAll(request).map(\.id) == [3])
        // The same texts with other leading values: the kept statement, bound again.
        #expect(try conn.fetchAll(Item.filter("name = \("a")").filter("id > \(0)")).map(\.id) == [1])
        #expect(try conn.count(Item.self, where: "name = \("b")") == 2)
        #expect(try conn.exists(Item.self, where: "id = \(Int64(3))"))
        #expect(try !conn.exists(Item.self, where: "id = \(4)"))
    }
}
