import Foundation
import Testing

@testable import Bindery

/// Unindexed columns: stored in the search table (read from the content table) but never searched;
/// kept in step by the triggers through every write, INSERT OR REPLACE included; weights for them,
/// and a column named twice, are refused; renaming one is refused like renaming an indexed column.
@Suite struct SearchUnindexedColumnTests {
    struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64?
        var code: String
        var kind: String
        var body: String
    }

    static func connection(content: SearchContent = .external) throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            "CREATE TABLE notes(id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, kind TEXT, body TEXT)")
        try conn.insert(Note(id: nil, code: "a", kind: "draft", body: "swift notes"))
        try conn.create(
            searchTable: "notes_fts", on: "notes", columns: ["body"], unindexed: ["kind"], content: content)
        return conn
    }

    static func ids(_ text: String, in conn: Connection) throws -> [Int64] {
        let pattern = try #require(SearchPattern.all(text))
        return try conn.fetchAll(Note.all().matching(pattern, in: "notes_fts", ranked: false).order("id"))
            .compactMap(\.id)
    }

    @Test func unindexedColumnsAreStoredButNeverSearched() throws {
        let conn = try Self.connection()
        let stored: String = try conn.rows("SELECT sql FROM sqlite_schema WHERE name = 'notes_fts'")[0][0]
        #expect(stored.contains(#"fts5("body", "kind" UNINDEXED, content = 'notes'"#))
        #expect(try Self.ids("swift", in: conn) == [1])
        #expect(try Self.ids("draft", in: conn) == [])
        #expect(try conn.rows("SELECT kind FROM notes_fts WHERE notes_fts MATCH 'swift'")[0].values == [.text("draft")])
        // Column indexes of snippets and highlights stay those of the indexed columns.
        let highlighted = try conn.rows(
            "SELECT highlight(notes_fts, 0, '[', ']') FROM notes_fts WHERE notes_fts MATCH 'swift'")
        #expect(highlighted[0].values == [.text("[swift] notes")])
    }

    @Test(arguments: [SearchContent.external, .contentless])
    func triggersKeepThemInStepThroughEveryWrite(content: SearchContent) throws {
        let conn = try Self.connection(content: content)
        try conn.execute("PRAGMA recursive_triggers = OFF")
        var note = try conn.insert(Note(id: nil, code: "b", kind: "final", body: "sqlite draft"))
        note.kind = "archived"
        note.body = "sqlite archive"
        try conn.update(note)
        try conn.execute("INSERT OR REPLACE INTO notes(code, kind, body) VALUES ('a', 'draft', 'replaced text')")
        _ = try conn.upsert(Note(id: 9, code: "c", kind: "x", body: "upserted"))
        try conn.execute(
            "INSERT INTO notes(code, kind, body) VALUES ('c', 'y', 'again') "
                + "ON CONFLICT(code) DO UPDATE SET body = excluded.body, kind = excluded.kind")
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(try Self.ids("swift", in: conn) == [])
        #expect(try Self.ids("replaced", in: conn) == [3])
        #expect(try Self.ids("draft", in: conn) == [])
        #expect(try Self.ids("archive", in: conn) == [2])
        #expect(try Self.ids("again", in: conn) == [9])
        #expect(try conn.rows("SELECT count(*) FROM notes_fts_docsize")[0].values == [.integer(3)])
        if content == .external {
            let kinds = try conn.rows("SELECT kind FROM notes_fts ORDER BY rowid").map { try $0[0] as String }
            #expect(kinds == ["archived", "draft", "y"])
            try conn.rebuild(searchTable: "notes_fts")
            try conn.checkIntegrity(searchTable: "notes_fts")
        }
        try conn.execute("DELETE FROM notes")
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(try conn.rows("SELECT count(*) FROM notes_fts_docsize")[0].values == [.integer(0)])
    }

    /// A UNIQUE index added later makes the triggers again from the stored statement: the unindexed
    /// column stays among the columns they write.
    @Test func triggersMadeAgainKeepTheUnindexedColumns() throws {
        let conn = try Self.connection()
        try conn.create(index: "notes_body", on: "notes", columns: ["body"], unique: true)
        let trigger: String = try conn.rows("SELECT sql FROM sqlite_schema WHERE name = 'notes_fts_au'")[0][0]
        #expect(trigger.contains(#"old."kind""#))
        try conn.execute("INSERT INTO notes(code, kind, body) VALUES ('z', 'k', 'swift notes') ON CONFLICT DO NOTHING")
        try conn.execute("INSERT OR REPLACE INTO notes(code, kind, body) VALUES ('z', 'k', 'swift notes')")
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(try Self.ids("swift", in: conn) == [2])
    }

    @Test func badDeclarationsAreRefused() throws {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, code TEXT, kind TEXT, body TEXT)")
        #expect(throws: SearchTableError.weightForUnindexedColumn(searchTable: "f", column: "kind")) {
            try conn.create(searchTable: "f", on: "notes", columns: ["body"], unindexed: ["kind"], weights: ["kind": 2])
        }
        #expect(throws: SearchTableError.duplicateColumn(searchTable: "f", column: "BODY")) {
            try conn.create(searchTable: "f", on: "notes", columns: ["body"], unindexed: ["BODY"])
        }
        #expect(throws: SearchTableError.noColumns(searchTable: "f")) {
            try conn.create(searchTable: "f", on: "notes", columns: [], unindexed: ["kind"])
        }
        #expect(try conn.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'f%'").isEmpty)
    }

    @Test func renamingAnUnindexedColumnIsRefused() throws {
        let conn = try Self.connection()
        #expect(
            throws: SearchTableError.indexedColumnRenamed(searchTable: "notes_fts", table: "notes", column: "kind")
        ) {
            try conn.alter(table: "notes") { $0.rename(column: "kind", to: "category") }
        }
        try conn.alter(table: "notes") { $0.rename(column: "code", to: "slug") }
        try conn.execute("ALTER TABLE notes RENAME COLUMN kind TO category")
        #expect(
            throws: SearchTableError.contentMismatch(searchTable: "notes_fts", table: "notes", columns: ["kind"])
        ) {
            try conn.checkIntegrity(searchTable: "notes_fts")
        }
    }
}
