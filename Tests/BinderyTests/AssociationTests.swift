import Foundation
import NorthwindFixture
import Testing

@testable import Bindery

/// Associations on the Northwind fixture and on small tables: to-one by JOIN (required and optional,
/// self-joins), to-many by one more query grouped by key, many-to-many, filters on associated
/// columns, counts and aggregates, composite keys, the Database paths and observation.
@Suite struct AssociationTests {
    struct Order: Record, Equatable {
        static let tableName = "Orders"
        static let primaryKey = ["OrderID"]
        var OrderID: Int
        var CustomerID: String?
        var EmployeeID: Int?
        var Freight: Double?
        var ShipCountry: String?

        static let customer = belongsTo(Customer.self)
        static let employee = belongsTo(Employee.self)
        static let products = hasMany(Product.self, through: OrderDetail.self)
    }

    struct Customer: Record, Equatable {
        static let tableName = "Customers"
        static let primaryKey = ["CustomerID"]
        var CustomerID: String
        var CompanyName: String?
        var Country: String?

        static let orders = hasMany(Order.self)
    }

    struct Employee: Record, Equatable {
        static let tableName = "Employees"
        static let primaryKey = ["EmployeeID"]
        var EmployeeID: Int
        var LastName: String?
        var ReportsTo: Int?

        static let manager = belongsTo(Employee.self, key: "manager")
        static let reports = hasMany(Employee.self, key: "reports")
    }

    struct OrderDetail: Record, Equatable {
        static let tableName = "Order Details"
        static let primaryKey = ["OrderID", "ProductID"]
        var OrderID: Int
        var ProductID: Int
        var Quantity: Int
    }

    struct Product: Record, Equatable, Hashable {
        static let tableName = "Products"
        static let primaryKey = ["ProductID"]
        var ProductID: Int
        var ProductName: String
    }

    static func northwind() throws -> Connection {
        try Connection(path: NorthwindFixture.databasePath(), options: .init(readOnly: true))
    }

    @Test func toOneRequiredAndOptionalInOneQuery() throws {
        struct OrderInfo: Decodable {
            var order: Order
            var customer: Customer
            var employee: Employee?
        }
        let conn = try Self.northwind()
        let request = Order.all().including(required: Order.customer).including(optional: Order.employee)
            .order("\(Column("OrderID", table: "Orders"))")
        let infos = try conn.fetchAll(OrderInfo.self, request)
        let expected = try conn.fetchOne(
            Int.self, sql: "SELECT count(*) FROM Orders JOIN Customers USING (CustomerID)")
        #expect(infos.count == expected)
        #expect(infos.allSatisfy { $0.order.CustomerID == $0.customer.CustomerID })
        #expect(infos.allSatisfy { $0.order.EmployeeID == $0.employee?.EmployeeID })
        let customers = Dictionary(uniqueKeysWithValues: try conn.fetchAll(Customer.self).map { ($0.CustomerID, $0) })
        #expect(infos.allSatisfy { customers[$0.customer.CustomerID] == $0.customer })
        // The request's record alone decodes from the same rows: the joined columns are not its own.
        let orders = try conn.fetchAll(request)
        #expect(orders == infos.map(\.order))
        let sql = try conn.sql(for: request).text
        #expect(sql.contains(#"JOIN "Customers" AS "customer" ON "customer"."CustomerID" = "Orders"."CustomerID""#))
        #expect(sql.contains(#"LEFT JOIN "Employees" AS "employee""#))
    }

    @Test func selfJoinWithLeftJoinMiss() throws {
        struct Managed: Decodable {
            var employee: Employee
            var manager: Employee?
        }
        let conn = try Self.northwind()
        let rows = try conn.fetchAll(
            Managed.self, Employee.all().including(optional: Employee.manager).order("\"Employees\".EmployeeID"))
        let employees = try conn.fetchAll(Employee.self, orderBy: "EmployeeID")
        #expect(rows.map(\.employee) == employees)
        let byID = Dictionary(uniqueKeysWithValues: employees.map { ($0.EmployeeID, $0) })
        #expect(rows.allSatisfy { $0.manager == $0.employee.ReportsTo.flatMap { byID[$0] } })
        #expect(rows.contains { $0.manager == nil })
        #expect(rows.contains { $0.manager != nil })
        // Required: the employee without a manager is left out.
        let managed = try conn.fetchAll(Managed.self, Employee.including(required: Employee.manager))
        #expect(managed.count == employees.filter { $0.ReportsTo != nil }.count)
    }

