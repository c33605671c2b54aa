import Foundation
import Testing

@testable import Bindery

/// `filter(key:)` and `filter(keys:)`: rows by primary key, single and composite, the key checked as
/// `find` checks it before any SQL runs, with includes, counts, existence, deletes and updates.
@Suite struct KeyFilterTests {
    typealias Author = RequestFeatureFixture.Author
    typealias Book = RequestFeatureFixture.Book

    struct Member: Record, Equatable {
        var id: UUID
        var name: String
    }

    struct Enrollment: Record, Equatable {
        static let primaryKey = ["studentID", "courseID"]
        var studentID: Int
        var courseID: String
        var grade: Int?
    }

    struct Pair: Record, Equatable {
        static let primaryKey = ["a", "b"]
        var a: Int
        var b: Int
    }

    static func connection() throws -> Connection {
        let conn = try RequestFeatureFixture.connection()
        try conn.createTable(for: Member.self)
        try conn.createTable(for: Enrollment.self)
        try conn.createTable(for: Pair.self)
        try conn.insert(contentsOf: [
            Enrollment(studentID: 1, courseID: "math", grade: 5), Enrollment(studentID: 1, courseID: "art", grade: 3),
            Enrollment(studentID: 2, courseID: "math", grade: nil),
        ])
        try conn.insert(contentsOf: [Pair(a: 1, b: 1), Pair(a: 1, b: 2), Pair(a: 2, b: 1)])
        return conn
    }

