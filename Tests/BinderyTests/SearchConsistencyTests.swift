import Foundation
import Testing

@testable import Bindery

/// The triggers keep a search table equal to its table through every kind of write: after each one,
/// every word finds exactly the rows a LIKE scan finds, the index holds one entry per row, and FTS5's
/// integrity check passes; with `recursive_triggers` off (SQLite's default) and on.
@Suite struct SearchConsistencyTests {
    struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64?
        var code: String
        var title: String
        var body: String
    }

    /// Words none of which holds another, so that a LIKE scan finds what a word search finds.
    static let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]

    struct Setup: Sendable, CustomTestStringConvertible {
        var content: SearchContent
        var recursiveTriggers: Bool
        var testDescription: String { "\(content), recursive_triggers \(recursiveTriggers ? "on" : "off")" }
    }

    static let setups = [
        Setup(content: .external, recursiveTriggers: false), Setup(content: .external, recursiveTriggers: true),
        Setup(content: .contentless, recursiveTriggers: false),
    ]

    static func connection(_ setup: Setup) throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE notes(id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
                                   body TEXT NOT NULL);
                CREATE UNIQUE INDEX notes_title_body ON notes(title COLLATE NOCASE, body);
                PRAGMA recursive_triggers = \(setup.recursiveTriggers ? "ON" : "OFF");
                """)
        try conn.insert(Note(id: nil, code: "a", title: "alpha", body: "bravo charlie"))
        try conn.insert(Note(id: nil, code: "b", title: "delta", body: "echo"))
        try conn.create(
            searchTable: "notes_fts", on: "notes", columns: ["title", "body"], content: setup.content,
            weights: ["title": 5])
        return conn
    }

    /// Checks the search table against the table; `step` names the write in a failure.
    static func check(_ conn: Connection, after step: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        for word in words {
            let pattern = try #require(SearchPattern.all(word))
            let found = try conn.fetchAll(Note.all().matching(pattern, in: "notes_fts", ranked: false).order("id"))
            let scanned = try conn.fetchAll(
                Note.all().filter("title LIKE \("%" + word + "%") OR body LIKE \("%" + word + "%")").order("id"))
            #expect(found == scanned, "\(word) after \(step)", sourceLocation: sourceLocation)
        }
        let entries: Int64 = try conn.rows("SELECT count(*) FROM notes_fts_docsize", arguments: [])[0][0]
        let rows: Int64 = try conn.rows("SELECT count(*) FROM notes", arguments: [])[0][0]
        #expect(entries == rows, "index entries after \(step)", sourceLocation: sourceLocation)
        let replaced: Int64 = try conn.rows("SELECT count(*) FROM notes_fts_replaced", arguments: [])[0][0]
        #expect(replaced <= 1, "rows noted after \(step)", sourceLocation: sourceLocation)
        #expect(throws: Never.self, "integrity after \(step)", sourceLocation: sourceLocation) {
            try conn.checkIntegrity(searchTable: "notes_fts")
        }
    }

    @Test(arguments: setups) func recordWrites(setup: Setup) throws {
        let conn = try Self.connection(setup)
        try Self.check(conn, after: "create")
        var note = try conn.insert(Note(id: nil, code: "c", title: "foxtrot", body: "golf"))
        try Self.check(conn, after: "insert")
        note.body = "hotel"
        try conn.update(note)
        try Self.check(conn, after: "update")
        _ = try conn.upsert(Note(id: note.id, code: "c", title: "india", body: "juliet"))
        try Self.check(conn, after: "upsert of a row")
        _ = try conn.upsert(Note(id: 10, code: "d", title: "echo", body: "alpha"))
        try Self.check(conn, after: "upsert of a new row")
        _ = try conn.insert(Note(id: 10, code: "d2", title: "golf", body: "hotel"), onConflict: .replace)
        try Self.check(conn, after: "insert(onConflict: .replace) on the key")
        _ = try conn.insert(Note(id: nil, code: "d2", title: "charlie", body: "delta"), onConflict: .replace)
        try Self.check(conn, after: "insert(onConflict: .replace) on a UNIQUE column")
        _ = try conn.insert(Note(id: 1, code: "zz", title: "juliet", body: "juliet"), onConflict: .ignore)
        try Self.check(conn, after: "insert(onConflict: .ignore)")
        #expect(try conn.delete(Note.self, id: 1))
        try Self.check(conn, after: "delete")
        let inserted = try conn.insert(
            contentsOf: (0..<50).map {
                Note(
                    id: nil, code: "bulk\($0)", title: Self.words[$0 % 10], body: Self.words[($0 * 7) % 10] + " n\($0)")
            })
        #expect(inserted == 50)
        try Self.check(conn, after: "bulk insert")
        let replacedInBulk = try conn.insert(
            contentsOf: (0..<10).map {
                Note(id: nil, code: "bulk\($0 * 3)", title: "india", body: Self.words[$0] + " r\($0)")
            }, onConflict: .replace)
        #expect(replacedInBulk == 10)
        try Self.check(conn, after: "bulk insert(onConflict: .replace)")
        // Batch-sized: multi-row statements, then ones whose rows replace rows already there and each
        // other (codes repeat every 150), then rows an ignore skips inside a batch.
        let mark = conn.recordContext.batchedRecordCount
        let fresh = (0..<250).map {
            Note(id: nil, code: "batch\($0)", title: Self.words[$0 % 10], body: Self.words[($0 * 3) % 10] + " f\($0)")
        }
        #expect(try conn.insert(contentsOf: fresh) == 250)
        try Self.check(conn, after: "batched bulk insert")
        let replacing = (0..<400).map {
            Note(id: nil, code: "batch\($0 % 150)", title: Self.words[$0 % 10], body: Self.words[$0 % 7] + " r\($0)")
        }
        let stored = try conn.insertAndFetch(contentsOf: replacing, onConflict: .replace)
        #expect(stored.map(\.code) == replacing.map(\.code))
        try Self.check(conn, after: "batched insertAndFetch(onConflict: .replace)")
        let kept = try conn.insertOrIgnoreAndFetch(
            contentsOf: (0..<300).map { Note(id: nil, code: "batch\($0)", title: "golf", body: "hotel n\($0)") })
        #expect(kept.compactMap { $0 }.count == 50)
        try Self.check(conn, after: "batched insertOrIgnoreAndFetch")
        #expect(conn.recordContext.batchedRecordCount - mark >= 400)
    }

    @Test(arguments: setups) func sqlWrites(setup: Setup) throws {
        let conn = try Self.connection(setup)
        try conn.execute(script: "INSERT OR REPLACE INTO notes VALUES (1, 'a', 'golf', 'hotel')")
        try Self.check(conn, after: "INSERT OR REPLACE on the rowid")
        try conn.execute(script: "REPLACE INTO notes(code, title, body) VALUES ('b', 'india', 'alpha')")
        try Self.check(conn, after: "REPLACE on a UNIQUE column")
        try conn.execute(script: "INSERT OR REPLACE INTO notes VALUES (1, 'b', 'juliet', 'echo')")
        try Self.check(conn, after: "INSERT OR REPLACE on the rowid and a UNIQUE column, two rows")
        try conn.execute(script: "INSERT OR REPLACE INTO notes(code, title, body) VALUES ('x', 'JULIET', 'echo')")
        try Self.check(conn, after: "INSERT OR REPLACE on a NOCASE UNIQUE index")
        try conn.execute(script: "INSERT OR IGNORE INTO notes(code, title, body) VALUES ('x', 'foxtrot', 'golf')")
        try Self.check(conn, after: "INSERT OR IGNORE")
        try conn.execute(script: "INSERT INTO notes(code, title, body) VALUES ('y', 'delta', 'golf')")
        try Self.check(conn, after: "INSERT after an ignored one")
        try conn.execute(
            script: "INSERT INTO notes(code, title, body) VALUES ('y', 'bravo', 'bravo') "
                + "ON CONFLICT(code) DO UPDATE SET title = excluded.title")
        try Self.check(conn, after: "ON CONFLICT DO UPDATE")
        try conn.execute(script: "UPDATE OR REPLACE notes SET code = 'x' WHERE code = 'y'")
        try Self.check(conn, after: "UPDATE OR REPLACE on a UNIQUE column")
        try conn.execute(script: "UPDATE OR REPLACE notes SET id = 1 WHERE code = 'x'")
        try Self.check(conn, after: "UPDATE OR REPLACE of the rowid")
        try conn.execute(
            script: "INSERT INTO notes(code, title, body) SELECT code || '2', body, title FROM notes; "
                + "INSERT OR REPLACE INTO notes(code, title, body) SELECT code, 'charlie', 'delta' FROM notes")
        try Self.check(conn, after: "INSERT … SELECT, then INSERT OR REPLACE … SELECT of every row")
        let failed = thrownSQLiteError {
            try conn.execute(script: "INSERT INTO notes SELECT id, 'q', 'r', 's' FROM notes LIMIT 1")
        }
        #expect(failed?.code == .constraint)
        try Self.check(conn, after: "a refused INSERT")
    }

    @Test(arguments: setups) func requestWrites(setup: Setup) throws {
        let conn = try Self.connection(setup)
        _ = try conn.insert(
            contentsOf: (0..<30).map {
                Note(id: nil, code: "n\($0)", title: Self.words[$0 % 10], body: Self.words[($0 * 3) % 10] + " n\($0)")
            })
        let echo = try #require(SearchPattern.all("echo"))
        let changed = try conn.updateAll(
            Note.all().matching(echo, in: "notes_fts").limit(2), set: "body = body || \(" juliet foxtrot")")
        #expect(changed == 2)
        try Self.check(conn, after: "updateAll of a limited search")
        let golf = try #require(SearchPattern.all("golf"))
        #expect(try conn.updateAll(Note.all().matching(golf, in: "notes_fts"), set: "title = \("hotel")") > 0)
        try Self.check(conn, after: "updateAll of a search")
        let deleted = try conn.deleteAll(Note.all().matching(echo, in: "notes_fts"))
        #expect(deleted > 0)
        try Self.check(conn, after: "deleteAll of a search")
        #expect(try conn.fetchCount(Note.all().matching(echo, in: "notes_fts")) == 0)
        #expect(try conn.deleteAll(Note.all().filter("code LIKE 'n1%'")) > 0)
        try Self.check(conn, after: "deleteAll")
    }
}
