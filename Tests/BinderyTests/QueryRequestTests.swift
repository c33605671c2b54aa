import Foundation
import NorthwindFixture
import Testing

@testable import Bindery

/// Composable requests: filters, orderings, limits, selections, groups; counting, testing, deleting
/// and updating their rows; on a connection, on a database, and observed.
@Suite struct QueryRequestTests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var name: String
        var price: Double
        var category: String

        // Declared, so that requests can name columns by key (a synthesized CodingKeys is private).
        enum CodingKeys: String, CodingKey { case id, name, price, category }
    }

    struct Total: Decodable, Equatable {
        var category: String
        var total: Double
    }

    static func connection() throws -> Connection {
        let conn = try Connection(path: ":memory:")
        try conn.createTable(for: Item.self)
        for (name, price, category) in [
            ("apple", 1.5, "fruit"), ("pear", 2.0, "fruit"), ("leek", 3.0, "vegetable"), ("kale", 4.5, "vegetable"),
            ("salt", 0.5, "spice"),
        ] {
            try conn.insert(Item(id: nil, name: name, price: price, category: category))
        }
        return conn
    }

    @Test func filtersAndTogetherAndValuesAreBound() throws {
        let conn = try Self.connection()
        let hostile = "fruit' OR 1=1 --"
        #expect(try conn.fetchAll(Item.all().filter("category = \(hostile)")).isEmpty)
        let request = Item.all().filter("category = \("vegetable")").filter("price > \(3.5)")
        #expect(try conn.fetchAll(request).map(\.name) == ["kale"])
        #expect(request.description == #"SELECT "items".* FROM "items" WHERE (category = ?) AND (price > ?)"#)
        #expect(request.debugDescription.hasSuffix("-- arguments: [vegetable, 3.5]"))
        #expect(try conn.fetchAll(Item.filter("price < \(1)")).map(\.name) == ["salt"])
    }

    @Test func orderLimitOffsetAndCodingKeys() throws {
        let conn = try Self.connection()
        let byPrice = Item.all().order(Column(Item.CodingKeys.price).desc)
        #expect(try conn.fetchAll(byPrice).map(\.name) == ["kale", "leek", "pear", "apple", "salt"])
        #expect(try conn.fetchAll(byPrice.limit(2, offset: 1)).map(\.name) == ["leek", "pear"])
        #expect(try conn.fetchAll(Item.all().order(Item.CodingKeys.name)).map(\.name).first == "apple")
        let chained = Item.all().order("category").thenOrder("\(column: Item.CodingKeys.price) DESC")
        #expect(try conn.fetchAll(chained).map(\.name) == ["pear", "apple", "salt", "kale", "leek"])
        #expect(try conn.fetchOne(byPrice)?.name == "kale")
        #expect(try conn.fetchOne(Item.all().filter("price > \(100)")) == nil)
        // Each modifier returns a new request: the original is unchanged.
        #expect(byPrice.limitCount == nil)
    }

    @Test func selectGroupHavingIntoAnotherType() throws {
        let conn = try Self.connection()
        let totals = Item.all().select("category, sum(price) AS total").group("category").having("sum(price) > \(3)")
            .order("category")
        #expect(
            try conn.fetchAll(Total.self, totals) == [
                Total(category: "fruit", total: 3.5), Total(category: "vegetable", total: 7.5),
            ])
        #expect(try conn.fetchCount(totals) == 2)
        #expect(try conn.fetchAll(String.self, Item.all().select("DISTINCT category").order("category")).count == 3)
        #expect(try conn.fetchCount(Item.all().select("category").distinct()) == 3)
    }

    @Test func countExistsAndCursor() throws {
        let conn = try Self.connection()
        #expect(try conn.fetchCount(Item.all()) == 5)
        #expect(try conn.fetchCount(Item.all().filter("category = \("fruit")")) == 2)
        #expect(try conn.fetchCount(Item.all().limit(3)) == 3)
        #expect(try conn.fetchCount(Item.all().limit(10, offset: 4)) == 1)
        #expect(try conn.exists(Item.all().filter("name = \("kale")")))
        #expect(try !conn.exists(Item.all().filter("name = \("rice")")))
        let cursor = try conn.fetchCursor(Item.all().order("id"))
        var names: [String] = []
        while let item = try cursor.next() { names.append(item.name) }
        #expect(names == ["apple", "pear", "leek", "kale", "salt"])
    }

    @Test func deleteAndUpdateTheRequestsRows() throws {
        let conn = try Self.connection()
        #expect(try conn.updateAll(Item.all().filter("category = \("fruit")"), set: "price = price * \(2)") == 2)
        #expect(try conn.fetchAll(Item.all().filter("category = \("fruit")").order("id")).map(\.price) == [3, 4])
        #expect(
            try conn.updateAll(Item.all().filter("name = \("salt")"), set: [Column("category").set(to: "mineral")]) == 1
        )
        #expect(try conn.fetchOne(Item.all().filter("name = \("salt")"))?.category == "mineral")
        // A limited request deletes only its own rows (by primary key).
        #expect(try conn.deleteAll(Item.all().order("price DESC").limit(2)) == 2)
        #expect(try conn.fetchAll(Item.all().order("id")).map(\.name) == ["apple", "leek", "salt"])
        #expect(try conn.deleteAll(Item.all().filter("price < \(1)")) == 1)
        #expect(try conn.deleteAll(Item.all()) == 2)
        #expect(try conn.fetchCount(Item.all()) == 0)
    }

    @Test func sameSQLAsTheFetchBySQL() throws {
        let conn = try Self.connection()
        let request = Item.all().filter("price >= \(2)").order("name").limit(3)
        let bySQL = try conn.fetchAll(
            Item.self, sql: "SELECT \"items\".* FROM \"items\" WHERE price >= \(2) ORDER BY name LIMIT 3")
        #expect(try conn.fetchAll(request) == bySQL)
        #expect(try conn.sql(for: request).text == request.description)
    }

    @Test func databaseMethodsAndObservation() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in try conn.createTable(for: Item.self) }
        try await db.insert(Item(id: nil, name: "apple", price: 1.5, category: "fruit"))
        let fruit = Item.all().filter("category = \("fruit")").order("name")
        #expect(try await db.fetchAll(fruit).map(\.name) == ["apple"])
        #expect(try await db.fetchOne(fruit)?.name == "apple")
        #expect(try await db.fetchAll(String.self, fruit.select("name")) == ["apple"])
        #expect(try await db.fetchCount(fruit) == 1)
        #expect(try await db.exists(fruit))
        var names: [String] = []
        for try await name in db.fetchCursor(String.self, fruit.select("name")) { names.append(name) }
        #expect(names == ["apple"])

        var iterator = db.observe(fruit).makeAsyncIterator()
        #expect(try await iterator.next()?.map(\.name) == ["apple"])
        try await db.insert(Item(id: nil, name: "pear", price: 2, category: "fruit"))
        #expect(try await iterator.next()?.map(\.name) == ["apple", "pear"])
        #expect(try await db.updateAll(fruit, set: "price = \(0)") == 2)
        #expect(try await iterator.next()?.map(\.price) == [0, 0])
        #expect(try await db.deleteAll(fruit.filter("name = \("pear")")) == 1)
        #expect(try await iterator.next()?.map(\.name) == ["apple"])
    }

    @Test func northwindRequestMatchesSQL() async throws {
        struct Order: Record, Equatable {
            static let tableName = "Orders"
            static let primaryKey = ["OrderID"]
            var OrderID: Int
            var CustomerID: String?
            var Freight: Double?
            var ShipCountry: String?
        }
        let db = try Database(path: NorthwindFixture.databasePath(), options: .init(readOnly: true))
        let request = Order.all().filter("ShipCountry = \("France")").filter("Freight > \(50)").order("OrderID")
        let bySQL = try await db.fetchAll(
            Order.self, sql: "SELECT * FROM Orders WHERE ShipCountry = \("France") AND Freight > \(50) ORDER BY OrderID"
        )
        #expect(!bySQL.isEmpty)
        #expect(try await db.fetchAll(request) == bySQL)
        #expect(try await db.fetchCount(request) == bySQL.count)
    }
}
