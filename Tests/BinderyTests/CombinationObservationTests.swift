import Foundation
import Testing

@testable import Bindery

/// Chained associations meeting the `Database` actor: observations woken by writes several steps
/// down a chain, cursors over to-many steps that must read one snapshot while another connection
/// writes, and counts on reader connections.
@Suite(.timeLimit(.minutes(1))) struct CombinationObservationTests {
    typealias Chain = CombinationChainTests

    struct AuthorInfo: Decodable, Equatable, Sendable {
        var author: Chain.Author
        var country: Chain.Country
    }

    struct BookInfo: Decodable, Equatable, Sendable {
        var book: Chain.Book
        var writer: AuthorInfo
    }

    struct LoanInfo: Decodable, Equatable, Sendable {
        var loan: Chain.Loan
        var book: BookInfo
    }

    struct BookReviews: Decodable, Equatable, Sendable {
        var book: Chain.Book
        var reviews: [Chain.Review]
    }

    struct AuthorBooks: Decodable, Equatable, Sendable {
        var author: Chain.Author
        var books: [BookReviews]
    }

    struct AuthorWithBooks: Decodable, Equatable, Sendable {
        var author: Chain.Author
        var books: [Chain.Book]
    }

    private static func withLibrary(_ body: (Database, String) async throws -> Void) async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            let db = try Database(path: path, options: Database.Options(readerCount: 2))
            try await DatabaseTestSupport.closing(db) { db in
                try await db.writeWithoutTransaction { conn in try conn.execute(script: Chain.schema) }
                try await body(db, path)
            }
        }
    }

    @Test func anObservationOfAThreeStepChainWakesOnAWriteToTheLastStep() async throws {
        try await Self.withLibrary { db, _ in
            let request = Chain.Loan.including(
                required: Chain.Loan.book.including(
                    required: Chain.Book.author.forKey("writer").including(required: Chain.Author.country))
            ).order("loan.id")
            var values = db.observe(LoanInfo.self, request).makeAsyncIterator()
            let first = try #require(try await values.next())
            #expect(first.map(\.loan.id) == [1, 5, 6, 7, 8])
            #expect(Set(first.map(\.book.writer.country.name)) == ["France", "Peru"])
            try await db.write { conn in try conn.execute("UPDATE country SET name = \("Chile") WHERE id = \(2)") }
            let second = try #require(try await values.next())
            #expect(second.first { $0.loan.id == 7 }?.book.writer.country.name == "Chile")
        }
    }

    @Test func anObservationOfAToManyInsideAToManyWakesOnTheInnerTable() async throws {
        try await Self.withLibrary { db, _ in
            let request = Chain.Author.including(all: Chain.Author.books.including(all: Chain.Book.reviews))
                .order("author.id")
            var values = db.observe(AuthorBooks.self, request).makeAsyncIterator()
            let first = try #require(try await values.next())
            #expect(first.first?.books.flatMap(\.reviews).count == 4)
            try await db.write { conn in try conn.execute("INSERT INTO review VALUES (7, 4, 3)") }
            let second = try #require(try await values.next())
            #expect(second.first?.books.flatMap(\.reviews).map(\.id).sorted() == [1, 2, 4, 5, 7])
            #expect(try await db.fetchCount(request) == 4)
        }
    }

    @Test func aDatabaseCursorOverAToManyChainMatchesTheFetchAndStopsEarly() async throws {
        try await Self.withLibrary { db, _ in
            let request = Chain.Author.including(all: Chain.Author.books.including(all: Chain.Book.reviews))
                .order("author.id")
            let all = try await db.fetchAll(AuthorBooks.self, request)
            var seen: [AuthorBooks] = []
            for try await value in db.fetchCursor(AuthorBooks.self, request) {
                seen.append(value)
                if seen.count == 2 { break }
            }
            #expect(seen == Array(all.prefix(2)))
            // The reader came back: a second iteration sees every row.
            var count = 0
            for try await _ in db.fetchCursor(AuthorBooks.self, request.reversed()) { count += 1 }
            #expect(count == all.count)
        }
    }

    @Test func aCursorOverAToManyAssociationReadsOneSnapshotWhileAnotherConnectionWrites() async throws {
        try await Self.withLibrary { _, path in
            let reader = try Connection(path: path)
            let writer = try Connection(path: path)
            let request = Chain.Author.including(all: Chain.Author.books.order("\(Chain.Author.books.column("id"))"))
                .order("author.id")
            let before = try reader.fetchAll(AuthorWithBooks.self, request)
            let cursor = try reader.fetchCursor(AuthorWithBooks.self, request)
            // Committed after the cursor was made, before its first row.
            try writer.execute(
                script: """
                    INSERT INTO author VALUES (5, 'Eve', 2);
                    INSERT INTO book VALUES (6, 'Vega', 5, NULL), (7, 'Arc', 1, NULL);
                    """)
            var rows: [AuthorWithBooks] = []
            while let row = try cursor.next() { rows.append(row) }
            let after = try reader.fetchAll(AuthorWithBooks.self, request)
            // The parents and their records come from one snapshot: before the write, or after it.
            #expect(rows == before || rows == after, "\(rows.map { ($0.author.id, $0.books.map(\.id)) })")
        }
    }
}
