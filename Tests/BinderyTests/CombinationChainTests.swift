import Foundation
import Testing

@testable import Bindery

/// Chained associations (to-one and to-many steps, aliases, selections) meeting the older parts of a
/// request: counts, existence, deletes, distinct, limits, reversed orderings, key filters and cursors.
/// Each answer is checked against plain SQL run on the same connection.
@Suite struct CombinationChainTests {
    struct Country: Record, Equatable {
        static let tableName = "country"
        var id: Int64
        var name: String
    }

    struct Author: Record, Equatable {
        static let tableName = "author"
        var id: Int64
        var name: String
        var countryId: Int64?
        static let country = belongsTo(Country.self)
        static let books = hasMany(Book.self, using: ForeignKey(["authorId"]))
        /// One book of the author's (an author may have several: a to-one that can match many rows).
        static let someBook = hasOne(Book.self, key: "someBook", using: ForeignKey(["authorId"]))
    }

    struct Book: Record, Equatable {
        static let tableName = "book"
        var id: Int64
        var title: String
        var authorId: Int64?
        var translatorId: Int64?
        static let author = belongsTo(Author.self, using: ForeignKey(["authorId"]))
        static let translator = belongsTo(Author.self, key: "translator", using: ForeignKey(["translatorId"]))
        static let reviews = hasMany(Review.self)
    }

    struct Review: Record, Equatable {
        static let tableName = "review"
        var id: Int64
        var bookId: Int64
        var stars: Int
    }

    struct Loan: Record, Equatable {
        static let tableName = "loan"
        var id: Int64
        var bookId: Int64?
        var readerId: Int64?
        static let book = belongsTo(Book.self)
        static let reader = belongsTo(Author.self, key: "reader", using: ForeignKey(["readerId"]))
    }

