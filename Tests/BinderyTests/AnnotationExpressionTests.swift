import Foundation
import Testing

@testable import Bindery

/// `annotated(with:as:)`: an expression of the row selected into a quoted column, decoded into a
/// property beside the record, with includes and aggregate annotations, and the clashes it refuses.
@Suite struct AnnotationExpressionTests {
    typealias Author = RequestFeatureFixture.Author
    typealias Book = RequestFeatureFixture.Book

    struct Doubled: Decodable, Equatable {
        var book: Book
        var doublePages: Int?
    }

    @Test func expressionDecodesBesideTheRecord() throws {
        let conn = try RequestFeatureFixture.connection()
        let request = Book.all().annotated(with: "\(Column("pages")) * \(2)", as: "doublePages").order("id")
        let rows = try conn.fetchAll(Doubled.self, request)
        #expect(rows.map(\.doublePages) == [200, 400, nil, 100, 600, 20, 40])
        #expect(rows.map(\.book) == (try conn.fetchAll(Book.all().order("id"))))
        let handWritten = try conn.fetchAll(Int?.self, sql: "SELECT pages * 2 FROM book ORDER BY id")
        #expect(rows.map(\.doublePages) == handWritten)
        #expect(request.debugDescription.contains(#"("pages" * ?) AS "doublePages""#))
        #expect(request.debugDescription.hasSuffix("-- arguments: [2]"))
        // Into a flat struct too, and from the static entry point.
        struct Flat: Decodable, Equatable {
            var id: Int64
            var title: String
            var doublePages: Int?
        }
        let flat = try conn.fetchAll(Flat.self, Book.annotated(with: "pages * 2", as: "doublePages").order("id"))
        #expect(flat.first == Flat(id: 1, title: "Sea", doublePages: 200))
        #expect(try conn.fetchOne(Doubled.self, request.filter("id = \(5)"))?.doublePages == 600)
    }

    @Test func theKeyIsQuoted() throws {
        struct Odd: Decodable, Equatable {
            var book: Book
            var value: String
            enum CodingKeys: String, CodingKey {
                case book
                case value = #"two "words""#
            }
        }
        let conn = try RequestFeatureFixture.connection()
        let request = Book.all().annotated(with: "upper(title)", as: #"two "words""#).order("id").limit(1)
        #expect(request.description.contains(#"(upper(title)) AS "two ""words""""#))
        #expect(try conn.fetchAll(Odd.self, request).map(\.value) == ["SEA"])
    }

    @Test func withIncludesAndAggregates() throws {
        struct Info: Decodable, Equatable {
            var author: Author
            var books: [Book]
            var bookCount: Int
            var shout: String
        }
        struct BookInfo: Decodable {
            var book: Book
            var author: Author
            var label: String
        }
        let conn = try RequestFeatureFixture.connection()
        let request = Author.including(all: Author.books).annotated(with: Author.books.count)
            .annotated(with: "upper(author.name) || \("!")", as: "shout").order("author.id")
        let rows = try conn.fetchAll(Info.self, request)
        #expect(rows.map(\.shout) == ["ANA!", "BO!", "CY!", "DI!"])
        #expect(rows.map(\.bookCount) == [3, 1, 0, 3])
        #expect(rows.map { $0.books.count } == [3, 1, 0, 3])
        let books = try conn.fetchAll(
            BookInfo.self,
            Book.all().including(required: Book.author)
                .annotated(with: "book.title || ' by ' || \(Book.author.column("name"))", as: "label").order("book.id"))
        #expect(books.first?.label == "Sea by Ana")
        #expect(books.allSatisfy { $0.label == $0.book.title + " by " + $0.author.name })
        // Counted, tested, filtered by its alias.
        #expect(try conn.fetchCount(request) == 4)
        #expect(try conn.exists(request.filter("shout = \("CY!")")))
        #expect(try conn.fetchAll(Info.self, request.filter("shout = \("CY!")")).map(\.author.id) == [3])
        // Sky (200 pages) and Ash (300).
        #expect(try conn.deleteAll(Book.all().annotated(with: "pages * 2", as: "d").filter("d > \(300)")) == 2)
        #expect(try conn.fetchAll(Book.all().order("id")).map(\.id) == [1, 3, 4, 6, 7])
    }

    @Test func anAggregateExpressionGroupsTheRows() throws {
        struct CountryBooks: Decodable, Equatable {
            var country: String
            var authors: Int
            var bookCount: Int
        }
        let conn = try RequestFeatureFixture.connection()
        let request = Author.all().select("country").annotated(with: "count(*)", as: "authors")
            .annotated(with: Author.books.count).group("country").order("country")
        #expect(
            try conn.fetchAll(CountryBooks.self, request) == [
                CountryBooks(country: "PT", authors: 2, bookCount: 3),
                CountryBooks(country: "SE", authors: 2, bookCount: 4),
            ])
        // Without a group, an aggregate expression makes one group of all rows.
        struct Total: Decodable, Equatable {
            var authors: Int
            var bookCount: Int
        }
        let total = Author.all().select("count(*) AS authors").annotated(with: Author.books.count)
        #expect(try conn.fetchAll(Total.self, total) == [Total(authors: 4, bookCount: 7)])
        let byExpression = Author.all().select("1 AS one").annotated(with: "count(*)", as: "authors")
            .annotated(with: Author.books.count)
        struct Counted: Decodable, Equatable {
            var authors: Int
            var bookCount: Int
        }
        #expect(try conn.fetchAll(Counted.self, byExpression) == [Counted(authors: 4, bookCount: 7)])
    }

    @Test func aKeyThatClashesThrowsNamingIt() throws {
        let conn = try RequestFeatureFixture.connection()
        #expect(throws: RequestError.annotationKeyClash(key: "pages", other: #"the column "pages" of "book""#)) {
            try conn.fetchAll(Doubled.self, Book.all().annotated(with: "pages * 2", as: "pages"))
        }
        #expect(throws: RequestError.annotationKeyClash(key: "TITLE", other: #"the column "title" of "book""#)) {
            try conn.fetchCount(Book.all().annotated(with: "upper(title)", as: "TITLE"))
        }
        #expect(throws: RequestError.annotationKeyClash(key: "d", other: "another annotation")) {
            try conn.fetchAll(Doubled.self, Book.all().annotated(with: "1", as: "d").annotated(with: "2", as: "d"))
        }
        // An aggregate annotation's key is checked against the columns too, with an expression present.
        #expect(throws: RequestError.annotationKeyClash(key: "name", other: #"the column "name" of "author""#)) {
            try conn.fetchAll(
                Author.all().annotated(with: Author.books.count.forKey("name")).annotated(with: "1", as: "x"))
        }
        #expect(throws: RequestError.annotationWithoutKey(annotation: "pages")) {
            try conn.fetchAll(Book.all().annotated(with: "pages", as: ""))
        }
        let error = RequestError.annotationKeyClash(key: "pages", other: #"the column "pages" of "book""#)
        #expect(error.description.contains("pages"))
        // With a selection, its own columns are the request's: the names are the user's to choose.
        struct Selected: Decodable, Equatable {
            var title: String
            var pages: Int?
        }
        let selected = try conn.fetchAll(
            Selected.self, Book.all().select("title").annotated(with: "pages * 2", as: "pages").filter("id = \(1)"))
        #expect(selected == [Selected(title: "Sea", pages: 200)])
    }
}
