import Foundation
import Testing

@testable import Bindery

/// Aggregates of associations in expressions (`filter`, `having`, annotations) meeting groups, joins
/// that multiply rows, to-one includes, key filters, reversed orderings, limits, counts and deletes;
/// each answer checked against plain SQL. Data: ``RequestFeatureFixture``.
@Suite struct CombinationAggregateTests {
    typealias Author = RequestFeatureFixture.Author
    typealias Book = RequestFeatureFixture.Book

    private func ids(_ conn: Connection, _ sql: SQL) throws -> [Int64] {
        try conn.fetchAll(Int64.self, sql: sql)
    }

    @Test func aGroupedHavingOnAggregatesWithAJoinThatMultipliesRowsThrows() throws {
        let conn = try RequestFeatureFixture.connection()
        let request = Author.all().joining(required: Author.books).group("author.id")
            .having(Author.reviews.count >= 2)
        #expect(throws: AssociationError.self) { try conn.fetchAll(request) }
        #expect(throws: AssociationError.self) { try conn.fetchCount(request) }
        #expect(throws: RequestError.groupedRowsNotWritable(operation: "deleteAll")) { try conn.deleteAll(request) }
        #expect(try conn.fetchCount(Author.all()) == 4)
        // Not grouped: each joined row is tested on its own, and counted as fetched.
        let perRow = Author.all().joining(required: Author.books).having(Author.reviews.count >= 2)
        let expected = try ids(
            conn,
            """
            SELECT author.id FROM author JOIN book ON book.authorId = author.id
            WHERE (SELECT count(*) FROM review WHERE review.authorId = author.id) >= 2
            """)
        #expect(try conn.fetchAll(perRow).count == expected.count)
        #expect(try conn.fetchCount(perRow) == expected.count)
    }

    struct CountryReviews: Decodable, Equatable {
        var country: String
        var authors: Int
        var reviewCount: Int
    }

    @Test func aGroupedAnnotationAndHavingOverEachGroupsRows() throws {
        let conn = try RequestFeatureFixture.connection()
        let request = Author.all().select("author.country AS country, count(*) AS authors").group("author.country")
            .annotated(with: Author.reviews.count.forKey("reviewCount"))
            .having(Author.books.count + Author.reviews.count > 6)
            .order("country")
        let rows = try conn.fetchAll(CountryReviews.self, request)
        let expected = try conn.rows(
            """
            SELECT country, count(*), sum((SELECT count(*) FROM review WHERE review.authorId = author.id))
            FROM author GROUP BY country
            HAVING sum((SELECT count(*) FROM book WHERE book.authorId = author.id))
                + sum((SELECT count(*) FROM review WHERE review.authorId = author.id)) > 6
            ORDER BY country
            """
        ).map { CountryReviews(country: try $0[0], authors: try $0[1], reviewCount: try $0[2]) }
        #expect(rows == expected)
        #expect(try conn.fetchCount(request) == expected.count)
        #expect(try conn.exists(request) == !expected.isEmpty)
        #expect(try conn.fetchAll(CountryReviews.self, request.reversed()) == expected.reversed())
    }

    @Test func aConditionOnAggregatesWithKeyFiltersLimitsAndReversedOrder() throws {
        let conn = try RequestFeatureFixture.connection()
        let condition = Author.books.max("pages").ifNull(0) + Author.reviews.count * 10 > 100
        let request = Author.all().filter(condition).filter(keys: [1, 2, 3, 4, 4]).reversed().limit(2)
        let expected = try ids(
            conn,
            """
            SELECT id FROM author WHERE ifnull((SELECT max(pages) FROM book WHERE book.authorId = author.id), 0)
                + (SELECT count(*) FROM review WHERE review.authorId = author.id) * 10 > 100
            ORDER BY id DESC LIMIT 2
            """)
        #expect(try conn.fetchAll(request).map(\.id) == expected)
        #expect(try conn.fetchCount(request) == expected.count)
        try conn.execute("PRAGMA foreign_keys = OFF")
        #expect(try conn.deleteAll(request) == expected.count)
        #expect(try ids(conn, "SELECT id FROM author ORDER BY id").allSatisfy { !expected.contains($0) })
    }

    struct BookWithAuthor: Decodable, Equatable {
        var book: Book
        var author: Author
        var doublePages: Int?
    }

    @Test func anExpressionAnnotationWithAToOneIncludeDistinctAndCount() throws {
        let conn = try RequestFeatureFixture.connection()
        let request = Book.including(required: Book.author)
            .annotated(with: "book.pages * \(2)", as: "doublePages")
            .filter("author.country = \("SE")")
            .order("book.pages NULLS FIRST")
        let rows = try conn.fetchAll(BookWithAuthor.self, request)
        let expected = try ids(
            conn,
            "SELECT book.id FROM book JOIN author ON author.id = book.authorId WHERE author.country = 'SE' ORDER BY pages NULLS FIRST"
        )
        #expect(rows.map(\.book.id) == expected)
        #expect(rows.allSatisfy { $0.doublePages == $0.book.pages.map { $0 * 2 } && $0.author.country == "SE" })
        #expect(try conn.fetchCount(request.distinct()) == expected.count)
        #expect(try conn.fetchAll(BookWithAuthor.self, request.reversed()).map(\.book.id) == expected.reversed())
    }
}
