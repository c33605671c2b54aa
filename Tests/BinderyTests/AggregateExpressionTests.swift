import Foundation
import Testing

@testable import Bindery

/// Aggregates of associations in expressions: `ifNull`, arithmetic with numbers and other aggregates,
/// comparisons in `filter` and `having`, each checked against hand-written SQL or a hand-computed answer.
@Suite struct AggregateExpressionTests {
    typealias Author = RequestFeatureFixture.Author
    typealias Book = RequestFeatureFixture.Book

    struct Activity: Decodable, Equatable {
        var author: Author
        var activity: Int
    }

    struct Named: Decodable, Equatable {
        var name: String
        var value: Int?
    }

    struct NamedDouble: Decodable, Equatable {
        var name: String
        var value: Double?
    }

    static let books = Author.books
    static let reviews = Author.reviews

    /// `(name, value)` of each author by the hand-written `sql` (its columns `name` and `value`).
    static func expected(_ conn: Connection, _ sql: SQL) throws -> [Named] {
        try conn.fetchAll(Named.self, sql: sql)
    }

    @Test func sumOfTwoAssociationsCountsEachOnce() throws {
        let conn = try RequestFeatureFixture.connection()
        let request = Author.all().annotated(with: (Self.books.count + Self.reviews.count).forKey("activity"))
            .order("author.id")
        let rows = try conn.fetchAll(Activity.self, request)
        // By hand: Ana 3 books + 2 reviews, Bo 1 + 3, Cy 0 + 1, Di 3 + 0.
        #expect(rows.map(\.activity) == [5, 4, 1, 3])
        #expect(rows.map(\.author.name) == ["Ana", "Bo", "Cy", "Di"])
        let handWritten = try Self.expected(
            conn,
            """
            SELECT name, (SELECT count(*) FROM book WHERE authorId = author.id)
                + (SELECT count(*) FROM review WHERE authorId = author.id) AS value FROM author ORDER BY id
            """)
        #expect(rows.map(\.activity) == handWritten.compactMap(\.value))
        // A join of both tables would have multiplied them (Ana: 3 × 2 = 6 rows): not what is computed.
        let joined = try conn.fetchOne(
            Int.self,
            sql:
                "SELECT count(*) FROM author JOIN book ON book.authorId = author.id JOIN review ON review.authorId = author.id WHERE author.id = 1"
        )
        #expect(joined == 6)
        #expect(rows[0].activity == 5)
    }

