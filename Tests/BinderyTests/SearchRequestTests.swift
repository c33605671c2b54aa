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
        let conn = try Connection(path: ":memory:", options: .init(trustsSchema: true))
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
        let db = try Database.inMemory(options: .init(trustsSchema: true))
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
        let excerpt = SQL.snippet(pattern, in: "notes_fts", of: "notes", column: 1, before: "[", after: "]", tokens: 4)
        let marked = SQL.highlight(pattern, in: "notes_fts", of: "notes", column: 0, before: "<", after: ">")
        let request = Note.all().filter("archived = \(false)").matching(pattern, in: "notes_fts")
            .select("id, \(excerpt) AS excerpt, \(marked) AS marked")
        let hits = try conn.fetchAll(Hit.self, request)
        #expect(hits.map(\.id) == [2, 1, 5, 6])
        #expect(hits.first == Hit(id: 2, excerpt: "other", marked: "<swift>"))
        #expect(hits.last == Hit(id: 6, excerpt: "…w39 w40 [swift] end", marked: "long"))
        #expect(hits[1].excerpt == "[swift] [swift]")
    }
}
