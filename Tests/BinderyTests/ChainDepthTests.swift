import Foundation
import Testing

@testable import Bindery

/// Issue 40's chains at depth 3 and below the first level: the same table three times in one query
/// with a step three deep, to-many steps inside other steps each run once for the whole result, a
/// selection on a nested step, and the errors a nested step throws, naming it.
@Suite struct ChainDepthTests {
    typealias Fixture = ChainedAssociationTests
    typealias Loan = Fixture.Loan
    typealias Book = Fixture.Book
    typealias Author = Fixture.Author
    typealias Country = Fixture.Country
    typealias Review = Fixture.Review
    typealias Publisher = Fixture.Publisher

    struct AuthorWhere: Decodable, Equatable {
        var author: Author
        var country: Country?
    }

    struct BookPeople: Decodable, Equatable {
        var book: Book
        var author: AuthorWhere
        var translator: AuthorWhere?
    }

    struct LoanPeople: Decodable, Equatable {
        var loan: Loan
        var book: BookPeople
        /// The reader (`Loan.reader`'s key is "author").
        var author: AuthorWhere?
    }

    @Test func theAuthorAndCountryTablesThreeTimesWithStepsThreeDeep() throws {
        let conn = try Fixture.library()
        // The author table as the book's author, its translator and the loan's reader; the country
        // table below each of them, three steps deep under the book.
        let book = Loan.book
            .including(required: Book.author.including(optional: Author.country))
            .including(
                optional: Book.translator.aliased("translator")
                    .including(optional: Author.country.aliased("translatorCountry")))
        let readerCountry = Author.country.aliased("readerCountry")
        let reader = Loan.reader.aliased("reader").including(optional: readerCountry)
        let request = Loan.including(required: book).including(optional: reader).order("loan.id")
        let ann = AuthorWhere(author: Fixture.ann, country: Fixture.france)
        let bob = AuthorWhere(author: Fixture.bob, country: nil)
        let cyd = AuthorWhere(author: Fixture.cyd, country: Fixture.peru)
        let dune = BookPeople(book: Fixture.dune, author: ann, translator: cyd)
        #expect(
            try conn.fetchAll(LoanPeople.self, request) == [
                LoanPeople(loan: Loan(id: 1, bookId: 1, readerId: 2), book: dune, author: bob),
                LoanPeople(
                    loan: Loan(id: 2, bookId: 2, readerId: 3),
                    book: BookPeople(book: Fixture.emma, author: bob, translator: nil), author: cyd),
                LoanPeople(loan: Loan(id: 5, bookId: 1, readerId: nil), book: dune, author: nil),
            ])
        // A condition across two of the three: the reader's country differs from the translator's.
        let apart = request.filter(
            "\(readerCountry.column("name")) <> \(Author.country.aliased("translatorCountry").column("name"))")
        #expect(try conn.fetchAll(LoanPeople.self, apart).map(\.loan.id) == [])
        let same = request.filter("\(readerCountry.column("id")) = \(Author.country.column("id"))")
        #expect(try conn.fetchAll(LoanPeople.self, same).map(\.loan.id) == [])
        let peruvianReader = request.filter("\(readerCountry.column("name")) = \("Peru")")
        #expect(try conn.fetchAll(LoanPeople.self, peruvianReader).map(\.loan.id) == [2])
    }

    /// Many parents, so that a query run per row would show in the count.
    static func bigLibrary() throws -> Connection {
        let conn = try Fixture.library()
        try conn.execute(
            script: """
                WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
                INSERT INTO author SELECT i, 'A' || i, 1 FROM n;
                WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 900)
                INSERT INTO book SELECT i, 'B' || i, 10 + i % 291, NULL, 1 + i % 2 FROM n;
                WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO review SELECT i, 10 + i % 891, i % 5 FROM n;
                WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 700)
                INSERT INTO loan SELECT i, 10 + i % 891, 1 FROM n;
                """)
        return conn
    }

    struct BookReviews: Decodable, Equatable {
        var book: Book
        var reviews: [Review]
    }

    struct AuthorBookReviews: Decodable, Equatable {
        var author: Author
        var books: [BookReviews]
    }

    struct LoanBookReviews: Decodable, Equatable {
        var loan: Loan
        var book: BookReviews
    }

    @Test func aToManyStepInsideAToManyOneRunsOnceForTheWholeResult() throws {
        let conn = try Self.bigLibrary()
        var authors: [AuthorBookReviews] = []
        let statements = try StatementLog.statements(conn) {
            authors = try conn.fetchAll(
                AuthorBookReviews.self, Author.including(all: Author.books.including(all: Book.reviews)))
        }
        #expect(authors.count == 294)
        let books = authors.flatMap(\.books)
        #expect(books.count == 894)
        #expect(books.map(\.reviews.count).reduce(0, +) == 1995)
        for info in books {
            #expect(info.reviews.allSatisfy { $0.bookId == info.book.id })
        }
        // One query for all the books and one for all their reviews, never one per author or book. (A
        // step's rows are read twice, their keys first, then to decode them: see the Joins article.)
        #expect(statements.filter { $0.hasPrefix(#"SELECT "author".*"#) }.count == 2)
        #expect(statements.filter { $0.hasPrefix(#"SELECT "books".*"#) }.count == 2)
        #expect(statements.filter { $0.hasPrefix(#"SELECT "reviews".*"#) }.count == 1)
        #expect(statements.filter { $0.hasPrefix("SELECT") && !$0.contains("pragma_") }.count == 5)
    }

    @Test func aToManyStepInsideAToOneOneRunsOnceForTheWholeResult() throws {
        let conn = try Self.bigLibrary()
        var loans: [LoanBookReviews] = []
        let statements = try StatementLog.statements(conn) {
            loans = try conn.fetchAll(
                LoanBookReviews.self, Loan.including(required: Loan.book.including(all: Book.reviews)))
        }
        #expect(loans.count == 695)
        #expect(loans.allSatisfy { info in info.book.reviews.allSatisfy { $0.bookId == info.book.book.id } })
        #expect(loans.contains { $0.book.reviews.count > 1 })
        #expect(statements.filter { $0.hasPrefix(#"SELECT "loan".*"#) }.count == 2)
        #expect(statements.filter { $0.hasPrefix(#"SELECT "reviews".*"#) }.count == 1)
        #expect(statements.filter { $0.hasPrefix("SELECT") && !$0.contains("pragma_") }.count == 3)
    }

    struct PublisherName: Decodable, Equatable {
        var name: String
    }

    struct BookPublisherName: Decodable, Equatable {
        var book: Book
        var publisher: PublisherName?
    }

    struct AuthorBooksPublishers: Decodable, Equatable {
        var author: Author
        var books: [BookPublisherName]
    }

    struct CountryName: Decodable, Equatable {
        var name: String
    }

    struct AuthorCountryName: Decodable, Equatable {
        var author: Author
        var country: CountryName
    }

    struct BookAuthorCountryName: Decodable, Equatable {
        var book: Book
        var author: AuthorCountryName
    }

    struct LoanDeepSelection: Decodable, Equatable {
        var loan: Loan
        var book: BookAuthorCountryName
    }

    @Test func aNestedStepsSelectionIsWhatItsValueDecodesFrom() throws {
        let conn = try Fixture.library()
        // Two to-one steps down, in the request's query.
        let country = Author.country.select("\(Author.country.column("name"))")
        let request = Loan.including(required: Loan.book.including(required: Book.author.including(required: country)))
            .order("loan.id")
        #expect(try conn.sql(for: request).text.contains(#""country"."name""#))
        #expect(!(try conn.sql(for: request).text.contains(#""country".*"#)))
        let loans = try conn.fetchAll(LoanDeepSelection.self, request)
        #expect(loans.map(\.loan.id) == [1, 5])
        #expect(loans.map(\.book.author.country) == [CountryName(name: "France"), CountryName(name: "France")])
        // A to-one step inside a to-many one, in the to-many step's query.
        let publisher = Book.publisher.select("\(Book.publisher.column("name"))")
        let books = Author.books.including(optional: publisher).order("\(Author.books.column("id"))")
        let authors = try conn.fetchAll(AuthorBooksPublishers.self, Author.including(all: books).order("author.id"))
        #expect(
            authors.map { $0.books.map { $0.publisher?.name } } == [["Ace", "Tor"], [nil], []])
        // A selection wider than the nested value throws, naming the step.
        let wide = Author.country.select("\(Author.country.column("name")), \(Author.country.column("id"))")
        let wideRequest = Loan.including(required: Loan.book.including(required: Book.author.including(required: wide)))
        #expect(
            throws: RowScopeError.invalidScope(
                property: "book.author.country",
                reason: "has 2 columns, but CountryName reads 1 (\"name\"): a .columns scope must hold exactly the"
                    + " columns its value reads")
        ) { try conn.fetchAll(LoanDeepSelection.self, wideRequest) }
    }

    struct WrongReviews: Decodable {
        var book: Book
        var reviews: [String]
    }

    struct AuthorWrongBooks: Decodable {
        var author: Author
        var books: [WrongReviews]
    }

    @Test func aNestedToManyStepIntoTheWrongTypeThrowsNamingItsPath() throws {
        let conn = try Fixture.library()
        let request = Author.including(all: Author.books.including(all: Book.reviews))
        do {
            _ = try conn.fetchAll(AuthorWrongBooks.self, request)
            Issue.record("decoded reviews into strings")
        } catch let error as DecodingError {
            let path: [any CodingKey]
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
                .dataCorrupted(let context):
                path = context.codingPath
            @unknown default:
                path = []
            }
            #expect(path.map(\.stringValue) == ["books", "reviews"], "\(error)")
        }
    }

    @Test func aThroughAssociationThatIncludesAnotherThrowsNamingIt() throws {
        let conn = try Fixture.library()
        let author = Loan.hasOne(
            Author.self, through: Loan.book.including(required: Book.publisher), using: Book.author)
        #expect(
            throws: AssociationError.invalidThrough(
                association: "author",
                reason: "goes through an association that includes or joins others: include them in the request,"
                    + " or in the association itself")
        ) {
            try conn.fetchAll(Loan.including(required: author))
        }
        let country = Loan.hasOne(
            Country.self, through: Loan.hasOne(Author.self, through: Loan.book, using: Book.author),
            using: Author.country)
        #expect(
            throws: AssociationError.invalidThrough(
                association: "country",
                reason: "goes through an association that goes through another: declare it through associations"
                    + " that each link two tables")
        ) {
            try conn.fetchAll(Loan.including(required: country))
        }
    }
    // MARK: A to-many association joined by another association

    @Test func aToOneStepJoinsAToManyOneToFilterTheRows() throws {
        let conn = try Fixture.library()
        let stars = Book.reviews.column("stars")
        // Loans of books with a review of 3 stars or more: Dune has two (5, 3), Emma one (4).
        let request = Loan.all()
            .joining(required: Loan.book.joining(required: Book.reviews.filter("\(stars) >= \(3)")))
            .order("loan.id")
        #expect(
            try conn.sql(for: request).text.contains(
                #"JOIN "review" AS "reviews" ON "reviews"."bookId" = "book"."id" AND ("reviews"."stars" >= ?)"#))
        #expect(try conn.fetchAll(request).map(\.id) == [1, 1, 2, 5, 5])
        #expect(try conn.fetchAll(request.distinct()).map(\.id) == [1, 2, 5])
        #expect(try conn.fetchCount(request.distinct()) == 3)
        // Joined by a LEFT JOIN: every loan with a book, once per review or once without any.
        let optional = Loan.all().joining(required: Loan.book.joining(optional: Book.reviews)).order("loan.id")
        #expect(try conn.fetchAll(optional).map(\.id) == [1, 1, 2, 3, 5, 5])
        // Ordered by the joined column, through a chain three steps deep.
        let byStars = Country.all()
            .joining(
                required: Country.hasMany(Author.self).joining(required: Author.books.joining(required: Book.reviews))
            )
            .order("\(stars) DESC")
        #expect(try conn.fetchAll(byStars).map(\.name) == ["France", "France", "France"])
    }

    struct BookTitle: Decodable, Equatable {
        var title: String
    }

    struct AuthorTitles: Decodable, Equatable {
        var author: Author
        var books: [Book]
    }

    @Test func aToManyStepJoinsAToManyOneToFilterItsRecords() throws {
        let conn = try Fixture.library()
        let stars = Book.reviews.column("stars")
        let order = "\(Author.books.column("id"))" as SQL
        let wellReviewed = Author.books.joining(required: Book.reviews.filter("\(stars) >= \(4)")).order(order)
        let authors = try conn.fetchAll(AuthorTitles.self, Author.including(all: wellReviewed).order("author.id"))
        #expect(authors.map { $0.books.map(\.title) } == [["Dune"], ["Emma"], []])
        // A record appears once per joined row that matches: Dune has two reviews of 3 stars or more.
        let twice = Author.books.joining(required: Book.reviews.filter("\(stars) >= \(3)")).order(order)
        let repeated = try conn.fetchAll(AuthorTitles.self, Author.including(all: twice).order("author.id"))
        #expect(repeated.map { $0.books.map(\.title) } == [["Dune", "Dune"], ["Emma"], []])
        // The aggregates of the association count the same rows.
        struct AuthorCount: Decodable, Equatable {
            var author: Author
            var bookCount: Int
        }
        let counts = try conn.fetchAll(
            AuthorCount.self, Author.all().annotated(with: wellReviewed.count.forKey("bookCount")).order("author.id"))
        #expect(counts.map(\.bookCount) == [1, 1, 0])
    }
    // MARK: An association's columns among the row's own

    struct TitleAndAuthor: Decodable, Equatable {
        var title: String
        var name: String
        var countryId: Int64?
    }

    @Test func annotatedWithAWholeAssociationSelectsAllItsColumnsAndRefusesAnAmbiguousName() throws {
        let conn = try Fixture.library()
        let request = Book.all().annotated(withRequired: Book.author).order("book.id")
        #expect(try conn.sql(for: request).text.hasPrefix(#"SELECT "book".*, "author".* FROM "book""#))
        #expect(
            try conn.fetchAll(TitleAndAuthor.self, request) == [
                TitleAndAuthor(title: "Dune", name: "Ann", countryId: 1),
                TitleAndAuthor(title: "Emma", name: "Bob", countryId: nil),
                TitleAndAuthor(title: "Saga", name: "Ann", countryId: 1),
            ])
        // Both tables have an "id": a property named so could mean either, and throws naming it.
        struct WithID: Decodable {
            var id: Int64
            var title: String
        }
        do {
            _ = try conn.fetchAll(WithID.self, request)
            Issue.record("decoded an id that two columns hold")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["id"])
            #expect(context.debugDescription.contains(#"column "id" appears 2 times in the row"#))
        }
        let optional = Book.all().annotated(withOptional: Book.author).order("book.id")
        struct TitleMaybeAuthor: Decodable, Equatable {
            var title: String
            var name: String?
        }
        #expect(try conn.fetchAll(TitleMaybeAuthor.self, optional).map(\.name) == ["Ann", "Bob", nil, "Ann"])
    }
}
