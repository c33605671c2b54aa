import Foundation
import Testing

@testable import Bindery

/// Requests filtered by a search pattern: matching rows only, best first by the weighted rank,
/// combined with other filters, limits and offsets.
@Suite struct SearchRequestTests {
    struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64?
        var title: String
        var body: String
        var archived: Bool
    }

    static func connection() throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.createTable(for: Note.self)
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"], weights: ["title": 10])
        for (title, body, archived) in [
            ("other", "swift swift", false), ("swift", "other", false), ("nothing", "here", false),
            ("swift old", "archived swift", true), ("more", "swift text", false),
        ] {
            try conn.insert(Note(id: nil, title: title, body: body, archived: archived))
        }
        return conn
    }

    @Test func matchingRowsComeBestFirstAndCombineWithFilters() throws {
        let conn = try Self.connection()
        let pattern = try #require(SearchPattern.all("swift"))
        let all = try conn.fetchAll(Note.all().matching(pattern, in: "notes_fts"))
        #expect(all.map(\.id) == [2, 4, 1, 5])
        let live = try conn.fetchAll(Note.all().filter("archived = \(false)").matching(pattern, in: "notes_fts"))
        #expect(live.map(\.id) == [2, 1, 5])
        let page = try conn.fetchAll(Note.all().matching(pattern, in: "notes_fts").limit(2, offset: 1))
        #expect(page.map(\.id) == [4, 1])
        let unranked = try conn.fetchAll(Note.all().order("id DESC").matching(pattern, in: "notes_fts", ranked: false))
        #expect(unranked.map(\.id) == [5, 4, 2, 1])
        #expect(try conn.fetchCount(Note.all().matching(pattern, in: "notes_fts")) == 4)
        #expect(try conn.exists(Note.all().matching(pattern, in: "notes_fts").filter("id = \(5)")))
        let none = try #require(SearchPattern.all("absent"))
        #expect(try conn.fetchAll(Note.all().matching(none, in: "notes_fts")).isEmpty)
    }

    @Test func rawPatternErrorsAreThrownWhenTheRequestRuns() throws {
        let conn = try Self.connection()
        let error = try #require(throws: SQLiteError.self) {
            try conn.fetchAll(Note.all().matching(SearchPattern(raw: "swift AND ("), in: "notes_fts"))
        }
        #expect(error.code == .error)
    }

    @Test func searchResultsAreObserved() async throws {
        let db = try Database.inMemory(options: .init(schemaTrust: .trustedSchema))
        try await db.write { conn in
            try conn.createTable(for: Note.self)
            try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"])
        }
        let pattern = try #require(SearchPattern.prefix("swi"))
        var iterator = db.observe(Note.all().matching(pattern, in: "notes_fts")).makeAsyncIterator()
        #expect(try await iterator.next()?.isEmpty == true)
        try await db.insert(Note(id: nil, title: "Swift", body: "notes", archived: false))
        #expect(try await iterator.next()?.map(\.title) == ["Swift"])
        try await db.write { conn in try conn.execute("UPDATE notes SET title = 'Kotlin'", arguments: []) }
        #expect(try await iterator.next()?.isEmpty == true)
    }

    @Test func snippetsAndHighlightsComeWithTheRecords() throws {
        struct Hit: Decodable, Equatable {
            var id: Int64
            var excerpt: String?
            var marked: String?
        }
        let conn = try Self.connection()
        try conn.insert(
            Note(
                id: nil, title: "long", body: (1...40).map { "w\($0)" }.joined(separator: " ") + " swift end",
                archived: false))
        let pattern = try #require(SearchPattern.all("swift"))
        let excerpt = SQL.snippet(in: "notes_fts", column: 1, before: "[", after: "]", tokens: 4)
        let marked = SQL.highlight(in: "notes_fts", column: 0, before: "<", after: ">")
        let request = Note.all().filter("archived = \(false)").matching(pattern, in: "notes_fts")
            .select("id, \(excerpt) AS excerpt, \(marked) AS marked")
        let hits = try conn.fetchAll(Hit.self, request)
        #expect(hits.map(\.id) == [2, 1, 5, 6])
        #expect(hits.first == Hit(id: 2, excerpt: "other", marked: "<swift>"))
        #expect(hits.last == Hit(id: 6, excerpt: "…w39 w40 [swift] end", marked: "long"))
        #expect(hits[1].excerpt == "[swift] [swift]")
        let best = try conn.fetchAll(Hit.self, request.limit(1, offset: 1))
        #expect(best == [Hit(id: 1, excerpt: "[swift] [swift]", marked: "other")])
    }

    @Test func rankedSearchIsOneJoinThatFTS5SortsItself() throws {
        let conn = try Self.connection()
        let pattern = try #require(SearchPattern.all("swift"))
        let request = Note.all().matching(pattern, in: "notes_fts").limit(20)
        let sql = try conn.sql(for: request)
        #expect(
            sql.text == #"SELECT "notes".* FROM "notes" JOIN (SELECT rowid AS "bindery.rowid", rank, "notes_fts" "#
                + #"FROM "notes_fts" WHERE ("notes_fts" MATCH ?)) AS "notes_fts" ON "notes_fts"."bindery.rowid" = "#
                + #""notes".rowid ORDER BY "notes_fts".rank LIMIT 20"#)
        let plan = try conn.rows(SQL(text: "EXPLAIN QUERY PLAN ") + sql).map { try $0["detail"] as String }
        // FTS5 returns the matches in rank order (index flag 32), and each row is found by its rowid:
        // no correlated subquery per row, no sort of all the matches.
        #expect(plan.count == 2)
        #expect(plan.first?.hasPrefix("SCAN notes_fts VIRTUAL TABLE INDEX 32:") == true)
        #expect(plan.last?.hasPrefix("SEARCH notes USING INTEGER PRIMARY KEY (rowid=?)") == true)
    }

    @Test func theTableColumnsStayUnambiguous() throws {
        let conn = try Self.connection()
        let pattern = try #require(SearchPattern.any("swift other"))
        let request = Note.all().filter("title <> \("more")").order("title")
            .matching(pattern, in: "notes_fts", ranked: false)
        #expect(try conn.fetchAll(request).map(\.title) == ["other", "swift", "swift old"])
        let ranked = Note.all().order("title DESC").matching(pattern, in: "notes_fts")
        let byRank = try conn.rows(
            "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rank", arguments: [pattern.sqliteValue]
        ).map { try $0[0] as Int64 }
        #expect(try conn.fetchAll(ranked).map(\.id) == byRank)
        #expect(byRank.count == 4)
        struct Scored: Decodable {
            var title: String
            var score: Double
        }
        let scored = try conn.fetchAll(
            Scored.self, Note.all().matching(pattern, in: "notes_fts").select("title, \"notes_fts\".rank AS score"))
        #expect(scored.map(\.score) == scored.map(\.score).sorted())
    }

    @Test func patternsForTheSameSearchTableMustAllMatch() throws {
        let conn = try Self.connection()
        let swift = try #require(SearchPattern.all("swift"))
        let archived = try #require(SearchPattern.all("archived"))
        let request = Note.all().matching(swift, in: "notes_fts").matching(archived, in: "notes_fts")
        #expect(try conn.fetchAll(request).map(\.id) == [4])
        #expect(try conn.fetchCount(request) == 1)
        #expect(request.description.components(separatedBy: "JOIN").count == 2)
    }

    @Test func searchCombinesWithAssociations() throws {
        struct Author: Record, Equatable {
            static let tableName = "authors"
            static let notes = hasMany(AuthoredNote.self)
            var id: Int64?
            var name: String
        }
        struct AuthoredNote: Record, Equatable {
            static let tableName = "authored_notes"
            static let author = belongsTo(Author.self)
            var id: Int64?
            var authorId: Int64
            var text: String
        }
        struct NoteWithAuthor: Decodable, Equatable {
            var authoredNote: AuthoredNote
            var author: Author
        }
        struct AuthorWithNotes: Decodable, Equatable {
            var author: Author
            var authoredNotes: [AuthoredNote]
        }
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE authors(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE authored_notes(
                    id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors(id), text TEXT NOT NULL);
                CREATE TABLE author_bios(id INTEGER PRIMARY KEY REFERENCES authors(id), bio TEXT NOT NULL);
                """)
        try conn.create(searchTable: "notes_fts", on: "authored_notes", columns: ["text"])
        try conn.create(searchTable: "authors_fts", on: "authors", columns: ["name"])
        let ana = try conn.insert(Author(id: nil, name: "Ana"))
        let bo = try conn.insert(Author(id: nil, name: "Bo"))
        let first = try conn.insert(AuthoredNote(id: nil, authorId: ana.id ?? 0, text: "swift and sqlite"))
        let second = try conn.insert(AuthoredNote(id: nil, authorId: bo.id ?? 0, text: "swift swift swift"))
        _ = try conn.insert(AuthoredNote(id: nil, authorId: bo.id ?? 0, text: "kotlin"))
        let swift = try #require(SearchPattern.all("swift"))

        let included = try conn.fetchAll(
            NoteWithAuthor.self,
            AuthoredNote.all().matching(swift, in: "notes_fts").including(required: AuthoredNote.author))
        #expect(
            included == [
                NoteWithAuthor(authoredNote: second, author: bo), NoteWithAuthor(authoredNote: first, author: ana),
            ])

        let byAna = AuthoredNote.all().joining(required: AuthoredNote.author)
            .filter("\(AuthoredNote.author.column("name")) = \("Ana")").matching(swift, in: "notes_fts")
        #expect(try conn.fetchAll(byAna) == [first])

        struct Excerpt: Decodable, Equatable {
            var id: Int64
            var excerpt: String?
        }
        let excerpts = try conn.fetchAll(
            Excerpt.self,
            AuthoredNote.all().matching(swift, in: "notes_fts").joining(optional: AuthoredNote.author)
                .select("authored_notes.id, \(SQL.snippet(in: "notes_fts", before: "[", after: "]")) AS excerpt"))
        #expect(
            excerpts == [
                Excerpt(id: second.id ?? 0, excerpt: "[swift] [swift] [swift]"),
                Excerpt(id: first.id ?? 0, excerpt: "[swift] and sqlite"),
            ])

        let anaPattern = try #require(SearchPattern.prefix("an"))
        let authors = try conn.fetchAll(
            AuthorWithNotes.self, Author.all().matching(anaPattern, in: "authors_fts").including(all: Author.notes))
        #expect(authors == [AuthorWithNotes(author: ana, authoredNotes: [first])])
    }
}