    @Test func singleKeyAndKeys() throws {
        let conn = try Self.connection()
        #expect(try conn.fetchOne(Book.filter(key: 2))?.title == "Sky")
        #expect(try conn.fetchAll(Book.filter(key: 99)).isEmpty)
        #expect(try conn.fetchAll(Book.filter(keys: [5, 1, 3, 99]).order("id")).map(\.id) == [1, 3, 5])
        #expect(try conn.fetchAll(Book.all().filter(keys: Set([Int64(4), 6])).order("id")).map(\.id) == [4, 6])
        #expect(try conn.fetchAll(Book.filter(key: Optional(Int64(7)))).map(\.id) == [7])
        // With other filters (AND), an order, a limit.
        #expect(
            try conn.fetchAll(Book.filter(keys: 1...7).filter("pages > \(60)").order("pages DESC").limit(2)).map(\.id)
                == [5, 2])
        // Two key filters AND together.
        #expect(try conn.fetchAll(Book.filter(keys: [1, 2, 3]).filter(keys: [3, 4])).map(\.id) == [3])
        // The same rows as the hand-written SQL.
        let handWritten = try conn.fetchAll(Book.self, sql: "SELECT * FROM book WHERE id IN (2, 4) ORDER BY id")
        #expect(try conn.fetchAll(Book.filter(keys: [2, 4]).order("id")) == handWritten)
    }

    @Test func emptyKeysGiveNoRows() throws {
        let conn = try Self.connection()
        let none = Book.filter(keys: [Int]())
        #expect(try conn.fetchAll(none).isEmpty)
        #expect(try conn.fetchOne(none) == nil)
        #expect(try conn.fetchCount(none) == 0)
        #expect(try !conn.exists(none))
        #expect(try conn.deleteAll(none) == 0)
        #expect(try conn.fetchAll(Enrollment.filter(keys: [[String: any Encodable & Sendable]]())).isEmpty)
        #expect(try conn.fetchCount(Book.all()) == 7)
    }

    @Test func countExistsDeleteAndUpdate() throws {
        let conn = try Self.connection()
        #expect(try conn.fetchCount(Book.filter(keys: [1, 2, 99])) == 2)
        #expect(try conn.exists(Book.filter(key: 3)))
        #expect(try !conn.exists(Book.filter(key: 30)))
        #expect(try conn.updateAll(Book.filter(keys: [1, 2]), set: "pages = \(1)") == 2)
        #expect(try conn.fetchAll(Book.filter(keys: [1, 2])).map(\.pages) == [1, 1])
        #expect(try conn.deleteAll(Book.filter(keys: [6, 7])) == 2)
        #expect(try conn.fetchAll(Book.all().order("id")).map(\.id) == [1, 2, 3, 4, 5])
        #expect(try conn.deleteAll(Enrollment.filter(key: ["studentID": 1, "courseID": "art"])) == 1)
        #expect(try conn.fetchCount(Enrollment.all()) == 2)
    }

    @Test func withIncludesAndAnnotations() throws {
        struct BookInfo: Decodable {
            var book: Book
            var author: Author
        }
        struct AuthorInfo: Decodable {
            var author: Author
            var books: [Book]
            var reviewCount: Int
        }
        let conn = try Self.connection()
        let infos = try conn.fetchAll(
            BookInfo.self, Book.filter(keys: [4, 1]).including(required: Book.author).order("book.id"))
        #expect(infos.map(\.author.name) == ["Ana", "Bo"])
        let authors = try conn.fetchAll(
            AuthorInfo.self,
            Author.filter(keys: [1, 4]).including(all: Author.books).annotated(with: Author.reviews.count)
                .order("author.id"))
        #expect(authors.map(\.author.name) == ["Ana", "Di"])
        #expect(authors.map { $0.books.map(\.id) } == [[1, 2, 3], [5, 6, 7]])
        #expect(authors.map(\.reviewCount) == [2, 0])
        #expect(try conn.fetchCount(Author.filter(keys: [1, 4]).including(all: Author.books)) == 2)
        #expect(try conn.fetchAll(Author.filter(key: 3).having(Author.books.count > 0)).isEmpty)
    }

    @Test func withChainedIncludesAndACursor() throws {
        struct BookWithAuthor: Decodable {
            var book: Book
            var author: Author
        }
        struct AuthorBooks: Decodable {
            var author: Author
            var books: [BookWithAuthor]
        }
        let conn = try Self.connection()
        let request = Author.filter(keys: [4, 2]).including(all: Author.books.including(required: Book.author))
            .order("author.id")
        let rows = try conn.fetchAll(AuthorBooks.self, request)
        #expect(rows.map(\.author.id) == [2, 4])
        #expect(rows.map { $0.books.map(\.book.id) } == [[4], [5, 6, 7]])
        #expect(rows.allSatisfy { row in row.books.allSatisfy { $0.author == row.author } })
        let cursor = try conn.fetchCursor(Book.filter(keys: [3, 1]).order("id"))
        var ids: [Int64] = []
        while let book = try cursor.next() {
            ids.append(book.id)
        }
        #expect(ids == [1, 3])
    }

    @Test func compositeKeys() throws {
        let conn = try Self.connection()
        let one = try conn.fetchOne(Enrollment.filter(key: ["studentID": 1, "courseID": "math"]))
        #expect(one == Enrollment(studentID: 1, courseID: "math", grade: 5))
        let some = try conn.fetchAll(
            Enrollment.filter(keys: [
                ["studentID": 2, "courseID": "math"], ["courseID": "art", "studentID": 1],
                ["studentID": 3, "courseID": "art"],
            ]).order("studentID"))
        #expect(some.map(\.courseID) == ["art", "math"])
        #expect(try conn.fetchCount(Enrollment.all().filter(keys: [["studentID": 1, "courseID": "art"]])) == 1)
        // Named in another case, as find(_:key:) accepts.
        #expect(try conn.fetchOne(Enrollment.filter(key: ["STUDENTID": 2, "courseid": "math"]))?.grade == nil)
        #expect(try conn.exists(Enrollment.filter(key: ["STUDENTID": 2, "courseid": "math"])))
        // A dictionary in a variable of a concrete type takes the single-value overload: still a key.
        let pairKey: [String: Int] = ["a": 1, "b": 2]
        #expect(try conn.fetchAll(Pair.filter(key: pairKey)) == [Pair(a: 1, b: 2)])
        #expect(try conn.fetchAll(Pair.filter(keys: [pairKey, ["a": 2, "b": 1]]).order("a")).count == 2)
        let printed = Enrollment.filter(keys: [["studentID": 1, "courseID": "a"], ["studentID": 2, "courseID": "b"]])
        #expect(
            printed.description.hasSuffix(
                #"WHERE (("enrollment"."studentID" = ? AND "enrollment"."courseID" = ?) OR ("enrollment"."studentID" = ? AND "enrollment"."courseID" = ?))"#
            ))
    }

    @Test func aKeyOfTheWrongTypeThrowsBeforeAnySQLRuns() throws {
        let conn = try Self.connection()
        let member = Member(id: UUID(), name: "Ana")
        try conn.insert(member)
        let expected = RecordError.keyTypeMismatch(
            record: "Member", column: "id", expected: "UUID (TEXT)", given: "Int")
        let request = Member.filter(key: 42)
        #expect(throws: expected) { try conn.fetchAll(request) }
        #expect(throws: expected) { try conn.fetchOne(request) }
        #expect(throws: expected) { try conn.fetchCount(request) }
        #expect(throws: expected) { try conn.exists(request) }
        #expect(throws: expected) { try conn.fetchCursor(request) }
        #expect(throws: expected) { try conn.sql(for: request) }
        #expect(throws: expected) { try conn.deleteAll(Member.all().filter(keys: [member.id.hashValue])) }
        #expect(throws: expected) { try conn.updateAll(request, set: "name = \("x")") }
        // An upper-case uuidString would match nothing: refused too.
        #expect(
            throws: RecordError.keyTypeMismatch(
                record: "Member", column: "id", expected: "UUID (TEXT)", given: "String")
        ) {
            try conn.fetchAll(Member.filter(keys: [member.id.uuidString]))
        }
        #expect(try conn.fetchCount(Member.all()) == 1)
        #expect(try conn.fetchOne(Member.filter(key: member.id)) == member)
        #expect(try conn.deleteAll(Member.filter(keys: [member.id])) == 1)
        // In a composite key: the column named.
        #expect(
            throws: RecordError.keyTypeMismatch(
                record: "Enrollment", column: "courseID", expected: "String (TEXT)", given: "Int")
        ) {
            try conn.fetchAll(Enrollment.filter(key: ["studentID": 1, "courseID": 7]))
        }
        #expect(
            throws: RecordError.keyTypeMismatch(
                record: "Book", column: "id", expected: "Int64 (INTEGER)", given: "String")
        ) {
            try conn.fetchAll(Book.filter(key: "1"))
        }
    }

    @Test func aKeyWithTheWrongColumnsThrowsNamingThem() throws {
        let conn = try Self.connection()
        #expect(
            throws: RecordError.incompleteKey(
                table: "enrollment", key: ["studentID", "courseID"], missing: ["courseID"])
        ) {
            try conn.fetchAll(Enrollment.filter(key: ["studentID": 1]))
        }
        #expect(
            throws: RecordError.notKeyColumns(table: "enrollment", key: ["studentID", "courseID"], columns: ["grade"])
        ) {
            try conn.fetchAll(Enrollment.filter(keys: [["studentID": 1, "courseID": "math", "grade": 5]]))
        }
        #expect(throws: RecordError.compositeKey(table: "enrollment", key: ["studentID", "courseID"])) {
            try conn.fetchAll(Enrollment.filter(key: 1))
        }
        #expect(throws: RecordError.notKeyColumns(table: "book", key: ["id"], columns: ["title"])) {
            try conn.deleteAll(Book.filter(key: ["title": "Sky"]))
        }
        // A single key by its column's name is a key too.
        #expect(try conn.fetchOne(Book.filter(key: ["id": 2]))?.title == "Sky")
        #expect(try conn.fetchCount(Enrollment.all()) == 3)
        #expect(try conn.fetchCount(Book.all()) == 7)
    }

    @Test func manyKeysAreBoundAsOneList() throws {
        let conn = try Self.connection()
        let keys = Array(Int64(1)...Int64(1500))
        #expect(try conn.fetchCount(Book.filter(keys: keys)) == 7)
        #expect(try conn.fetchAll(Book.filter(keys: keys.reversed()).order("id")).map(\.id) == Array(1...7))
    }

    @Test func onADatabaseAndObserved() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in try conn.execute(script: RequestFeatureFixture.schema) }
        #expect(try await db.fetchAll(Book.filter(keys: [1, 2]).order("id")).map(\.title) == ["Sea", "Sky"])
        var seen: [[String]] = []
        for try await books in db.observe(Book.filter(keys: [1, 8]).order("id")) {
            seen.append(books.map(\.title))
            if seen.count == 1 {
                try await db.write { conn in try conn.execute("INSERT INTO book VALUES (8, 2, 'Fir', 1)") }
            } else {
                break
            }
        }
        #expect(seen == [["Sea"], ["Sea", "Fir"]])
    }
}