    @Test func toManyGroupedByKeyInTwoQueries() throws {
        struct CustomerInfo: Decodable {
            var customer: Customer
            var orders: [Order]
        }
        let conn = try Self.northwind()
        let request = Customer.all().including(all: Customer.orders.order("\(Customer.orders.column("OrderID"))"))
            .order("CustomerID")
        let infos = try conn.fetchAll(CustomerInfo.self, request)
        // Again on the same connection: the cached statement gets the new fetch's records.
        #expect(try conn.fetchAll(CustomerInfo.self, request).map(\.orders) == infos.map(\.orders))
        let customers = try conn.fetchAll(Customer.self, orderBy: "CustomerID")
        #expect(infos.map(\.customer) == customers)
        let orders = try conn.fetchAll(Order.self, orderBy: "OrderID")
        let grouped = Dictionary(grouping: orders, by: { $0.CustomerID ?? "" })
        #expect(infos.allSatisfy { $0.orders == grouped[$0.customer.CustomerID, default: []] })
        #expect(
            infos.map(\.orders.count).reduce(0, +)
                == orders.filter { $0.CustomerID != nil && grouped[$0.CustomerID!] != nil }.count)
        // fetchOne and fetchCursor give the same rows.
        let first = try conn.fetchOne(CustomerInfo.self, request)
        #expect(first?.customer == infos.first?.customer && first?.orders == infos.first?.orders)
        let cursor = try conn.fetchCursor(CustomerInfo.self, request)
        var count = 0
        while let info = try cursor.next() {
            #expect(info.orders == infos[count].orders)
            count += 1
        }
        #expect(count == infos.count)
    }

    @Test func selfReferencingToMany() throws {
        struct Boss: Decodable {
            var employee: Employee
            var reports: [Employee]
        }
        let conn = try Self.northwind()
        let bosses = try conn.fetchAll(Boss.self, Employee.all().including(all: Employee.reports))
        let employees = try conn.fetchAll(Employee.self)
        for boss in bosses {
            let expected = employees.filter { $0.ReportsTo == boss.employee.EmployeeID }
            #expect(Set(boss.reports.map(\.EmployeeID)) == Set(expected.map(\.EmployeeID)))
        }
        #expect(bosses.contains { !$0.reports.isEmpty })
    }

    @Test func manyToManyThroughJoinTable() throws {
        struct OrderProducts: Decodable {
            var order: Order
            var products: [Product]
        }
        let conn = try Self.northwind()
        let rows = try conn.fetchAll(OrderProducts.self, Order.all().including(all: Order.products).limit(50))
        #expect(rows.count == 50)
        for row in rows.prefix(10) {
            let expected = try conn.fetchAll(
                Int.self, sql: "SELECT ProductID FROM \"Order Details\" WHERE OrderID = \(row.order.OrderID)")
            #expect(Set(row.products.map(\.ProductID)) == Set(expected))
        }
        struct Counted: Decodable {
            var n: Int
        }
        let counted = try conn.fetchAll(
            Counted.self, Order.all().annotated(with: Order.products.count.forKey("n")).limit(50))
        #expect(counted.map(\.n) == rows.map(\.products.count))
    }

    @Test func filterAndOrderByAssociatedColumns() throws {
        let conn = try Self.northwind()
        let country = Order.customer.column("Country")
        let french = Order.all().joining(required: Order.customer).filter("\(country) = \("France")")
            .order("\(Order.customer.column("CompanyName")), \(Column("OrderID", table: "Orders"))")
        let orders = try conn.fetchAll(french)
        let expected = try conn.fetchAll(
            Order.self,
            sql: """
                SELECT o.* FROM Orders o JOIN Customers c ON c.CustomerID = o.CustomerID
                WHERE c.Country = \("France") ORDER BY c.CompanyName, o.OrderID
                """)
        #expect(!orders.isEmpty)
        #expect(orders == expected)
        #expect(try conn.fetchCount(french) == expected.count)
        #expect(try conn.exists(french))
        // A filtered to-many join: customers with an order whose freight exceeds 500, each once.
        let big = Customer.all()
            .joining(required: Customer.orders.filter("\(Customer.orders.column("Freight")) > \(500)")).distinct()
        let bigSQL = try conn.fetchAll(
            Customer.self,
            sql: """
                SELECT * FROM Customers WHERE CustomerID IN (SELECT CustomerID FROM Orders WHERE Freight > \(500))
                """)
        #expect(Set(try conn.fetchAll(big).map(\.CustomerID)) == Set(bigSQL.map(\.CustomerID)))
    }

    @Test func countsAndAggregatesIntoProperties() throws {
        struct CustomerCount: Decodable {
            var customer: Customer
            var orderCount: Int
            var orderFreightSum: Double?
        }
        let conn = try Self.northwind()
        let rows = try conn.fetchAll(
            CustomerCount.self,
            Customer.all().annotated(with: Customer.orders.count, Customer.orders.sum("Freight")).order("CustomerID"))
        let orders = try conn.fetchAll(Order.self)
        let grouped = Dictionary(grouping: orders, by: { $0.CustomerID ?? "" })
        #expect(rows.count == (try conn.count(Customer.self)))
        for row in rows {
            let own = grouped[row.customer.CustomerID, default: []]
            #expect(row.orderCount == own.count)
            if own.isEmpty {
                #expect(row.orderFreightSum == nil)
            } else {
                #expect(abs((row.orderFreightSum ?? 0) - own.compactMap(\.Freight).reduce(0, +)) < 0.001)
            }
        }
        // Having on an annotation.
        let busy = Customer.all().annotated(with: Customer.orders.count).filter("orderCount > \(200)")
        #expect(try conn.fetchAll(busy).count == grouped.filter { $0.value.count > 200 && !$0.key.isEmpty }.count)
        #expect(try conn.fetchCount(busy) == grouped.filter { $0.value.count > 200 && !$0.key.isEmpty }.count)
        #expect(try conn.fetchCount(busy) == 7)
        #expect(try conn.exists(busy))
        #expect(
            try !conn.exists(Customer.all().annotated(with: Customer.orders.count).filter("orderCount > \(100_000)")))
    }

    // MARK: Small tables of their own: composite keys

    struct Shelf: Record, Equatable {
        static let tableName = "shelves"
        static let primaryKey = ["room", "number"]
        var room: String
        var number: Int
        var label: String

        static let books = hasMany(Book.self)
    }

    struct Book: Record, Equatable {
        static let tableName = "books"
        var id: Int64
        var title: String
        var room: String?
        var shelfNumber: Int?

        static let shelf = belongsTo(Shelf.self)
    }

    static func library() throws -> Connection {
        let conn = try Connection(path: ":memory:")
        try conn.execute(
            script: """
                CREATE TABLE shelves (room TEXT, number INTEGER, label TEXT NOT NULL, PRIMARY KEY (room, number));
                CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, room TEXT, shelfNumber INTEGER,
                    FOREIGN KEY (room, shelfNumber) REFERENCES shelves (room, number));
                INSERT INTO shelves VALUES ('north', 1, 'N1'), ('north', 2, 'N2'), ('south', 1, 'S1'), ('west', 9, 'W9');
                INSERT INTO books VALUES (1, 'Dune', 'north', 1), (2, 'Emma', 'south', 1), (3, 'Ulysses', 'north', 1),
                    (4, 'Loose', NULL, NULL), (5, 'Kim', 'north', 2);
                """)
        return conn
    }

    @Test func compositeKeysToOneAndToMany() throws {
        struct BookInfo: Decodable, Equatable {
            var book: Book
            var shelf: Shelf?
        }
        struct ShelfInfo: Decodable {
            var shelf: Shelf
            var books: [Book]
        }
        let conn = try Self.library()
        let books = try conn.fetchAll(BookInfo.self, Book.all().including(optional: Book.shelf).order("id"))
        #expect(books.map(\.shelf?.label) == ["N1", "S1", "N1", nil, "N2"])
        let shelves = try conn.fetchAll(ShelfInfo.self, Shelf.including(all: Shelf.books).order("label"))
        #expect(shelves.map(\.shelf.label) == ["N1", "N2", "S1", "W9"])
        #expect(shelves.map { $0.books.map(\.title).sorted() } == [["Dune", "Ulysses"], ["Kim"], ["Emma"], []])
        struct ShelfCount: Decodable {
            var label: String
            var bookCount: Int
        }
        let counts = try conn.fetchAll(ShelfCount.self, Shelf.all().annotated(with: Shelf.books.count).order("label"))
        #expect(counts.map(\.bookCount) == [2, 1, 1, 0])
        // Composite keys beyond one statement's parameters: chunked, every row still found.
        for number in 3...700 {
            try conn.execute("INSERT INTO shelves VALUES (\("east"), \(number), \("E\(number)"))")
            try conn.execute("INSERT INTO books VALUES (\(number + 10), \("b\(number)"), \("east"), \(number))")
        }
        let many = try conn.fetchAll(ShelfInfo.self, Shelf.including(all: Shelf.books))
        #expect(many.count == 702)
        #expect(many.filter { $0.books.isEmpty }.map(\.shelf.label) == ["W9"])
        #expect(many.map(\.books.count).reduce(0, +) == 702)
        // Deleting by a condition on a count: the shelves without books, by their composite keys.
        let empty = Shelf.all().annotated(with: Shelf.books.count).filter("bookCount = \(0)")
        #expect(try conn.fetchCount(empty) == 1)
        #expect(try conn.deleteAll(empty) == 1)
        #expect(try conn.fetchCount(Shelf.all()) == 701)
    }

    struct User: Record, Equatable {
        static let tableName = "users"
        var id: Int64
        var name: String

        static let profile = hasOne(Profile.self)
    }

    struct Profile: Record, Equatable {
        static let tableName = "profiles"
        var id: Int64
        var userId: Int64
        var bio: String
    }

    @Test func hasOneWhereTheOtherTableHoldsTheKey() throws {
        struct UserInfo: Decodable, Equatable {
            var user: User
            var profile: Profile?
        }
        let conn = try Connection(path: ":memory:")
        try conn.execute(
            script: """
                CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE profiles (id INTEGER PRIMARY KEY, userId INTEGER NOT NULL UNIQUE REFERENCES users,
                    bio TEXT NOT NULL);
                INSERT INTO users VALUES (1, 'Ann'), (2, 'Bob');
                INSERT INTO profiles VALUES (10, 2, 'hello');
                """)
        let all = try conn.fetchAll(UserInfo.self, User.including(optional: User.profile).order("\"users\".id"))
        #expect(all.map(\.profile?.bio) == [nil, "hello"])
        #expect(all.map(\.user.name) == ["Ann", "Bob"])
        let required = try conn.fetchAll(UserInfo.self, User.including(required: User.profile))
        #expect(required.map(\.user.name) == ["Bob"])
        #expect(required.first?.profile?.id == 10)
    }

    @Test func databasePathsAndObservationOfARequestWithAssociations() async throws {
        struct ShelfInfo: Decodable, Sendable {
            var shelf: Shelf
            var books: [Book]
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("assoc-\(UUID().uuidString).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try Database(path: path)
        try await db.write { conn in
            try conn.execute(
                script: """
                    CREATE TABLE shelves (room TEXT, number INTEGER, label TEXT NOT NULL, PRIMARY KEY (room, number));
                    CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, room TEXT, shelfNumber INTEGER,
                        FOREIGN KEY (room, shelfNumber) REFERENCES shelves (room, number));
                    INSERT INTO shelves VALUES ('north', 1, 'N1');
                    """)
        }
        let request = Shelf.including(all: Shelf.books.order("id"))
        #expect(try await db.fetchAll(ShelfInfo.self, request).map(\.books) == [[]])
        #expect(try await db.fetchOne(ShelfInfo.self, request)?.shelf.label == "N1")
        var iterator = db.observe(ShelfInfo.self, request).makeAsyncIterator()
        #expect(try await iterator.next()?.first?.books == [])
        // A write to the associated table alone wakes the observation.
        try await db.insert(Book(id: 1, title: "Dune", room: "north", shelfNumber: 1))
        #expect(try await iterator.next()?.first?.books.map(\.title) == ["Dune"])
        var titles: [String] = []
        for try await info in db.fetchCursor(ShelfInfo.self, request) { titles += info.books.map(\.title) }
        #expect(titles == ["Dune"])
        #expect(try await db.fetchCount(Book.all().joining(required: Book.shelf)) == 1)
        #expect(
            try await db.deleteAll(
                Book.all().joining(required: Book.shelf).filter("\(Book.shelf.column("label")) = \("N1")")) == 1)
        #expect(try await db.fetchCount(Book.all()) == 0)
    }
}
