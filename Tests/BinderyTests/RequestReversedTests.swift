import Foundation
import Testing

@testable import Bindery

/// `reversed()`: each term of a request's ordering reversed, its to-one associations' orderings too,
/// the primary key descending without any, and a typed error for an ordering it cannot read.
@Suite struct RequestReversedTests {
    typealias Author = RequestFeatureFixture.Author
    typealias Book = RequestFeatureFixture.Book

    struct Enrollment: Record, Equatable {
        static let primaryKey = ["studentID", "courseID"]
        var studentID: Int
        var courseID: String
    }

    static func ids(_ conn: Connection, _ request: QueryRequest<Book>) throws -> [Int64] {
        try conn.fetchAll(request).map(\.id)
    }

    static func ids(_ conn: Connection, sql: SQL) throws -> [Int64] {
        try conn.fetchAll(Int64.self, sql: sql)
    }

    @Test func multiTermOrderingsAreReversedTermByTerm() throws {
        let conn = try RequestFeatureFixture.connection()
        let request = Book.all().order("authorId, pages DESC")
        #expect(try Self.ids(conn, request) == Self.ids(conn, sql: "SELECT id FROM book ORDER BY authorId, pages DESC"))
        let reversed = request.reversed()
        #expect(reversed.description.hasSuffix("ORDER BY authorId DESC, pages ASC"))
        #expect(
            try Self.ids(conn, reversed)
                == Self.ids(conn, sql: "SELECT id FROM book ORDER BY authorId DESC, pages ASC"))
        // No ties: the reversed rows are the rows reversed (NULL pages sorted first ascending, last descending).
        #expect(try Self.ids(conn, reversed) == Self.ids(conn, request).reversed())
        // Reversing twice gives the request back.
        #expect(try Self.ids(conn, reversed.reversed()) == Self.ids(conn, request))
        #expect(reversed.reversed().description == request.description)
        // Column orderings by coding key.
        let byKey = Book.all().order(Column("authorId").asc).thenOrder(Column("title").desc)
        #expect(byKey.reversed().description.hasSuffix(#"ORDER BY "authorId" DESC, "title" ASC"#))
    }

    @Test func nullsAndCollationsAndBoundValues() throws {
        let conn = try RequestFeatureFixture.connection()
        let nullsFirst = Book.all().order("pages DESC NULLS FIRST, id")
        #expect(nullsFirst.reversed().description.hasSuffix("ORDER BY pages ASC NULLS LAST, id DESC"))
        #expect(try Self.ids(conn, nullsFirst.reversed()) == Self.ids(conn, nullsFirst).reversed())
        let nullsLast = Book.all().order("pages nulls last")
        #expect(nullsLast.reversed().description.hasSuffix("ORDER BY pages DESC NULLS FIRST"))
        #expect(try Self.ids(conn, nullsLast.reversed()) == Self.ids(conn, nullsLast).reversed())
        let collated = Book.all().order("title COLLATE NOCASE ASC")
        #expect(collated.reversed().description.hasSuffix("ORDER BY title COLLATE NOCASE DESC"))
        // An expression with a bound value and a function call with commas inside.
        let near = Book.all().order("abs(ifnull(pages, \(0)) - \(150)), id")
        let reversedNear = near.reversed()
        #expect(
            reversedNear.debugDescription.hasSuffix(
                "ORDER BY abs(ifnull(pages, ?) - ?) DESC, id DESC -- arguments: [0, 150]"))
        #expect(
            try Self.ids(conn, reversedNear)
                == Self.ids(conn, sql: "SELECT id FROM book ORDER BY abs(ifnull(pages, 0) - 150) DESC, id DESC"))
        // A list after IN keeps its values (its padding left out).
        let listed = Book.all().order("id IN \(list: [1, 2, 3]), id")
        #expect(
            try Self.ids(conn, listed.reversed())
                == Self.ids(conn, sql: "SELECT id FROM book ORDER BY id IN (1, 2, 3) DESC, id DESC"))
    }

    @Test func thenOrderAndOrderAfterReversed() throws {
        let conn = try RequestFeatureFixture.connection()
        // thenOrder adds a term reversed with the others: the reversal is of the whole ordering.
        let then = Book.all().order("authorId").reversed().thenOrder("title")
        #expect(then.description.hasSuffix("ORDER BY authorId DESC, title DESC"))
        #expect(
            try Self.ids(conn, then) == Self.ids(conn, sql: "SELECT id FROM book ORDER BY authorId DESC, title DESC"))
        // order replaces the ordering and its reversal.
        let replaced = Book.all().order("authorId").reversed().order("title")
        #expect(replaced.description.hasSuffix("ORDER BY title"))
        let replacedByKey = Book.all().reversed().order(Column("title").asc)
        #expect(replacedByKey.description.hasSuffix(#"ORDER BY "title" ASC"#))
    }

    @Test func withoutOrderingThePrimaryKeyDescending() throws {
        let conn = try RequestFeatureFixture.connection()
        let request = Book.all().reversed()
        #expect(request.description.hasSuffix(#"ORDER BY "book"."id" DESC"#))
        #expect(try Self.ids(conn, request) == [7, 6, 5, 4, 3, 2, 1])
        #expect(try conn.fetchOne(Book.all().reversed())?.id == 7)
        #expect(try conn.fetchOne(Book.filter("pages < \(100)").reversed())?.id == 7)
        try conn.createTable(for: Enrollment.self)
        for (student, course) in [(1, "b"), (2, "a"), (1, "a")] {
            try conn.insert(Enrollment(studentID: student, courseID: course))
        }
        let composite = Enrollment.all().reversed()
        #expect(
            composite.description.hasSuffix(#"ORDER BY "enrollment"."studentID" DESC, "enrollment"."courseID" DESC"#))
        #expect(
            try conn.fetchAll(composite).map { "\($0.studentID)\($0.courseID)" } == ["2a", "1b", "1a"])
    }

    @Test func toOneAssociationOrderingsAreReversedToo() throws {
        struct BookInfo: Decodable {
            var book: Book
            var author: Author
        }
        let conn = try RequestFeatureFixture.connection()
        let byAuthorName = Book.author.order("\(Book.author.column("name"))")
        let request = Book.all().including(required: byAuthorName).order("book.title")
        let reversed = request.reversed()
        #expect(reversed.description.contains(#"ORDER BY book.title DESC, "author"."name" DESC"#))
        #expect(
            try conn.fetchAll(BookInfo.self, reversed).map(\.book.id)
                == Self.ids(
                    conn,
                    sql:
                        "SELECT book.id FROM book JOIN author ON author.id = book.authorId ORDER BY book.title DESC, author.name DESC"
                ))
        // The association's ordering alone: no primary key is added.
        let alone = Book.all().including(required: byAuthorName.order("\(Book.author.column("name")) DESC")).reversed()
        #expect(alone.description.hasSuffix(#"ORDER BY "author"."name" ASC"#))
        let names = try conn.fetchAll(BookInfo.self, alone).map(\.author.name)
        #expect(names == names.sorted())
        #expect(names.first == "Ana")
    }

    @Test func limitOffsetCountAndExistsApplyToTheReversedOrder() throws {
        let conn = try RequestFeatureFixture.connection()
        let request = Book.all().order("pages, id").reversed().limit(3, offset: 1)
        #expect(
            try Self.ids(conn, request)
                == Self.ids(conn, sql: "SELECT id FROM book ORDER BY pages DESC, id DESC LIMIT 3 OFFSET 1"))
        #expect(try Self.ids(conn, request) == [2, 1, 4])
        #expect(try conn.fetchCount(request) == 3)
        #expect(try conn.exists(request))
        #expect(try conn.fetchOne(request)?.id == 2)
        // A delete of the reversed first two rows deletes the two largest.
        #expect(try conn.deleteAll(Book.all().order("pages").reversed().limit(2)) == 2)
        #expect(try conn.fetchAll(Book.all().order("id")).map(\.id) == [1, 3, 4, 6, 7])
    }

    @Test func anOrderingThatCannotBeReadThrowsNamingIt() throws {
        let conn = try RequestFeatureFixture.connection()
        let cases: [(SQL, String)] = [
            ("pages -- longest first\n", "it has a comment"),
            ("pages /* x */ DESC", "it has a comment"),
            ("abs(pages", "its parentheses do not match"),
            ("pages), (id", "its parentheses do not match"),
            ("pages, ", "a term has no expression"),
            ("DESC", "a term has no expression"),
        ]
        for (ordering, reason) in cases {
            let request = Book.all().order(ordering).reversed()
            let error = try #require(throws: RequestError.self) { try conn.fetchAll(request) }
            #expect(error == .irreversibleOrdering(ordering: ordering.text, reason: reason))
            #expect(error.description.contains(ordering.text))
            #expect(throws: RequestError.self) { try conn.fetchCount(request.limit(1)) }
            #expect(throws: RequestError.self) { try conn.fetchOne(request) }
            #expect(request.description == "<invalid request>")
        }
        // The same orderings without reversal run as before (those SQLite accepts).
        #expect(try conn.fetchAll(Book.all().order("pages -- longest first\n")).count == 7)
    }

    @Test func groupsWithoutAnOrderingThrow() throws {
        let conn = try RequestFeatureFixture.connection()
        let grouped = Author.all().select("country").group("country").reversed()
        let error = try #require(throws: RequestError.self) { try conn.fetchAll(String.self, grouped) }
        guard case .irreversibleOrdering(let ordering, let reason) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(ordering == "")
        #expect(reason.contains("no ordering"))
        #expect(error.description.hasPrefix("reversed() has no ordering to reverse"))
        #expect(throws: RequestError.self) {
            try conn.fetchAll(String.self, Author.all().select("country").distinct().reversed())
        }
        #expect(throws: RequestError.self) {
            try conn.fetchAll(Int.self, Author.all().select("count(*)").reversed())
        }
        // Ordered, they reverse; a selection of rows without grouping sorts by the primary key.
        #expect(try conn.fetchAll(String.self, grouped.order("country").reversed()) == ["SE", "PT"])
        #expect(try conn.fetchAll(String.self, Author.all().select("name").reversed()) == ["Di", "Cy", "Bo", "Ana"])
    }

    @Test func reversedOnADatabase() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in try conn.execute(script: RequestFeatureFixture.schema) }
        let last = try await db.fetchAll(Author.all().order("name").reversed().limit(2))
        #expect(last.map(\.name) == ["Di", "Cy"])
    }
}
