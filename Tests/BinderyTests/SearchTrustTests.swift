import Foundation
import Testing

@testable import Bindery

/// Search tables and schema trust: trigger-kept tables need a connection that trusts its schema and
/// say so at once; a file opened without trust refuses writes with an explained error but searches;
/// tables without triggers need no trust.
@Suite struct SearchTrustTests {
    struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64?
        var title: String
        var body: String
    }

    static func ids(_ text: String, in conn: Connection) throws -> [Int64] {
        guard let pattern = SearchPattern.all(text) else { return [] }
        return try conn.fetchAll(Note.all().matching(pattern, in: "notes_fts", ranked: false).order("id")).compactMap(
            \.id)
    }

    @Test(arguments: [SearchContent.external, .contentless])
    func anUntrustedConnectionRefusesTriggersAtOnce(content: SearchContent) throws {
        let conn = try Connection(path: ":memory:")
        try conn.createTable(for: Note.self)
        let error = try #require(throws: SearchTableError.self) {
            try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"], content: content)
        }
        #expect(error == .untrustedSchema(searchTable: "notes_fts"))
        #expect(error.description.contains("\"notes_fts\""))
        #expect(error.description.contains("schemaTrust: .trustedSchema"))
        // Nothing was created, and the table still takes writes.
        let names = try conn.rows("SELECT name FROM sqlite_master WHERE name LIKE 'notes_fts%'", arguments: [])
        #expect(names.isEmpty)
        try conn.insert(Note(id: nil, title: "still", body: "writable"))
    }

    @Test func tablesWithoutTriggersWorkWithoutTrust() throws {
        let conn = try Connection(path: ":memory:")
        try conn.createTable(for: Note.self)
        try conn.insert(Note(id: nil, title: "Before", body: "already here"))
        try conn.create(
            searchTable: "notes_fts", on: "notes", columns: ["title", "body"], content: .contentless, keptInStep: false)
        #expect(try Self.ids("already", in: conn) == [1])
        // The app keeps the index itself: a contentless table needs the old values to delete a row.
        let note = try conn.insert(Note(id: nil, title: "Groceries", body: "milk"))
        try conn.execute(
            "INSERT INTO notes_fts(rowid, title, body) VALUES (\(note.id), \(note.title), \(note.body))")
        #expect(try Self.ids("milk", in: conn) == [2])
        try conn.execute(
            "INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', \(note.id), \(note.title), \(note.body))"
        )
        #expect(try conn.delete(note))
        #expect(try Self.ids("milk", in: conn).isEmpty)
        let triggers = try conn.rows("SELECT name FROM sqlite_master WHERE type = 'trigger'", arguments: [])
        #expect(triggers.isEmpty)
        try conn.checkIntegrity(searchTable: "notes_fts")

        // External content without triggers: rebuilt on demand.
        try conn.create(searchTable: "later_fts", on: "notes", columns: ["body"], keptInStep: false)
        try conn.insert(Note(id: nil, title: "New", body: "cheese"))
        try conn.rebuild(searchTable: "later_fts")
        let found = try conn.rows("SELECT rowid FROM later_fts WHERE later_fts MATCH 'cheese'", arguments: [])
        #expect(found.count == 1)
    }

    @Test func aFileOpenedWithoutTrustExplainsTheRefusedWriteButSearches() async throws {
        try await ReliabilityTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("notes.sqlite").path
            do {
                let trusting = try Connection(path: path, options: .init(trustsSchema: true))
                defer { trusting.close() }
                try trusting.createTable(for: Note.self)
                try trusting.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"])
                try trusting.insert(Note(id: nil, title: "Swift", body: "and SQLite"))
            }
            let conn = try Connection(path: path)
            defer { conn.close() }
            let refused = thrownSQLiteError { try conn.insert(Note(id: nil, title: "Kotlin", body: "too")) }
            #expect(refused?.code == .error)
            #expect(refused?.message.hasPrefix("unsafe use of virtual table \"notes_fts\"") == true)
            #expect(refused?.message.contains("search table") == true)
            #expect(refused?.message.contains("schemaTrust: .trustedSchema") == true)
            #expect(try conn.fetchCount(Note.all()) == 1)
            // Reading and searching run no trigger: they need no trust.
            let pattern = try #require(SearchPattern.prefix("sq"))
            let excerpt = SQL.snippet(in: "notes_fts", before: "[", after: "]")
            let hits = try conn.fetchAll(
                String.self, Note.all().matching(pattern, in: "notes_fts").select("\(excerpt)"))
            #expect(hits == ["and [SQLite]"])

            let db = try Database(path: path)
            await #expect(throws: SQLiteError.self) { try await db.insert(Note(id: nil, title: "Go", body: "")) }
            let found = try await db.fetchAll(Note.all().matching(pattern, in: "notes_fts"))
            #expect(found.map(\.title) == ["Swift"])
            try await db.close()
        }
    }
}
