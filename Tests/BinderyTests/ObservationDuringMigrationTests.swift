import Foundation
import Testing

@testable import Bindery

/// The `Database` actor with parallel readers meeting an observation of a chained request (books
/// with their author and the author's country, and each author's books) while a migration rebuilds
/// the author table (`alter(table:)`: a column added, another's collation changed, rows rewritten):
/// reads that run beside the migration see the state before it or after it, never between, and the
/// observation ends on the state after it, and follows later writes; each compared with plain SQL.
@Suite(.timeLimit(.minutes(1))) struct ObservationDuringMigrationTests {
    typealias Chain = CombinationChainTests

    struct AuthorInfo: Decodable, Equatable, Sendable {
        var author: Chain.Author
        var country: Chain.Country
    }

    struct BookInfo: Decodable, Equatable, Sendable {
        var book: Chain.Book
        var writer: AuthorInfo
    }

    static let request = Chain.Book.including(
        required: Chain.Book.author.forKey("writer").including(required: Chain.Author.country)
    ).order("book.id")

    /// What the request gives, by plain SQL: book id, title, author name, country name.
    static func expected(_ db: Database) async throws -> [String] {
        try await db.read { conn in
            try conn.fetchAll(
                String.self,
                sql: """
                    SELECT book.id || ' ' || book.title || ' ' || author.name || ' ' || country.name
                    FROM book JOIN author ON author.id = book.authorId JOIN country ON country.id = author.countryId
                    ORDER BY book.id
                    """)
        }
    }

    static func text(_ infos: [BookInfo]) -> [String] {
        infos.map { "\($0.book.id) \($0.book.title) \($0.writer.author.name) \($0.writer.country.name)" }
    }

    @Test func readsBesideAMigrationSeeOneSideAndTheObservationFollows() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            let db = try Database(path: path, options: Database.Options(readerCount: 3))
            try await DatabaseTestSupport.closing(db) { db in
                try await db.writeWithoutTransaction { conn in try conn.execute(script: Chain.schema) }
                let before = try await Self.expected(db)
                var values = db.observe(BookInfo.self, Self.request).makeAsyncIterator()
                #expect(Self.text(try #require(try await values.next())) == before)

                var migrator = Migrator()
                migrator.register("rebuild author") { conn in
                    try conn.alter(table: "author") { t in
                        t.add(column: "nick", .text)
                        t.change(column: "name", to: .text).collate("NOCASE")
                    }
                    try conn.execute("UPDATE author SET name = upper(name), nick = lower(name)")
                    try conn.execute("UPDATE country SET name = name || '!' WHERE id = \(1)")
                }
                let readers = Task {
                    var seen: [[String]] = []
                    for _ in 0..<40 {
                        seen.append(Self.text(try await db.fetchAll(BookInfo.self, Self.request)))
                    }
                    return seen
                }
                try await migrator.migrate(db)
                let after = try await Self.expected(db)
                #expect(after != before)
                for state in try await readers.value {
                    #expect(state == before || state == after, "\(state)")
                }
                var last: [String] = []
                while last != after, let value = try await values.next() {
                    last = Self.text(value)
                    #expect(last == before || last == after)
                }
                // A write after the migration, at the end of the chain.
                try await db.write { conn in try conn.execute("UPDATE country SET name = \("Chile") WHERE id = \(2)") }
                let later = try await Self.expected(db)
                while last != later, let value = try await values.next() {
                    last = Self.text(value)
                }
                #expect(last == later)
            }
        }
    }
}