    @Test func ifNullKeepsTheKeyAndBindsItsValue() throws {
        struct PagesSum: Decodable, Equatable {
            var author: Author
            var bookPagesSum: Int
        }
        let conn = try RequestFeatureFixture.connection()
        let aggregate = Self.books.sum("pages").ifNull(0)
        #expect(aggregate.key == "bookPagesSum")
        let request = Author.annotated(with: aggregate).order("author.id")
        #expect(try conn.fetchAll(PagesSum.self, request).map(\.bookPagesSum) == [300, 50, 0, 330])
        // Without ifNull, Cy's sum is NULL.
        struct Optional: Decodable { var bookPagesSum: Int? }
        #expect(
            try conn.fetchAll(Optional.self, Author.annotated(with: Self.books.sum("pages")).order("author.id"))
                .map(\.bookPagesSum) == [300, 50, nil, 330])
        // The value is bound, not spliced.
        let text = request.debugDescription
        #expect(text.contains("ifnull((SELECT sum(\"books\".\"pages\")"))
        #expect(text.contains(", ?)"))
        #expect(text.contains("-- arguments: [0]"))
        // ifNull with another aggregate, and with a Double.
        let either = Self.books.sum("pages").ifNull(Self.reviews.sum("stars")).forKey("value")
        let rows = try conn.fetchAll(Named.self, Author.all().select("name").annotated(with: either).order("id"))
        #expect(rows.map(\.value) == [300, 50, 1, 330])
        let real = Self.books.average("pages").ifNull(-1.5).forKey("value")
        let averages = try conn.fetchAll(
            NamedDouble.self, Author.all().select("name").annotated(with: real).order("id"))
        #expect(averages.map(\.value) == [150, 50, -1.5, 110])
    }

    @Test func arithmeticWithNumbersMatchesHandWrittenSQL() throws {
        let conn = try RequestFeatureFixture.connection()
        let cases: [(AssociationAggregate<Author>, SQL)] = [
            (Self.books.count * 2 - 1, "(SELECT count(*) FROM book WHERE authorId = author.id) * 2 - 1"),
            (Self.books.sum("pages") / 7, "(SELECT sum(pages) FROM book WHERE authorId = author.id) / 7"),
            (-Self.reviews.count, "-(SELECT count(*) FROM review WHERE authorId = author.id)"),
            (
                Self.books.max("pages") - Self.books.min("pages"),
                "(SELECT max(pages) FROM book WHERE authorId = author.id) - (SELECT min(pages) FROM book WHERE authorId = author.id)"
            ),
            (
                Self.reviews.sum("stars") * Self.books.count + 3,
                "(SELECT sum(stars) FROM review WHERE authorId = author.id) * (SELECT count(*) FROM book WHERE authorId = author.id) + 3"
            ),
        ]
        for (aggregate, sql) in cases {
            let rows = try conn.fetchAll(
                Named.self, Author.all().select("name").annotated(with: aggregate.forKey("value")).order("id"))
            let expected = try Self.expected(conn, "SELECT name, " + sql + " AS value FROM author ORDER BY id")
            #expect(rows == expected, "\(sql)")
        }
        // An integer division, as in SQL: Ana 300 / 7 = 42.
        let division = try conn.fetchAll(
            Named.self, Author.all().select("name").annotated(with: (Self.books.sum("pages") / 7).forKey("value")))
        #expect(division.first?.value == 42)
        let doubles = try conn.fetchAll(
            NamedDouble.self,
            Author.all().select("name").annotated(with: (Self.books.total("pages") / 8.0 + 0.5).forKey("value"))
                .order("id"))
        #expect(doubles.map(\.value) == [38.0, 6.75, 0.5, 41.75])
    }

    @Test func filterAndHavingByAggregateConditions() throws {
        let conn = try RequestFeatureFixture.connection()
        let names = { (request: QueryRequest<Author>) in try conn.fetchAll(request.order("author.id")).map(\.name) }
        #expect(try names(Author.having(Self.books.count >= 2)) == ["Ana", "Di"])
        #expect(try names(Author.filter(Self.books.count >= 2)) == ["Ana", "Di"])
        #expect(try names(Author.all().filter(Self.books.count >= 1 && Self.reviews.count == 0)) == ["Di"])
        #expect(try names(Author.all().filter(Self.books.count == 0 || Self.reviews.count > 2)) == ["Bo", "Cy"])
        #expect(try names(Author.all().filter(!(Self.books.count > 0))) == ["Cy"])
        #expect(try names(Author.all().filter(Self.books.count + Self.reviews.count != 4)) == ["Ana", "Cy", "Di"])
        #expect(try names(Author.all().filter(Self.books.average("pages") < 100.5)) == ["Bo"])
        #expect(try names(Author.all().filter(Self.books.count > Self.reviews.count)) == ["Ana", "Di"])
        #expect(try names(Author.all().filter(Self.books.sum("pages").ifNull(0) <= 50)) == ["Bo", "Cy"])
        // A NULL comparison is false, as in SQL: Cy has no sum.
        #expect(try names(Author.all().filter(Self.books.sum("pages") <= 50)) == ["Bo"])
        // With an SQL filter, several aggregate conditions, count, exists, limit.
        let request = Author.all().filter("country = \("SE")").having(Self.books.count >= 1)
            .filter(Self.reviews.count < 10)
        #expect(try names(request) == ["Bo", "Di"])
        #expect(try conn.fetchCount(request) == 2)
        #expect(try conn.exists(request))
        #expect(try !conn.exists(Author.having(Self.books.count > 3)))
        #expect(try conn.fetchCount(request.limit(1)) == 1)
        #expect(try conn.fetchOne(request.order("author.id DESC"))?.name == "Di")
        // The same rows as the hand-written SQL.
        let handWritten = try conn.fetchAll(
            String.self,
            sql: """
                SELECT name FROM author WHERE country = 'SE' AND (SELECT count(*) FROM book WHERE authorId = author.id) >= 1
                ORDER BY id
                """)
        #expect(try names(request) == handWritten)
        // Deleting and updating by such a request touches those rows only.
        try conn.execute("PRAGMA foreign_keys = OFF")
        #expect(try conn.updateAll(Author.having(Self.reviews.count == 0), set: "name = \("Dee")") == 1)
        #expect(try conn.deleteAll(Author.filter(Self.books.count == 0)) == 1)
        #expect(try conn.fetchAll(Author.all().order("id")).map(\.name) == ["Ana", "Bo", "Dee"])
    }

    @Test func groupedHavingAndAnnotationAggregateOverTheGroup() throws {
        struct CountryActivity: Decodable, Equatable {
            var country: String
            var activity: Int
        }
        let conn = try RequestFeatureFixture.connection()
        let base = Author.all().select("country").group("country").order("country")
        // PT: books 3 + 0, reviews 2 + 1; SE: books 1 + 3, reviews 3 + 0.
        let activity = (Self.books.count + Self.reviews.count).forKey("activity")
        #expect(
            try conn.fetchAll(CountryActivity.self, base.annotated(with: activity)) == [
                CountryActivity(country: "PT", activity: 6), CountryActivity(country: "SE", activity: 7),
            ])
        #expect(
            try conn.fetchAll(CountryActivity.self, base.annotated(with: activity).having(Self.books.count >= 4)) == [
                CountryActivity(country: "SE", activity: 7)
            ])
        let handWritten = try conn.fetchAll(
            CountryActivity.self,
            sql: """
                SELECT country, sum((SELECT count(*) FROM book WHERE authorId = author.id))
                    + sum((SELECT count(*) FROM review WHERE authorId = author.id)) AS activity
                FROM author GROUP BY country
                HAVING sum((SELECT count(*) FROM book WHERE authorId = author.id)) >= 4 ORDER BY country
                """)
        #expect(
            try conn.fetchAll(CountryActivity.self, base.annotated(with: activity).having(Self.books.count >= 4))
                == handWritten)
        // A filter by aggregate in a grouped request tests each row before grouping: authors with a review.
        #expect(
            try conn.fetchAll(CountryActivity.self, base.annotated(with: activity).filter(Self.reviews.count > 0)) == [
                CountryActivity(country: "PT", activity: 6), CountryActivity(country: "SE", activity: 4),
            ])
        #expect(try conn.fetchCount(base.having(Self.books.count >= 4)) == 1)
    }

    @Test func annotationOfAFilteredAssociation() throws {
        let conn = try RequestFeatureFixture.connection()
        let long = Self.books.filter("\(Self.books.column("pages")) > \(60)")
        let good = Self.reviews.filter("\(Self.reviews.column("stars")) >= \(4)")
        let aggregate = (long.count * 10 + good.count).forKey("value")
        let rows = try conn.fetchAll(Named.self, Author.all().select("name").annotated(with: aggregate).order("id"))
        // Ana: 2 long books, 2 good reviews; Bo 0, 0; Cy 0, 0; Di 1, 0.
        #expect(rows.map(\.value) == [22, 0, 0, 10])
        let filtered = try conn.fetchAll(Author.all().filter(long.count >= 1 && good.count == 0))
        #expect(filtered.map(\.name) == ["Di"])
    }

    @Test func combinedWithIncludingAll() throws {
        struct AuthorBooks: Decodable, Equatable {
            var author: Author
            var books: [Book]
            var activity: Int
        }
        let conn = try RequestFeatureFixture.connection()
        let request = Author.including(all: Self.books)
            .annotated(with: (Self.books.count + Self.reviews.count).forKey("activity"))
            .having(Self.books.count + Self.reviews.count >= 3)
            .order("author.id")
        let rows = try conn.fetchAll(AuthorBooks.self, request)
        #expect(rows.map(\.author.name) == ["Ana", "Bo", "Di"])
        #expect(rows.map(\.activity) == [5, 4, 3])
        #expect(rows.map { $0.books.count } == [3, 1, 3])
        #expect(rows.allSatisfy { row in row.books.allSatisfy { $0.authorId == row.author.id } })
    }

    @Test func derivedAggregatesHaveNoKeyUntilGivenOne() throws {
        let conn = try RequestFeatureFixture.connection()
        #expect((Self.books.count + 1).key == "")
        #expect((Self.books.count * Self.reviews.count).key == "")
        #expect((-Self.books.count).key == "")
        #expect(Self.books.count.ifNull(0).key == "bookCount")
        let error = try #require(throws: RequestError.self) {
            try conn.fetchAll(Named.self, Author.all().select("name").annotated(with: Self.books.count + 1))
        }
        guard case .annotationWithoutKey(let annotation) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(annotation.contains("count(*) of \"books\""))
        #expect(error.description.contains("forKey"))
    }

    @Test func duplicateAnnotationKeysThrow() throws {
        let conn = try RequestFeatureFixture.connection()
        let request = Author.all().annotated(with: Self.books.count, (Self.books.count * 2).forKey("BOOKCOUNT"))
        #expect(throws: RequestError.annotationKeyClash(key: "BOOKCOUNT", other: "another annotation")) {
            try conn.fetchAll(Activity.self, request)
        }
    }

    @Test func combinedAggregatesGoThroughTheAliasChecks() throws {
        let conn = try RequestFeatureFixture.connection()
        // An association renamed after its filter named the old alias.
        let renamed = Self.books.filter("\(Self.books.column("pages")) > \(1)").aliased("b")
        #expect(throws: AssociationError.aliasChanged(association: "value", alias: "books", newAlias: "b")) {
            try conn.fetchAll(
                Named.self,
                Author.all().select("name").annotated(with: (renamed.count + Self.reviews.count).forKey("value")))
        }
        // An alias that is the request's own table's: named, with the condition it is in.
        let clash = Self.books.aliased("author")
        let error = try #require(throws: AssociationError.self) {
            try conn.fetchAll(Author.all().filter(Self.reviews.count + clash.count > 1))
        }
        guard case .duplicateAlias(let alias, let first, let second) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(alias == "author")
        #expect(first == "author")
        #expect(second.contains(#"count(*) of "author""#))
        // The same association twice in one expression: each term is a subquery of its own.
        let twice = try conn.fetchAll(
            Named.self,
            Author.all().select("name").annotated(with: (Self.books.count * Self.books.count).forKey("value"))
                .order("id"))
        #expect(twice.map(\.value) == [9, 1, 0, 9])
        // In a grouped request that joins a to-many association, a HAVING on an aggregate throws.
        let grouped = Author.all().select("country").joining(required: Self.books).group("country")
            .having(Self.reviews.count > 1)
        #expect(
            throws: AssociationError.annotationOfGroupedJoin(
                annotation: "(count(*) of \"reviews\" > ?)", association: "books")
        ) {
            try conn.fetchAll(Named.self, grouped)
        }
    }

    @Test func observedRequestSeesNewAssociatedRows() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in try conn.execute(script: RequestFeatureFixture.schema) }
        let request = Author.all().annotated(with: (Self.books.count + Self.reviews.count).forKey("activity"))
            .having(Self.reviews.count >= 2).order("author.id")
        var values: [[Int]] = []
        for try await rows in db.observe(Activity.self, request) {
            values.append(rows.map(\.activity))
            if values.count == 1 {
                try await db.write { conn in try conn.execute("INSERT INTO review VALUES (7, 4, 5), (8, 4, 5)") }
            } else {
                break
            }
        }
        #expect(values == [[5, 4], [5, 4, 5]])
    }
}
