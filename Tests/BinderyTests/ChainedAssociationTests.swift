import Foundation
import Testing

@testable import Bindery

/// Issue 40, part 1: to-one associations that chain (`Loan.book.including(required: Book.author)`),
/// to any depth in one query, each table under its own alias.
@Suite struct ChainedAssociationTests {
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
    }

    struct Publisher: Record, Equatable {
        static let tableName = "publisher"
        var id: Int64
        var name: String
    }

    struct Book: Record, Equatable {
        static let tableName = "book"
        var id: Int64
        var title: String
        var authorId: Int64?
        var translatorId: Int64?
        var publisherId: Int64?
        static let publisher = belongsTo(Publisher.self)
        static let reviews = hasMany(Review.self)
        static let author = belongsTo(Author.self, using: ForeignKey(["authorId"]))
        static let translator = belongsTo(Author.self, key: "translator", using: ForeignKey(["translatorId"]))
    }

    struct Review: Record, Equatable {
        static let tableName = "review"
        var id: Int64
        var bookId: Int64
        var stars: Int
        static let book = belongsTo(Book.self)
    }

    struct Loan: Record, Equatable {
        static let tableName = "loan"
        var id: Int64
        var bookId: Int64?
        var readerId: Int64?
        static let book = belongsTo(Book.self)
        /// The reader, an author too: the same key as `Book.author`, one level up.
        static let reader = belongsTo(Author.self, key: "author", using: ForeignKey(["readerId"]))
    }

    static let ann = Author(id: 1, name: "Ann", countryId: 1)
    static let bob = Author(id: 2, name: "Bob", countryId: nil)
    static let cyd = Author(id: 3, name: "Cyd", countryId: 2)
    static let france = Country(id: 1, name: "France")
    static let peru = Country(id: 2, name: "Peru")
    static let dune = Book(id: 1, title: "Dune", authorId: 1, translatorId: 3, publisherId: 1)
    static let emma = Book(id: 2, title: "Emma", authorId: 2, translatorId: nil, publisherId: nil)
    static let anon = Book(id: 3, title: "Anon", authorId: nil, translatorId: nil, publisherId: 2)
    static let saga = Book(id: 4, title: "Saga", authorId: 1, translatorId: nil, publisherId: 2)
    static let ace = Publisher(id: 1, name: "Ace")
    static let tor = Publisher(id: 2, name: "Tor")

    static func library() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE country(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, countryId INTEGER REFERENCES country);
                CREATE TABLE publisher(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                    authorId INTEGER REFERENCES author, translatorId INTEGER REFERENCES author,
                    publisherId INTEGER REFERENCES publisher);
                CREATE TABLE loan(id INTEGER PRIMARY KEY, bookId INTEGER REFERENCES book,
                    readerId INTEGER REFERENCES author);
                INSERT INTO country VALUES (1, 'France'), (2, 'Peru');
                INSERT INTO author VALUES (1, 'Ann', 1), (2, 'Bob', NULL), (3, 'Cyd', 2);
                INSERT INTO publisher VALUES (1, 'Ace'), (2, 'Tor');
                INSERT INTO book VALUES (1, 'Dune', 1, 3, 1), (2, 'Emma', 2, NULL, NULL), (3, 'Anon', NULL, NULL, 2),
                    (4, 'Saga', 1, NULL, 2);
                CREATE TABLE review(id INTEGER PRIMARY KEY, bookId INTEGER NOT NULL REFERENCES book, stars INTEGER NOT NULL);
                INSERT INTO review VALUES (1, 1, 5), (2, 1, 3), (3, 2, 4), (4, 4, 1);
                INSERT INTO loan VALUES (1, 1, 2), (2, 2, 3), (3, 3, 1), (4, NULL, 1), (5, 1, NULL);
                """)
        return conn
    }

    struct AuthorInfo: Decodable, Equatable {
        var author: Author
        var country: Country
    }

    struct BookInfo: Decodable, Equatable {
        var book: Book
        var author: AuthorInfo
    }

    struct LoanInfo: Decodable, Equatable {
        var loan: Loan
        var book: BookInfo
    }

    @Test func aChainOfThreeToOneStepsIsOneQuery() throws {
        let conn = try Self.library()
        let request = Loan.including(
            required: Loan.book.including(required: Book.author.including(required: Author.country))
        ).order("loan.id")
        let sql = try conn.sql(for: request).text
        #expect(
            sql
                == #"SELECT "loan".*, "book".*, "author".*, "country".* FROM "loan" JOIN "book" AS "book" ON "book"."id" = "loan"."bookId" JOIN "author" AS "author" ON "author"."id" = "book"."authorId" JOIN "country" AS "country" ON "country"."id" = "author"."countryId" ORDER BY loan.id"#
        )
        let loans = try conn.fetchAll(LoanInfo.self, request)
        let dune = BookInfo(book: Self.dune, author: AuthorInfo(author: Self.ann, country: Self.france))
        #expect(
            loans == [
                LoanInfo(loan: Loan(id: 1, bookId: 1, readerId: 2), book: dune),
                LoanInfo(loan: Loan(id: 5, bookId: 1, readerId: nil), book: dune),
            ])
        // The request's own record type reads its own columns only.
        #expect(try conn.fetchAll(request).map(\.id) == [1, 5])
        #expect(try conn.fetchCount(request) == 2)
    }

    struct OptionalBookInfo: Decodable, Equatable {
        var book: Book
        var author: Author
    }

    struct LoanMaybeBook: Decodable, Equatable {
        var loan: Loan
        var book: OptionalBookInfo?
    }

    @Test func anOptionalStepWithARequiredOneInsideIsNilWhenEitherIsMissing() throws {
        let conn = try Self.library()
        let request = Loan.including(optional: Loan.book.including(required: Book.author)).order("loan.id")
        let sql = try conn.sql(for: request).text
        #expect(
            sql.contains(
                #"LEFT JOIN "book" AS "book" ON "book"."id" = "loan"."bookId" AND EXISTS(SELECT 1 FROM "author" AS "author" WHERE "author"."id" = "book"."authorId") LEFT JOIN "author""#
            ))
        let loans = try conn.fetchAll(LoanMaybeBook.self, request)
        #expect(loans.map(\.loan.id) == [1, 2, 3, 4, 5])
        #expect(
            loans.map(\.book) == [
                OptionalBookInfo(book: Self.dune, author: Self.ann),
                OptionalBookInfo(book: Self.emma, author: Self.bob),
                nil,  // Anon has no author: the book is left out with it
                nil,  // no book
                OptionalBookInfo(book: Self.dune, author: Self.ann),
            ])
    }

    struct BookMaybeAuthor: Decodable, Equatable {
        var book: Book
        var author: Author?
    }

    struct LoanMaybeBookMaybeAuthor: Decodable, Equatable {
        var loan: Loan
        var book: BookMaybeAuthor?
    }

    @Test func optionalStepsKeepEachLevelThatIsThere() throws {
        let conn = try Self.library()
        let request = Loan.including(optional: Loan.book.including(optional: Book.author)).order("loan.id")
        let loans = try conn.fetchAll(LoanMaybeBookMaybeAuthor.self, request)
        #expect(
            loans.map(\.book) == [
                BookMaybeAuthor(book: Self.dune, author: Self.ann), BookMaybeAuthor(book: Self.emma, author: Self.bob),
                BookMaybeAuthor(book: Self.anon, author: nil), nil, BookMaybeAuthor(book: Self.dune, author: Self.ann),
            ])
    }

    struct BookWithTwoAuthors: Decodable, Equatable {
        var book: Book
        var author: Author
        var translator: Author?
    }

    struct LoanWithReader: Decodable, Equatable {
        var loan: Loan
        var author: Author
        var book: BookWithTwoAuthors
    }

    @Test func theSameTableThreeTimesNeverMixesColumns() throws {
        let conn = try Self.library()
        // Loan.reader and Book.author share the key "author": the second gets its own alias.
        let bookAuthor = Book.author.aliased("bookAuthor")
        let request = Loan.including(required: Loan.reader)
            .including(
                required: Loan.book.including(required: bookAuthor).including(optional: Book.translator)
            )
            .filter("\(bookAuthor.column("name")) <> \(Loan.reader.column("name"))")
            .order("loan.id")
        let loans = try conn.fetchAll(LoanWithReader.self, request)
        #expect(
            loans == [
                LoanWithReader(
                    loan: Loan(id: 1, bookId: 1, readerId: 2), author: Self.bob,
                    book: BookWithTwoAuthors(book: Self.dune, author: Self.ann, translator: Self.cyd)),
                LoanWithReader(
                    loan: Loan(id: 2, bookId: 2, readerId: 3), author: Self.cyd,
                    book: BookWithTwoAuthors(book: Self.emma, author: Self.bob, translator: nil)),
            ])
    }

    @Test func twoTablesUnderOneAliasThrowNamingBoth() throws {
        let conn = try Self.library()
        let request = Loan.including(required: Loan.reader).including(
            required: Loan.book.including(required: Book.author))
        #expect(throws: AssociationError.duplicateAlias(alias: "author", first: "author", second: "book.author")) {
            try conn.fetchAll(LoanWithReader.self, request)
        }
        #expect(
            AssociationError.duplicateAlias(alias: "author", first: "author", second: "book.author").description
                .contains("aliased(_:)"))
    }

    @Test func twoAssociationsWithOneKeyInOneValueThrowNamingThePath() throws {
        let conn = try Self.library()
        let twice = Loan.book.including(required: Book.author).including(optional: Book.author.aliased("other"))
        #expect(throws: AssociationError.duplicateKey(association: "book.author")) {
            try conn.fetchAll(LoanInfo.self, Loan.including(required: twice))
        }
    }

    struct LoanAndAuthor: Decodable, Equatable {
        var loan: Loan
        var author: Author
    }

    @Test func aJoinedStepLeavesWhatItIncludesToTheLevelAbove() throws {
        let conn = try Self.library()
        let request = Loan.all()
            .joining(required: Loan.book.including(required: Book.author))
            .filter("\(Loan.book.column("title")) = \("Emma")")
        #expect(
            try conn.fetchAll(LoanAndAuthor.self, request) == [
                LoanAndAuthor(loan: Loan(id: 2, bookId: 2, readerId: 3), author: Self.bob)
            ])
    }

    @Test func joinedStepsFilterCountAndDelete() throws {
        let conn = try Self.library()
        let french = Loan.all()
            .joining(required: Loan.book.joining(required: Book.author.joining(required: Author.country)))
            .filter("\(Author.country.column("name")) = \("France")")
        #expect(try conn.fetchAll(french.order("loan.id")).map(\.id) == [1, 5])
        #expect(try conn.fetchCount(french) == 2)
        #expect(try conn.exists(french))
        #expect(try conn.deleteAll(french) == 2)
        #expect(try conn.fetchAll(Loan.all().order("id")).map(\.id) == [2, 3, 4])
    }

    struct BookInfoMisnamed: Decodable {
        var book: Book
        var writer: Author
    }

    struct LoanMisnamed: Decodable {
        var loan: Loan
        var book: BookInfoMisnamed
    }

    @Test func aPropertyThatNoStepFillsThrowsNamingIt() throws {
        let conn = try Self.library()
        let request = Loan.including(required: Loan.book.including(required: Book.author))
        do {
            _ = try conn.fetchAll(LoanMisnamed.self, request)
            Issue.record("decoded a property that no association fills")
        } catch let error as RowScopeError {
            #expect(error == .missingColumns(property: "book.writer", type: "Author", table: "author"))
        }
    }

    @Test func aNestedAssociationsFilterGoesIntoItsJoin() throws {
        let conn = try Self.library()
        let request = Loan.including(
            optional: Loan.book.including(optional: Book.author.filter("\(Book.author.column("name")) = \("Ann")"))
        ).order("loan.id")
        let loans = try conn.fetchAll(LoanMaybeBookMaybeAuthor.self, request)
        #expect(loans.map { $0.book?.author?.name } == ["Ann", nil, nil, nil, "Ann"])
        #expect(loans.map { $0.book?.book.title } == ["Dune", "Emma", "Anon", nil, "Dune"])
    }

    @Test func aRequestPrintedWithoutAConnectionShowsEachStep() {
        let request = Loan.including(required: Loan.book.including(required: Book.author))
        #expect(request.description.contains(#"JOIN "author" AS "author" ON "author"."id" = "book"."authorId""#))
    }

    // MARK: To-one steps inside a to-many one

    struct BookAndPublisher: Decodable, Equatable {
        var book: Book
        var publisher: Publisher
    }

    struct AuthorBooks: Decodable, Equatable {
        var author: Author
        var books: [BookAndPublisher]
    }

    @Test func aToManyStepIncludesToOneStepsInItsOwnQuery() throws {
        let conn = try Self.library()
        let books = Author.books.including(required: Book.publisher).order("\(Author.books.column("title"))")
        let authors = try conn.fetchAll(AuthorBooks.self, Author.including(all: books).order("author.id"))
        #expect(
            authors == [
                AuthorBooks(
                    author: Self.ann,
                    books: [
                        BookAndPublisher(book: Self.dune, publisher: Self.ace),
                        BookAndPublisher(book: Self.saga, publisher: Self.tor),
                    ]),
                // Emma has no publisher: the required step leaves it out.
                AuthorBooks(author: Self.bob, books: []),
                AuthorBooks(author: Self.cyd, books: []),
            ])
        // The same request into the books alone.
        struct AuthorBookRecords: Decodable, Equatable {
            var author: Author
            var books: [Book]
        }
        #expect(
            try conn.fetchAll(AuthorBookRecords.self, Author.including(all: books).order("author.id")).map(\.books)
                == [[Self.dune, Self.saga], [], []])
    }

    struct BookMaybePublisherAndCountry: Decodable, Equatable {
        var book: Book
        var publisher: Publisher?
    }

    struct AuthorAllBooks: Decodable, Equatable {
        var author: Author
        var country: Country?
        var books: [BookMaybePublisherAndCountry]
    }

    @Test func optionalStepsInsideAToManyOneKeepEveryRecord() throws {
        let conn = try Self.library()
        let books = Author.books.including(optional: Book.publisher).order("\(Author.books.column("id"))")
        let request = Author.including(all: books).including(optional: Author.country).order("author.id")
        let authors = try conn.fetchAll(AuthorAllBooks.self, request)
        #expect(authors.map(\.country) == [Self.france, nil, Self.peru])
        #expect(
            authors.map(\.books) == [
                [
                    BookMaybePublisherAndCountry(book: Self.dune, publisher: Self.ace),
                    BookMaybePublisherAndCountry(book: Self.saga, publisher: Self.tor),
                ],
                [BookMaybePublisherAndCountry(book: Self.emma, publisher: nil)], [],
            ])
    }

    @Test func aToManyStepsJoinedStepFiltersItsRecordsAndItsCount() throws {
        let conn = try Self.library()
        let torBooks = Author.books.joining(
            required: Book.publisher.filter("\(Book.publisher.column("name")) = \("Tor")"))
        struct AuthorTorBooks: Decodable, Equatable {
            var author: Author
            var books: [Book]
            var bookCount: Int
        }
        let authors = try conn.fetchAll(
            AuthorTorBooks.self, Author.including(all: torBooks).annotated(with: torBooks.count).order("author.id"))
        #expect(authors.map(\.books) == [[Self.saga], [], []])
        #expect(authors.map(\.bookCount) == [1, 0, 0])
    }

    @Test func aToManyStepsAliasesAreItsQuerysOwn() throws {
        let conn = try Self.library()
        // "author" names the request's table and a table of the books' query: two queries, no clash.
        struct BookWithAuthor: Decodable, Equatable {
            var book: Book
            var author: Author
        }
        struct AuthorAndBooks: Decodable, Equatable {
            var author: Author
            var books: [BookWithAuthor]
        }
        let books = Author.books.including(required: Book.author).order("\(Author.books.column("id"))")
        let authors = try conn.fetchAll(AuthorAndBooks.self, Author.including(all: books).order("author.id"))
        #expect(
            authors[0].books == [
                BookWithAuthor(book: Self.dune, author: Self.ann), BookWithAuthor(book: Self.saga, author: Self.ann),
            ])
        // Two steps of the books' query under one alias still throw.
        let twice = Author.books.including(required: Book.author).including(optional: Book.translator.aliased("author"))
        #expect(
            throws: AssociationError.duplicateAlias(alias: "author", first: "books.author", second: "books.translator")
        ) {
            try conn.fetchAll(AuthorAndBooks.self, Author.including(all: twice))
        }
    }

    @Test func aToManyStepIntoTheWrongElementTypeThrowsNamingIt() throws {
        let conn = try Self.library()
        struct Wrong: Decodable {
            var author: Author
            var books: [String: Int]
        }
        let books = Author.books.including(required: Book.publisher)
        #expect(throws: DecodingError.self) {
            try conn.fetchAll(Wrong.self, Author.including(all: books))
        }
    }

    @Test func aToManyStepRunsOneQueryForAllItsRecordsWithTheirSteps() throws {
        let conn = try Self.library()
        try conn.execute(
            script: """
                WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
                INSERT INTO author SELECT i, 'A' || i, 1 FROM n;
                WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 900)
                INSERT INTO book SELECT i, 'B' || i, 10 + i % 291, NULL, 1 + i % 2 FROM n;
                """)
        let books = Author.books.including(required: Book.publisher)
        var authors: [AuthorBooks] = []
        let statements = try StatementLog.statements(conn) {
            authors = try conn.fetchAll(AuthorBooks.self, Author.including(all: books).order("author.id"))
        }
        #expect(authors.count == 294)
        #expect(authors.map(\.books.count).reduce(0, +) == 893)
        for info in authors {
            #expect(
                info.books.allSatisfy { $0.book.authorId == info.author.id && $0.publisher.id == $0.book.publisherId })
        }
        #expect(statements.filter { $0.contains(#"SELECT "books".*"#) }.count == 1)
    }

    // MARK: To-many steps inside other steps

    static let r1 = Review(id: 1, bookId: 1, stars: 5)
    static let r2 = Review(id: 2, bookId: 1, stars: 3)
    static let r3 = Review(id: 3, bookId: 2, stars: 4)
    static let r4 = Review(id: 4, bookId: 4, stars: 1)

    struct BookReviews: Decodable, Equatable {
        var book: Book
        var reviews: [Review]
    }

    struct LoanBookReviews: Decodable, Equatable {
        var loan: Loan
        var book: BookReviews?
    }

    @Test func aToManyStepInsideAToOneOne() throws {
        let conn = try Self.library()
        let reviews = Book.reviews.order("\(Book.reviews.column("id"))")
        let request = Loan.including(optional: Loan.book.including(all: reviews)).order("loan.id")
        let loans = try conn.fetchAll(LoanBookReviews.self, request)
        #expect(
            loans.map(\.book) == [
                BookReviews(book: Self.dune, reviews: [Self.r1, Self.r2]),
                BookReviews(book: Self.emma, reviews: [Self.r3]),
                BookReviews(book: Self.anon, reviews: []), nil,
                BookReviews(book: Self.dune, reviews: [Self.r1, Self.r2]),
            ])
        // Joined only: the reviews decode where the book would have.
        struct LoanReviews: Decodable, Equatable {
            var loan: Loan
            var reviews: [Review]
        }
        let joined = try conn.fetchAll(
            LoanReviews.self, Loan.joining(required: Loan.book.including(all: reviews)).order("loan.id"))
        #expect(joined.map(\.reviews.count) == [2, 1, 0, 2])
    }

    struct BookEverything: Decodable, Equatable {
        var book: Book
        var publisher: Publisher?
        var reviews: [Review]
    }

    struct AuthorEverything: Decodable, Equatable {
        var author: Author
        var books: [BookEverything]
    }

    @Test func aToManyStepInsideAToManyOneIsOneMoreQueryForAllTheRecords() throws {
        let conn = try Self.library()
        let reviews = Book.reviews.order("\(Book.reviews.column("stars")) DESC")
        let books = Author.books.including(optional: Book.publisher).including(all: reviews)
            .order("\(Author.books.column("id"))")
        let authors = try conn.fetchAll(AuthorEverything.self, Author.including(all: books).order("author.id"))
        #expect(
            authors == [
                AuthorEverything(
                    author: Self.ann,
                    books: [
                        BookEverything(book: Self.dune, publisher: Self.ace, reviews: [Self.r1, Self.r2]),
                        BookEverything(book: Self.saga, publisher: Self.tor, reviews: [Self.r4]),
                    ]),
                AuthorEverything(
                    author: Self.bob, books: [BookEverything(book: Self.emma, publisher: nil, reviews: [Self.r3])]),
                AuthorEverything(author: Self.cyd, books: []),
            ])
    }

    struct CountryEverything: Decodable, Equatable {
        var country: Country
        var authors: [AuthorEverything]
    }

    @Test func aChainOfThreeToManySteps() throws {
        let conn = try Self.library()
        let books = Author.books.including(optional: Book.publisher).including(all: Book.reviews)
            .order("\(Author.books.column("id"))")
        let authors = Country.hasMany(Author.self).including(all: books)
        let countries = try conn.fetchAll(CountryEverything.self, Country.including(all: authors).order("country.id"))
        #expect(countries.map(\.country) == [Self.france, Self.peru])
        #expect(countries.map { $0.authors.map(\.author) } == [[Self.ann], [Self.cyd]])
        #expect(countries[0].authors[0].books.map(\.reviews.count) == [2, 1])
        #expect(countries[1].authors[0].books.isEmpty)
    }

    // MARK: Ordering by a to-one step, total

    @Test func aToOneStepsOrderingSortsTheRowsAfterTheRequestsOwn() throws {
        let conn = try Self.library()
        let byCountry = Author.country.order("\(Author.country.column("name")) DESC")
        let byAuthor = Book.author.order("\(Book.author.column("name")) DESC").including(required: byCountry)
        let chained = Book.all().order("book.title DESC").including(required: byAuthor)
        #expect(
            try conn.sql(for: chained).text.hasSuffix(
                #"ORDER BY book.title DESC, "author"."name" DESC, "country"."name" DESC"#))
        #expect(try conn.fetchAll(BookInfo.self, chained).map(\.book.title) == ["Saga", "Dune"])
        // Alone, the association's ordering sorts the rows: Bob's Emma, Ann's two, then Anon (NULL last).
        let byName = try conn.fetchAll(
            Book.including(optional: Book.author.order("\(Book.author.column("name")) DESC")))
        #expect(byName.first?.title == "Emma")
        #expect(Set(byName[1...2].map(\.title)) == ["Dune", "Saga"])
        #expect(byName.last?.title == "Anon")
    }

    @Test func aToOneStepsOrderingSortsAToManyStepsRecords() throws {
        let conn = try Self.library()
        let books = Author.books.order("\(Author.books.column("authorId"))")
            .including(optional: Book.publisher.order("\(Book.publisher.column("name")) DESC"))
        struct AuthorsBooks: Decodable, Equatable {
            var author: Author
            var books: [BookMaybePublisherAndCountry]
        }
        let authors = try conn.fetchAll(AuthorsBooks.self, Author.including(all: books).order("author.id"))
        // Ann's books: Saga (Tor) before Dune (Ace).
        #expect(authors[0].books.map(\.book.title) == ["Saga", "Dune"])
    }

    @Test func totalIsTheSumAsARealAndZeroWithoutRows() throws {
        let conn = try Self.library()
        struct BookStars: Decodable, Equatable {
            var book: Book
            var reviewStarsTotal: Double
            var reviewStarsSum: Int?
        }
        let rows = try conn.fetchAll(
            BookStars.self,
            Book.all().annotated(with: Book.reviews.total("stars"), Book.reviews.sum("stars")).order("book.id"))
        #expect(rows.map(\.reviewStarsTotal) == [8.0, 4.0, 0.0, 1.0])
        #expect(rows.map(\.reviewStarsSum) == [8, 4, nil, 1])
        struct Grouped: Decodable, Equatable {
            var publisherId: Int64?
            var reviewStarsTotal: Double
        }
        let grouped = try conn.fetchAll(
            Grouped.self,
            Book.all().select("book.publisherId AS publisherId").annotated(with: Book.reviews.total("stars"))
                .group("book.publisherId").order("book.publisherId"))
        #expect(
            grouped == [
                Grouped(publisherId: nil, reviewStarsTotal: 4), Grouped(publisherId: 1, reviewStarsTotal: 8),
                Grouped(publisherId: 2, reviewStarsTotal: 1),
            ])
    }

    // MARK: Through the database

    struct BookAndReviews: Decodable, Equatable, Sendable {
        var book: Book
        var reviews: [Review]
    }

    struct AuthorBooksReviews: Decodable, Equatable, Sendable {
        var author: Author
        var books: [BookAndReviews]
    }

    @Test func anObservationOfAChainWakesOnAWriteToItsDeepestTable() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chain-\(UUID().uuidString).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let db = try Database(path: path)
        try await db.write { conn in
            try conn.execute(
                script: """
                    CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, countryId INTEGER);
                    CREATE TABLE book(id INTEGER PRIMARY KEY, title TEXT NOT NULL, authorId INTEGER REFERENCES author,
                        translatorId INTEGER, publisherId INTEGER);
                    CREATE TABLE review(id INTEGER PRIMARY KEY, bookId INTEGER NOT NULL REFERENCES book,
                        stars INTEGER NOT NULL);
                    INSERT INTO author VALUES (1, 'Ann', NULL);
                    INSERT INTO book VALUES (1, 'Dune', 1, NULL, NULL);
                    """)
        }
        let request = Author.including(all: Author.books.including(all: Book.reviews)).order("author.id")
        var iterator = db.observe(AuthorBooksReviews.self, request).makeAsyncIterator()
        #expect(try await iterator.next()?.first?.books.first?.reviews == [])
        // A write to the reviews, two steps down, wakes the observation.
        try await db.insert(Review(id: 7, bookId: 1, stars: 5))
        #expect(try await iterator.next()?.first?.books.first?.reviews == [Review(id: 7, bookId: 1, stars: 5)])
        var stars: [Int] = []
        for try await info in db.fetchCursor(AuthorBooksReviews.self, request) {
            stars += info.books.flatMap { $0.reviews.map(\.stars) }
        }
        #expect(stars == [5])
    }

    // MARK: Through any association

    @Test func aToOneAssociationThroughTwoToOneOnes() throws {
        let conn = try Self.library()
        let author = Loan.hasOne(Author.self, through: Loan.book, using: Book.author)
        let loans = try conn.fetchAll(LoanAndAuthor.self, Loan.including(required: author).order("loan.id"))
        #expect(loans.map(\.loan.id) == [1, 2, 5])
        #expect(loans.map(\.author) == [Self.ann, Self.bob, Self.ann])
        struct LoanMaybeAuthor: Decodable, Equatable {
            var loan: Loan
            var author: Author?
        }
        let all = try conn.fetchAll(LoanMaybeAuthor.self, Loan.including(optional: author).order("loan.id"))
        #expect(all.map(\.author?.name) == ["Ann", "Bob", nil, nil, "Ann"])
        // The target's column, by its alias; the middle table's conditions filter the middle rows.
        let bobs = Loan.joining(required: author).filter("\(Book.author.column("name")) = \("Bob")")
        #expect(try conn.fetchAll(bobs).map(\.id) == [2])
        let dune = Loan.belongsTo(
            Author.self, through: Loan.book.filter("\(Loan.book.column("title")) = \("Dune")"), using: Book.author)
        #expect(try conn.fetchAll(Loan.joining(required: dune).order("loan.id")).map(\.id) == [1, 5])
    }

    @Test func aToManyAssociationThroughAToManyAndAToManyOne() throws {
        let conn = try Self.library()
        let reviews = Author.hasMany(Review.self, through: Author.books, using: Book.reviews)
            .order("\(Book.reviews.column("id"))")
        struct AuthorReviews: Decodable, Equatable {
            var author: Author
            var reviews: [Review]
            var reviewCount: Int
        }
        let authors = try conn.fetchAll(
            AuthorReviews.self, Author.including(all: reviews).annotated(with: reviews.count).order("author.id"))
        #expect(authors.map(\.reviews) == [[Self.r1, Self.r2, Self.r4], [Self.r3], []])
        #expect(authors.map(\.reviewCount) == [3, 1, 0])
        // The middle association's condition filters the books the reviews come through.
        let sagaReviews = Author.hasMany(
            Review.self, through: Author.books.filter("\(Author.books.column("title")) = \("Saga")"),
            using: Book.reviews)
        let saga = try conn.fetchAll(
            AuthorReviews.self, Author.including(all: sagaReviews).annotated(with: sagaReviews.count).order("author.id")
        )
        #expect(saga.map(\.reviews) == [[Self.r4], [], []])
        #expect(saga.map(\.reviewCount) == [1, 0, 0])
    }

    @Test func toManyAssociationsThroughAToOneOrWithAToOneStep() throws {
        let conn = try Self.library()
        struct LoanReviews: Decodable, Equatable {
            var loan: Loan
            var reviews: [Review]
        }
        let reviews = Loan.hasMany(Review.self, through: Loan.book, using: Book.reviews)
            .order("\(Book.reviews.column("id"))")
        let loans = try conn.fetchAll(LoanReviews.self, Loan.including(all: reviews).order("loan.id"))
        #expect(loans.map { $0.reviews.map(\.id) } == [[1, 2], [3], [], [], [1, 2]])
        struct AuthorPublishers: Decodable, Equatable {
            var author: Author
            var publishers: [Publisher]
        }
        let publishers = Author.hasMany(Publisher.self, through: Author.books, using: Book.publisher, key: "publishers")
            .order("\(Book.publisher.column("name"))")
        let authors = try conn.fetchAll(AuthorPublishers.self, Author.including(all: publishers).order("author.id"))
        #expect(authors.map { $0.publishers.map(\.name) } == [["Ace", "Tor"], [], []])
    }

    @Test func aThroughAssociationIsAStepOfAChain() throws {
        let conn = try Self.library()
        let country = Book.hasOne(Country.self, through: Book.author, using: Author.country)
        struct BookCountry: Decodable, Equatable {
            var book: Book
            var country: Country
        }
        struct LoanBookCountry: Decodable, Equatable {
            var loan: Loan
            var book: BookCountry
        }
        let loans = try conn.fetchAll(
            LoanBookCountry.self, Loan.including(required: Loan.book.including(required: country)).order("loan.id"))
        #expect(loans.map(\.loan.id) == [1, 5])
        #expect(loans.map(\.book.country) == [Self.france, Self.france])
        // Required below an optional step: a loan whose book's author has no country keeps a nil book.
        struct LoanMaybeBookCountry: Decodable, Equatable {
            var loan: Loan
            var book: BookCountry?
        }
        let all = try conn.fetchAll(
            LoanMaybeBookCountry.self, Loan.including(optional: Loan.book.including(required: country)).order("loan.id")
        )
        #expect(all.map { $0.book?.book.title } == ["Dune", nil, nil, nil, "Dune"])
    }

    @Test func aThroughAssociationOfAThroughOneThrowsNamingIt() throws {
        let conn = try Self.library()
        let author = Loan.hasOne(Author.self, through: Loan.book, using: Book.author)
        let country = Loan.hasOne(Country.self, through: author, using: Author.country)
        #expect(throws: AssociationError.self) {
            try conn.fetchAll(Loan.joining(required: country))
        }
        do {
            _ = try conn.fetchAll(Loan.joining(required: country))
        } catch let error as AssociationError {
            #expect("\(error)".contains("\"country\" goes through an association that goes through another"))
        }
    }

    // MARK: Selections and annotations of associated columns

    struct AuthorName: Decodable, Equatable {
        var name: String
    }

    @Test func anIncludedAssociationsSelectionIsWhatItsValueDecodesFrom() throws {
        let conn = try Self.library()
        struct BookAuthorName: Decodable, Equatable {
            var book: Book
            var author: AuthorName
        }
        let request = Book.including(required: Book.author.select("\(Book.author.column("name"))")).order("book.id")
        #expect(
            try conn.sql(for: request).text.hasPrefix(
                #"SELECT "book".*, "author"."name", "author"."id" AS "bindery.present" FROM"#))
        #expect(
            try conn.fetchAll(BookAuthorName.self, request) == [
                BookAuthorName(book: Self.dune, author: AuthorName(name: "Ann")),
                BookAuthorName(book: Self.emma, author: AuthorName(name: "Bob")),
                BookAuthorName(book: Self.saga, author: AuthorName(name: "Ann")),
            ])
        struct BookMaybeAuthorName: Decodable, Equatable {
            var book: Book
            var author: AuthorName?
        }
        let optional = Book.including(optional: Book.author.select("\(Book.author.column("name"))")).order("book.id")
        #expect(
            try conn.fetchAll(BookMaybeAuthorName.self, optional).map(\.author?.name) == ["Ann", "Bob", nil, "Ann"])
        // Selected columns that are all NULL in a row that has an author: a value, not a nil.
        struct AuthorCountry: Decodable, Equatable {
            var countryId: Int64?
        }
        struct BookAuthorCountry: Decodable, Equatable {
            var book: Book
            var author: AuthorCountry?
        }
        let countries = Book.author.select("\(Book.author.column("countryId"))")
        #expect(
            try conn.fetchAll(BookAuthorCountry.self, Book.including(optional: countries).order("book.id"))
                .map(\.author) == [
                    AuthorCountry(countryId: 1), AuthorCountry(countryId: nil), nil, AuthorCountry(countryId: 1),
                ])
        #expect(
            try conn.fetchAll(BookAuthorCountry.self, Book.including(required: countries).order("book.id"))
                .map(\.author) == [
                    AuthorCountry(countryId: 1), AuthorCountry(countryId: nil), AuthorCountry(countryId: 1),
                ])
        // A selection wider than the value it decodes into is an error naming it.
        let wide = Book.including(
            required: Book.author.select("\(Book.author.column("name")), \(Book.author.column("id"))"))
        #expect(throws: RowScopeError.self) { try conn.fetchAll(BookAuthorName.self, wide) }
    }

    @Test func annotatedWithAnAssociationSelectsItsColumnsAmongTheRowsOwn() throws {
        let conn = try Self.library()
        struct BookTitle: Decodable, Equatable {
            var title: String
            var authorName: String?
        }
        let name = Book.author.select("\(Book.author.column("name")) AS authorName")
        let required = Book.all().select("book.title").annotated(withRequired: name).order("book.id")
        #expect(
            try conn.fetchAll(BookTitle.self, required) == [
                BookTitle(title: "Dune", authorName: "Ann"), BookTitle(title: "Emma", authorName: "Bob"),
                BookTitle(title: "Saga", authorName: "Ann"),
            ])
        let optional = Book.all().select("book.title").annotated(withOptional: name).order("book.id")
        #expect(try conn.fetchAll(BookTitle.self, optional).map(\.authorName) == ["Ann", "Bob", nil, "Ann"])
        #expect(try conn.fetchCount(optional) == 4)
        #expect(try conn.fetchCount(required) == 3)
        // The annotation's alias is a column of the rows: conditions and deletes can name it.
        let anns = Book.all().annotated(withRequired: name).filter("authorName = \("Ann")")
        #expect(try conn.fetchAll(anns.order("book.id")).map(\.title) == ["Dune", "Saga"])
        try conn.execute(script: "DELETE FROM loan; DELETE FROM review")
        #expect(try conn.deleteAll(anns) == 2)
        #expect(try conn.fetchAll(Book.all().order("id")).map(\.title) == ["Emma", "Anon"])
    }

    @Test func aToManyAssociationsSelectionIsWhatItsElementsDecodeFrom() throws {
        let conn = try Self.library()
        struct Title: Decodable, Equatable {
            var title: String
        }
        struct AuthorTitles: Decodable, Equatable {
            var author: Author
            var books: [Title]
        }
        let titles = Author.books.select("\(Author.books.column("title"))").order("\(Author.books.column("title"))")
        let authors = try conn.fetchAll(AuthorTitles.self, Author.including(all: titles).order("author.id"))
        #expect(authors.map { $0.books.map(\.title) } == [["Dune", "Saga"], ["Emma"], []])
    }

    // MARK: Aliases that would name two tables

    @Test func anAggregatesJoinedStepAliasedAsTheRequestsTableThrows() throws {
        let conn = try Self.library()
        // In the count's subquery, "author" would name the step instead of the request's row.
        let books = Author.books.including(required: Book.author)
        #expect(throws: AssociationError.duplicateAlias(alias: "author", first: "author", second: "bookCount.author")) {
            try conn.fetchAll(Author.including(all: books).annotated(with: books.count))
        }
        // Aliased, the count counts each author's books again.
        let aliased = Author.books.including(required: Book.author.aliased("writer"))
        struct AuthorCount: Decodable, Equatable {
            var author: Author
            var bookCount: Int
        }
        let counts = try conn.fetchAll(AuthorCount.self, Author.all().annotated(with: aliased.count).order("author.id"))
        #expect(counts.map(\.bookCount) == [2, 1, 0])
        // A step aliased as the request's own table.
        #expect(throws: AssociationError.duplicateAlias(alias: "loan", first: "loan", second: "book")) {
            try conn.fetchAll(Loan.joining(required: Loan.book.aliased("loan")))
        }
        // The middle table of a to-many step, and one of its steps.
        let reviews = Loan.hasMany(Review.self, through: Loan.book, using: Book.reviews)
        #expect(throws: AssociationError.duplicateAlias(alias: "book", first: "reviews", second: "reviews.book")) {
            try conn.fetchAll(Loan.including(all: reviews.including(required: Review.book)))
        }
    }

    @Test func renamingAnAssociationAfterItsConditionsThrows() throws {
        let conn = try Self.library()
        let renamed = Book.author.filter("\(Book.author.column("countryId")) = \(1)").aliased("writer")
        let request = Loan.including(required: Loan.reader).including(required: Loan.book.including(required: renamed))
        #expect(throws: AssociationError.aliasChanged(association: "book.author", alias: "author", newAlias: "writer"))
        {
            try conn.fetchAll(LoanWithReader.self, request)
        }
        // Renamed first, its column(_:) names the new alias: the condition filters the book's author.
        let writer = Book.author.aliased("writer")
        let filtered = Loan.including(required: Loan.reader)
            .including(required: Loan.book.including(required: writer.filter("\(writer.column("countryId")) = \(1)")))
        #expect(try conn.fetchAll(LoanAndAuthor.self, filtered.order("loan.id")).map(\.loan.id) == [1])
        #expect(
            AssociationError.aliasChanged(association: "book.author", alias: "author", newAlias: "writer").description
                .contains("before filter"))
    }

    // MARK: Chains with the other features

    @Test func aChainWithLimitFetchOneAndTheDatabase() async throws {
        let conn = try Self.library()
        let books = Author.books.including(optional: Book.publisher).including(all: Book.reviews)
            .order("\(Author.books.column("id"))")
        let second = Author.including(all: books).order("author.id").limit(1, offset: 1)
        #expect(
            try conn.fetchAll(AuthorEverything.self, second) == [
                AuthorEverything(
                    author: Self.bob, books: [BookEverything(book: Self.emma, publisher: nil, reviews: [Self.r3])])
            ])
        #expect(
            try conn.fetchOne(AuthorEverything.self, Author.including(all: books).order("author.id"))?.books.count == 2)
        let loans = Loan.including(
            required: Loan.book.including(required: Book.author.including(required: Author.country)))
        #expect(try conn.fetchOne(LoanInfo.self, loans.order("loan.id DESC"))?.loan.id == 5)
        #expect(try conn.exists(loans.filter("loan.id = \(2)")) == false)
    }

    @Test func aThroughAssociationsCountInAGroupedRequest() throws {
        let conn = try Self.library()
        let reviews = Author.hasMany(Review.self, through: Author.books, using: Book.reviews)
        struct CountryReviews: Decodable, Equatable {
            var countryId: Int64?
            var reviewCount: Int
            var reviewStarsTotal: Double
        }
        let rows = try conn.fetchAll(
            CountryReviews.self,
            Author.all().select("author.countryId AS countryId")
                .annotated(with: reviews.count, reviews.total("stars")).group("author.countryId")
                .order("author.countryId"))
        #expect(
            rows == [
                CountryReviews(countryId: nil, reviewCount: 1, reviewStarsTotal: 4),
                CountryReviews(countryId: 1, reviewCount: 3, reviewStarsTotal: 9),
                CountryReviews(countryId: 2, reviewCount: 0, reviewStarsTotal: 0),
            ])
    }

    @Test func aChainRunsAgainAfterTheSchemaChanges() throws {
        let conn = try Self.library()
        let request = Loan.including(optional: Loan.book.including(all: Book.reviews)).order("loan.id")
        let before = try conn.fetchAll(LoanBookReviews.self, request)
        // A column added to a table in the middle of the chain: its scope widens, the values stay.
        try conn.execute(script: "ALTER TABLE book ADD COLUMN pages INTEGER; UPDATE book SET pages = 100")
        #expect(try conn.fetchAll(LoanBookReviews.self, request) == before)
        try conn.execute(script: "ALTER TABLE review ADD COLUMN note TEXT")
        #expect(try conn.fetchAll(LoanBookReviews.self, request) == before)
        // One level: the to-many keys stand before the included author's columns, which grow.
        struct BookAuthorReviews: Decodable, Equatable {
            var book: Book
            var author: Author
            var reviews: [Review]
        }
        let books = Book.including(required: Book.author).including(all: Book.reviews).order("book.id")
        let first = try conn.fetchAll(BookAuthorReviews.self, books)
        #expect(first.map { $0.reviews.map(\.id) } == [[1, 2], [3], [4]])
        try conn.execute(script: "ALTER TABLE author ADD COLUMN born INTEGER")
        #expect(try conn.fetchAll(BookAuthorReviews.self, books) == first)
    }
}