    static func library() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: schema)
        return conn
    }

    /// The tables and rows of ``library()``.
    static let schema = """
        CREATE TABLE country(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
        CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, countryId INTEGER REFERENCES country);
        CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT NOT NULL,
            authorId INTEGER REFERENCES author, translatorId INTEGER REFERENCES author);
        CREATE TABLE review(id INTEGER PRIMARY KEY, bookId INTEGER NOT NULL REFERENCES book,
            stars INTEGER NOT NULL);
        CREATE TABLE loan(id INTEGER PRIMARY KEY, bookId INTEGER REFERENCES book,
            readerId INTEGER REFERENCES author);
        INSERT INTO country VALUES (1, 'France'), (2, 'Peru');
        INSERT INTO author VALUES (1, 'Ann', 1), (2, 'Bob', NULL), (3, 'Cyd', 2), (4, 'Dee', 1);
        INSERT INTO book VALUES (1, 'Dune', 1, 3), (2, 'Emma', 2, NULL), (3, 'Anon', NULL, NULL),
            (4, 'Saga', 1, 1), (5, 'Iris', 3, 1);
        INSERT INTO review VALUES (1, 1, 5), (2, 1, 3), (3, 2, 4), (4, 4, 1), (5, 4, 2), (6, 5, 5);
        INSERT INTO loan VALUES (1, 1, 2), (2, 2, 3), (3, 3, 1), (4, NULL, 1), (5, 1, NULL), (6, 4, 3),
            (7, 5, 4), (8, 4, 2);
        """

    private func ids(_ conn: Connection, _ sql: SQL) throws -> [Int64] {
        try conn.fetchAll(Int64.self, sql: sql)
    }

    struct BookWithAuthor: Decodable, Equatable {
        var book: Book
        var writer: Author
    }

    struct LoanInfo: Decodable, Equatable {
        var loan: Loan
        var book: BookWithAuthor
        var reader: Author?
    }

    @Test func theSameTableTwiceWithAFilterNamingTheAliasOfTheDeeperOne() throws {
        let conn = try Self.library()
        let writer = Book.author.aliased("writer").forKey("writer")
        let request = Loan.including(required: Loan.book.including(required: writer))
            .including(optional: Loan.reader)
            .filter("\(writer.column("name")) = \("Ann")")
            .order("loan.id")
        let expected = try ids(
            conn,
            """
            SELECT loan.id FROM loan JOIN book ON book.id = loan.bookId JOIN author AS w ON w.id = book.authorId
            LEFT JOIN author AS r ON r.id = loan.readerId WHERE w.name = 'Ann' ORDER BY loan.id
            """)
        let loans = try conn.fetchAll(LoanInfo.self, request)
        #expect(loans.map(\.loan.id) == expected)
        #expect(loans.allSatisfy { $0.book.writer.name == "Ann" && $0.book.book.authorId == 1 })
        #expect(loans.map { $0.reader?.id } == [2, nil, 3, 2])
        #expect(try conn.fetchCount(request) == expected.count)
        // A filter naming the reader's alias filters the other author.
        let byReader = request.filter("\(Loan.reader.column("name")) = \("Cyd")")
        #expect(try conn.fetchAll(LoanInfo.self, byReader).map(\.loan.id) == [6])
    }

    @Test func reversedWithAChainsOrderingAndALimit() throws {
        let conn = try Self.library()
        let request = Loan.including(
            required: Loan.book.order("\(Loan.book.column("title"))").including(required: Book.author.forKey("writer"))
        )
        .order("loan.readerId")
        let forward = try conn.fetchAll(LoanInfo.self, request.including(optional: Loan.reader)).map(\.loan.id)
        let expectedForward = try ids(
            conn,
            """
            SELECT loan.id FROM loan JOIN book ON book.id = loan.bookId JOIN author ON author.id = book.authorId
            ORDER BY loan.readerId, book.title
            """)
        #expect(forward == expectedForward)
        let reversed = try conn.fetchAll(
            LoanInfo.self, request.including(optional: Loan.reader).reversed().limit(3, offset: 1))
        let expectedReversed = try ids(
            conn,
            """
            SELECT loan.id FROM loan JOIN book ON book.id = loan.bookId JOIN author ON author.id = book.authorId
            ORDER BY loan.readerId DESC, book.title DESC LIMIT 3 OFFSET 1
            """)
        #expect(reversed.map(\.loan.id) == expectedReversed)
        #expect(try conn.fetchCount(request.reversed().limit(3, offset: 1)) == 3)
        // Deleting the reversed, limited rows deletes those rows.
        try conn.execute("PRAGMA foreign_keys = OFF")
        #expect(try conn.deleteAll(request.reversed().limit(2)) == 2)
        let left = try ids(conn, "SELECT id FROM loan ORDER BY id")
        let gone = Set(expectedForward.suffix(2))
        #expect(left == [1, 2, 3, 4, 5, 6, 7, 8].filter { !gone.contains($0) })
    }

    struct AuthorBook: Decodable, Equatable {
        var author: Author
        var someBook: Book
    }

    @Test func distinctCountOfAToOneThatMatchesManyRowsCountsTheRowsFetched() throws {
        let conn = try Self.library()
        let request = Author.including(required: Author.someBook).distinct()
        let fetched = try conn.fetchAll(AuthorBook.self, request)
        #expect(fetched.count == 4)
        #expect(try conn.fetchCount(request) == fetched.count)
        let countries = Author.all().select("author.countryId").distinct().including(required: Author.someBook)
        struct CountryBook: Decodable { var countryId: Int64?; var someBook: Book }
        let rows = try conn.fetchAll(CountryBook.self, countries)
        #expect(try conn.fetchCount(countries) == rows.count)
    }

    struct BookReviews: Decodable, Equatable {
        var book: Book
        var reviews: [Review]
    }

    struct AuthorBooks: Decodable, Equatable {
        var author: Author
        var books: [BookReviews]
    }

    @Test func countAndExistsOfToManyIncludesWithDistinctAndGroups() throws {
        let conn = try Self.library()
        let request = Author.including(all: Author.books.including(all: Book.reviews)).distinct()
        let all = try conn.fetchAll(AuthorBooks.self, request)
        #expect(all.count == 4)
        #expect(try conn.fetchCount(request) == 4)
        #expect(try conn.exists(request.filter("author.id = \(4)")))
        #expect(try conn.fetchAll(AuthorBooks.self, request.filter("author.id = \(4)")).map(\.books) == [[]])
        let reviewsOfAnn = all.first { $0.author.id == 1 }?.books.flatMap(\.reviews).map(\.id).sorted()
        #expect(
            reviewsOfAnn
                == (try ids(
                    conn, "SELECT review.id FROM review JOIN book ON book.id = bookId WHERE authorId = 1 ORDER BY 1")))
        // Grouped by country: one author per group, its books with it.
        let grouped = Author.including(all: Author.books).group("author.countryId").order("author.countryId")
        struct AuthorWithBooks: Decodable { var author: Author; var books: [Book] }
        let groups = try conn.fetchAll(AuthorWithBooks.self, grouped)
        #expect(groups.count == 3)
        #expect(try conn.fetchCount(grouped) == 3)
        for group in groups {
            #expect(group.books.allSatisfy { $0.authorId == group.author.id })
        }
    }

    @Test func joiningAToManyStepMultipliesRowsAlikeInFetchCountAndDelete() throws {
        let conn = try Self.library()
        let joined = Author.all().joining(required: Author.books.filter("\(Author.books.column("title")) != \("Emma")"))
        let fetched = try conn.fetchAll(joined)
        let expected = try ids(
            conn, "SELECT author.id FROM author JOIN book ON book.authorId = author.id WHERE book.title != 'Emma'")
        #expect(fetched.count == expected.count)
        #expect(try conn.fetchCount(joined) == expected.count)
        #expect(try conn.fetchCount(joined.distinct()) == Set(expected).count)
        #expect(try conn.fetchAll(joined.distinct()).count == Set(expected).count)
        try conn.execute("PRAGMA foreign_keys = OFF")
        #expect(try conn.deleteAll(joined) == Set(expected).count)
        #expect(try ids(conn, "SELECT id FROM author ORDER BY id") == [2, 4])
    }

    @Test func keyFiltersOnAChainWithDuplicatesAndMissingKeys() throws {
        let conn = try Self.library()
        let request = Loan.including(required: Loan.book.including(required: Book.author.forKey("writer")))
            .including(optional: Loan.reader)
            .filter(keys: [1, 1, 3, 99, 7])
            .order("loan.id")
        let loans = try conn.fetchAll(LoanInfo.self, request)
        #expect(loans.map(\.loan.id) == [1, 7])
        #expect(try conn.fetchCount(request) == 2)
        #expect(try conn.exists(request))
        #expect(try conn.fetchCount(request.reversed()) == 2)
        #expect(try conn.fetchAll(LoanInfo.self, request.reversed()).map(\.loan.id) == [7, 1])
        #expect(try conn.fetchOne(LoanInfo.self, request.reversed())?.loan.id == 7)
        let none = Loan.including(required: Loan.book).filter(keys: [Int64]())
        #expect(try conn.fetchCount(none) == 0)
        #expect(try conn.exists(none) == false)
    }

    struct BookWithReviews: Decodable, Equatable {
        var book: Book
        var reviews: [Review]
    }

    struct LoanWithBookReviews: Decodable, Equatable {
        var loan: Loan
        var book: BookWithReviews
    }

    @Test func aCursorOverAToManyInsideAToOneStopsEarlyAndMatchesTheFetch() throws {
        let conn = try Self.library()
        let request = Loan.including(
            required: Loan.book.including(all: Book.reviews.order("\(Book.reviews.column("id"))"))
        )
        .order("loan.id")
        let all = try conn.fetchAll(LoanWithBookReviews.self, request)
        #expect(all.map(\.loan.id) == [1, 2, 3, 5, 6, 7, 8])
        #expect(all.first?.book.reviews.map(\.id) == [1, 2])
        #expect(all.first { $0.loan.id == 3 }?.book.reviews == [])
        try conn.transaction { conn in
            let cursor = try conn.fetchCursor(LoanWithBookReviews.self, request)
            var firstTwo: [LoanWithBookReviews] = []
            while firstTwo.count < 2, let next = try cursor.next() {
                firstTwo.append(next)
            }
            #expect(firstTwo == Array(all.prefix(2)))
        }
        // The connection goes on after the early stop.
        #expect(try conn.fetchAll(LoanWithBookReviews.self, request) == all)
        let reversed = try conn.fetchAll(LoanWithBookReviews.self, request.reversed().limit(2))
        #expect(reversed.map(\.loan.id) == [8, 7])
        #expect(reversed.first?.book.reviews.map(\.id) == [4, 5])
    }

    struct TitleAndWriter: Decodable, Equatable {
        var title: String
        var writerName: String?
    }

    @Test func aSelectedAnnotationOfAnAssociationWithDistinctLimitAndCount() throws {
        let conn = try Self.library()
        let writer = Book.author.select("\(Book.author.column("name")) AS writerName")
        let request = Book.all().select("book.title").annotated(withOptional: writer).order("book.title")
        let rows = try conn.fetchAll(TitleAndWriter.self, request)
        #expect(rows.map(\.title) == ["Anon", "Dune", "Emma", "Iris", "Saga"])
        #expect(rows.map(\.writerName) == [nil, "Ann", "Bob", "Cyd", "Ann"])
        let names = Book.all().select("'x' AS title").annotated(withOptional: writer).distinct()
        #expect(try conn.fetchAll(TitleAndWriter.self, names).count == 4)
        #expect(try conn.fetchCount(names) == 4)
        #expect(try conn.fetchCount(request.limit(2, offset: 4)) == 1)
        #expect(try conn.fetchAll(TitleAndWriter.self, request.reversed().limit(2)).map(\.title) == ["Saga", "Iris"])
    }
}
