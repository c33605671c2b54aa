import Foundation
import Testing

@testable import Bindery

/// `exists(_:id:)`: whether a row has a single-column primary key, with the key checks of
/// `find(_:id:)` and `delete(_:id:)`.
@Suite struct ExistsByIDTests {
    struct Book: Record, Equatable {
        static let tableName = "books"
        var id: Int64?
        var title: String
    }

    struct Member: Record, Equatable {
        var id: UUID
        var name: String
    }

    /// A key column that is not named `id`, spelt in another case in the schema.
    struct Country: Record, Equatable {
        static let primaryKey = ["code"]
        var code: String
        var name: String
    }

    struct Enrollment: Record, Equatable {
        static let primaryKey = ["studentID", "courseID"]
        var studentID: Int
        var courseID: String
    }

    static func setUp() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Book.self)
        try conn.createTable(for: Member.self)
        try conn.execute(script: "CREATE TABLE country (CODE TEXT PRIMARY KEY, name TEXT NOT NULL)")
        try conn.createTable(for: Enrollment.self)
        return conn
    }

    @Test func findsStoredKeysOnly() throws {
        let conn = try Self.setUp()
        let book = try conn.insert(Book(id: nil, title: "Dune"))
        let id = try #require(book.id)
        #expect(try conn.exists(Book.self, id: id))
        #expect(try conn.exists(Book.self, id: Int(id)))
        #expect(try conn.exists(Book.self, id: Int32(id)))
        #expect(try conn.exists(Book.self, id: Int64?(id)))
        #expect(try !conn.exists(Book.self, id: id + 1))
        // A nil key matches no row, as `= NULL` says.
        #expect(try !conn.exists(Book.self, id: Int64?.none))
        try conn.delete(Book.self, id: id)
        #expect(try !conn.exists(Book.self, id: id))
    }

    @Test func namedKeyColumn() throws {
        let conn = try Self.setUp()
        try conn.insert(Country(code: "pt", name: "Portugal"))
        #expect(try conn.exists(Country.self, id: "pt"))
        #expect(try !conn.exists(Country.self, id: "PT"))
    }

    @Test func refusesAKeyOfAnotherType() throws {
        let conn = try Self.setUp()
        let member = Member(id: UUID(), name: "Ana")
        try conn.insert(member)
        #expect(try conn.exists(Member.self, id: member.id))
        let error = try #require(throws: RecordError.self) { try conn.exists(Member.self, id: 42) }
        #expect(error == .keyTypeMismatch(record: "Member", column: "id", expected: "UUID (TEXT)", given: "Int"))
        // An upper-case uuidString would match nothing: refused rather than answered false.
        let text = try #require(throws: RecordError.self) { try conn.exists(Member.self, id: member.id.uuidString) }
        #expect(text == .keyTypeMismatch(record: "Member", column: "id", expected: "UUID (TEXT)", given: "String"))
        let fraction = try #require(throws: RecordError.self) { try conn.exists(Book.self, id: 1.5) }
        #expect(
            fraction
                == .keyTypeMismatch(record: "Book", column: "id", expected: "Int64 (INTEGER)", given: "Double"))
    }

    /// A key type accepted once is not taken as accepted for every later look-up: each call checks
    /// its own key's type, in whichever order they come.
    @Test func everyCallChecksItsKeyType() throws {
        let conn = try Self.setUp()
        let member = Member(id: UUID(), name: "Ana")
        try conn.insert(member)
        let book = try conn.insert(Book(id: nil, title: "Dune"))
        let id = try #require(book.id)
        for _ in 0..<3 {
            #expect(try conn.exists(Member.self, id: member.id))
            #expect(try conn.find(Member.self, id: member.id) == member)
            #expect(throws: RecordError.self) { try conn.exists(Member.self, id: 1) }
            #expect(throws: RecordError.self) { try conn.find(Member.self, id: 1) }
            #expect(throws: RecordError.self) { try conn.delete(Member.self, id: 1) }
            #expect(try conn.exists(Book.self, id: id))
            #expect(throws: RecordError.self) { try conn.exists(Book.self, id: "1") }
            #expect(throws: RecordError.self) { try conn.find(Book.self, id: "1") }
            #expect(throws: RecordError.self) { try conn.delete(Book.self, id: "1") }
            #expect(try conn.find(Book.self, id: Int(id)) == book)
            // A key type whose values match by their storage, one value at a time.
            #expect(try conn.exists(Book.self, id: SQLiteValue.integer(id)))
            #expect(throws: RecordError.self) { try conn.exists(Book.self, id: SQLiteValue.text("1")) }
            #expect(throws: RecordError.self) { try conn.find(Book.self, id: SQLiteValue.text("1")) }
            #expect(throws: RecordError.self) { try conn.delete(Book.self, id: SQLiteValue.text("1")) }
        }
        #expect(try conn.count(Member.self) == 1)
        #expect(try conn.count(Book.self) == 1)
    }

    @Test func compositeKeyIsRefused() throws {
        let conn = try Self.setUp()
        try conn.insert(Enrollment(studentID: 1, courseID: "math"))
        #expect(throws: RecordError.compositeKey(table: "enrollment", key: ["studentID", "courseID"])) {
            try conn.exists(Enrollment.self, id: 1)
        }
        #expect(try conn.exists(Enrollment.self, where: "studentID = \(1)"))
    }

    @Test func inATransactionSeesItsOwnWrites() throws {
        let conn = try Self.setUp()
        try conn.transaction(.immediate) { conn in
            let book = try conn.insert(Book(id: nil, title: "Dune"))
            let id = try #require(book.id)
            #expect(try conn.exists(Book.self, id: id))
            try conn.delete(book)
            #expect(try !conn.exists(Book.self, id: id))
        }
    }

    @Test func onADatabase() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.write { conn in try conn.createTable(for: Book.self) }
            let book = try await db.insert(Book(id: nil, title: "Dune"))
            let id = try #require(book.id)
            #expect(try await db.exists(Book.self, id: id))
            #expect(try await !db.exists(Book.self, id: id + 1))
            await #expect(throws: RecordError.self) { try await db.exists(Book.self, id: "1") }
        }
    }
}
