// What the blocks of README.md take for granted. `Student` is declared in README.md itself.

let student = Student(id: nil, name: "Bo", year: 2024, enrolledAt: .now, tags: [])
let manyStudents = (1...100).map { Student(id: nil, name: "Student \($0)", year: 2024, enrolledAt: .now, tags: []) }
let name = "Ana"

/// A record of another table than `students`.
struct Course: Record {
    static let tableName = "courses"

    var id: Int64?
    var title: String
}

let course = Course(id: nil, title: "Databases")

/// The parsed command line of the `accounts` example.
struct Invocation {
    var databasePath = "accounts.sqlite"
    var templatePath = "accounts-template.sqlite"
}

let invocation = Invocation()

/// The records of the joined-rows section.
struct Book: Record {
    static let tableName = "books"
    var id: Int64
    var title: String
}

struct Member: Record {
    static let tableName = "members"
    var id: Int64
    var name: String
}

struct Loan: Record {
    static let tableName = "loans"
    var id: Int64
    var bookId: Int64
    var memberId: Int64?
}

struct Employee: Record {
    static let tableName = "Employees"
    static let primaryKey = ["EmployeeID"]
    var EmployeeID: Int
    var LastName: String
    var ReportsTo: Int?
}

/// The records of the requests-and-associations section (Northwind's tables).
struct Customer: Record {
    static let tableName = "Customers"
    static let primaryKey = ["CustomerID"]
    var CustomerID: String
    var CompanyName: String
}

struct Order: Record {
    static let tableName = "Orders"
    static let primaryKey = ["OrderID"]
    var OrderID: Int64
    var CustomerID: String?
    var Freight: Double
    var ShipCountry: String?
}

/// The app's migrations, in the "Beyond one machine" section.
let appMigrator = Migrator()
