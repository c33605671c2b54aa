import Foundation
import Testing

@testable import Bindery

/// Search tables over tables whose rowid `VACUUM` may renumber (a TEXT or composite primary key, or
/// `WITHOUT ROWID`): the search table's rowids are ids of a mapping of the table's keys, kept by the
/// triggers. Through every kind of write (key changes, INSERT OR REPLACE through the key or another
/// UNIQUE key, upserts, deletes) and VACUUM, every word finds exactly the rows a LIKE scan finds,
/// through `matching`, and the integrity check passes.
@Suite struct SearchKeyedTableTests {
    struct Note: Record, Equatable {
        static let tableName = "notes"
        static let primaryKey = ["lang", "code"]
        var lang: String
        var code: String
        var title: String
        var body: String
    }

    static let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]

    struct Setup: Sendable, CustomTestStringConvertible {
        var name: String
        var schema: String
        var content: SearchContent = .external
        var recursiveTriggers = false
        var testDescription: String { "\(name), \(content), recursive_triggers \(recursiveTriggers ? "on" : "off")" }
    }

    static let composite = """
        CREATE TABLE notes(lang TEXT NOT NULL, code TEXT NOT NULL COLLATE NOCASE, title TEXT NOT NULL UNIQUE,
                           body TEXT NOT NULL, PRIMARY KEY(lang, code)) WITHOUT ROWID
        """
    static let textKey = """
        CREATE TABLE notes(code TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, lang TEXT NOT NULL, title TEXT NOT NULL,
                           body TEXT NOT NULL);
        CREATE UNIQUE INDEX notes_title ON notes(title)
        """
    static let rowidComposite = """
        CREATE TABLE notes(lang TEXT NOT NULL, code TEXT NOT NULL COLLATE NOCASE, title TEXT NOT NULL UNIQUE,
                           body TEXT NOT NULL, PRIMARY KEY(lang, code))
        """

    static let setups = [
        Setup(name: "composite WITHOUT ROWID", schema: composite),
        Setup(name: "composite WITHOUT ROWID", schema: composite, recursiveTriggers: true),
        Setup(name: "composite WITHOUT ROWID", schema: composite, content: .contentless),
        Setup(name: "TEXT key", schema: textKey),
        Setup(name: "TEXT key", schema: textKey, recursiveTriggers: true),
        Setup(name: "TEXT key", schema: textKey, content: .contentless),
        Setup(name: "composite rowid", schema: rowidComposite),
    ]

    static func connection(_ setup: Setup, path: String = ":memory:") throws -> Connection {
        let conn = try Connection(path: path, options: .init(schemaTrust: .trustedSchema))
        try conn.execute(script: setup.schema)
        try conn.execute(script: "PRAGMA recursive_triggers = \(setup.recursiveTriggers ? "ON" : "OFF")")
        try conn.insert(Note(lang: "en", code: "a", title: "alpha", body: "bravo charlie"))
        try conn.insert(Note(lang: "en", code: "b", title: "delta", body: "echo"))
        try conn.create(
            searchTable: "notes_fts", on: "notes", columns: ["title", "body"], unindexed: ["lang"],
            content: setup.content, weights: ["title": 5])
        return conn
    }

    /// Every word finds, through `matching`, the rows a LIKE scan finds; one index entry and one
    /// mapping per row; the integrity check passes.
    static func check(_ conn: Connection, after step: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        for word in words {
            let pattern = try #require(SearchPattern.all(word))
            let found = try conn.fetchAll(Note.all().matching(pattern, in: "notes_fts").order("lang, code"))
            let scanned = try conn.fetchAll(
                Note.all().filter("title LIKE \("%" + word + "%") OR body LIKE \("%" + word + "%")")
                    .order("lang, code"))
            #expect(found == scanned, "\(word) after \(step)", sourceLocation: sourceLocation)
        }
        let rows: Int64 = try conn.rows("SELECT count(*) FROM notes")[0][0]
        let entries: Int64 = try conn.rows("SELECT count(*) FROM notes_fts_docsize")[0][0]
        let mappings: Int64 = try conn.rows("SELECT count(*) FROM notes_fts_keys")[0][0]
        #expect(entries == rows, "index entries after \(step)", sourceLocation: sourceLocation)
        #expect(mappings == rows, "mappings after \(step)", sourceLocation: sourceLocation)
        #expect(throws: Never.self, "integrity after \(step)", sourceLocation: sourceLocation) {
            try conn.checkIntegrity(searchTable: "notes_fts")
        }
    }

    @Test(arguments: setups) func everyWriteKeepsTheSearchTableRight(setup: Setup) throws {
        let conn = try Self.connection(setup)
        try Self.check(conn, after: "create")
        var note = try conn.insert(Note(lang: "fr", code: "c", title: "foxtrot", body: "golf"))
        try Self.check(conn, after: "insert")
        note.body = "hotel"
        try conn.update(note)
        try Self.check(conn, after: "update")
        try conn.execute("UPDATE notes SET code = 'd' WHERE code = 'c'")
        try Self.check(conn, after: "key change")
        try conn.execute("UPDATE notes SET code = 'D2', body = 'india' WHERE code = 'd'")
        try Self.check(conn, after: "key and text change")
        try conn.execute("INSERT OR REPLACE INTO notes(lang, code, title, body) VALUES ('en', 'A', 'juliet', 'x')")
        try Self.check(conn, after: "INSERT OR REPLACE through the key (its collation)")
        try conn.execute("INSERT OR REPLACE INTO notes(lang, code, title, body) VALUES ('de', 'z', 'delta', 'y')")
        try Self.check(conn, after: "INSERT OR REPLACE through another UNIQUE key")
        try conn.execute("INSERT INTO notes(lang, code, title, body) VALUES ('en', 'k', 'kilo', 'lima')")
        try conn.execute("INSERT OR REPLACE INTO notes(lang, code, title, body) VALUES ('en', 'k', 'delta', 'mike')")
        try Self.check(conn, after: "INSERT OR REPLACE through the key and another UNIQUE key at once")
        try conn.execute(
            "INSERT INTO notes(lang, code, title, body) VALUES ('de', 'z', 'golf', 'alpha') "
                + "ON CONFLICT DO UPDATE SET body = excluded.body")
        try Self.check(conn, after: "upsert of a row")
        if setup.schema == Self.textKey {
            // The record's key (lang, code) is not the table's: upserts by SQL.
            for (title, body) in [("charlie", "echo"), ("bravo", "hotel")] {
                try conn.execute(
                    "INSERT INTO notes(lang, code, title, body) VALUES ('it', 'u', \(title), \(body)) "
                        + "ON CONFLICT DO UPDATE SET title = excluded.title, body = excluded.body")
            }
        } else {
            _ = try conn.upsert(Note(lang: "it", code: "u", title: "charlie", body: "echo"))
            _ = try conn.upsert(Note(lang: "it", code: "u", title: "bravo", body: "hotel"))
        }
        try Self.check(conn, after: "upserts")
        try conn.execute("INSERT OR IGNORE INTO notes(lang, code, title, body) VALUES ('it', 'u', 'india', 'x')")
        try Self.check(conn, after: "ignored insert")
        try conn.execute("UPDATE OR REPLACE notes SET lang = 'de', code = 'Z' WHERE code = 'u'")
        try Self.check(conn, after: "UPDATE OR REPLACE onto another row's key")
        try conn.execute("UPDATE notes SET code = code || '-' || lang")
        try Self.check(conn, after: "every key changed")
        try conn.execute("INSERT INTO notes(lang, code, title, body) VALUES ('en', 'e', 'echo', 'alpha')")
        try conn.execute("DELETE FROM notes WHERE title = 'juliet'")
        try Self.check(conn, after: "delete")
        try conn.execute(script: "VACUUM")
        try Self.check(conn, after: "VACUUM")
        try conn.execute("DELETE FROM notes")
        try Self.check(conn, after: "delete all")
    }

    /// VACUUM of a file, with rows deleted and added around it: the index still points at the right
    /// rows, and snippets read the right text through the mapping.
    @Test func vacuumOfAFileKeepsEveryMatch() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-keyed-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("notes.sqlite").path
        let conn = try Self.connection(Setup(name: "TEXT key", schema: Self.textKey), path: path)
        for index in 0..<200 {
            try conn.insert(
                Note(lang: "en", code: "n\(index)", title: "t\(index)", body: Self.words[index % Self.words.count]))
        }
        try conn.execute("DELETE FROM notes WHERE title LIKE 't1%' OR code = 'a'")
        try conn.execute(script: "VACUUM")
        try conn.insert(Note(lang: "en", code: "after", title: "after vacuum", body: "kilo"))
        try Self.check(conn, after: "VACUUM of a file")
        struct Hit: Decodable, Equatable {
            var code: String
            var excerpt: String
        }
        let pattern = try #require(SearchPattern.all("kilo"))
        let hits = try conn.fetchAll(
            Hit.self,
            Note.all().matching(pattern, in: "notes_fts")
                .select("code, \(SQL.highlight(in: "notes_fts", column: 1, before: "[", after: "]")) AS excerpt"))
        #expect(hits == [Hit(code: "after", excerpt: "[kilo]")])
    }

    @Test func rebuildBringsTheMappingBackInStep() throws {
        let conn = try Self.connection(Setup(name: "composite", schema: Self.composite))
        try conn.execute("DROP TRIGGER notes_fts_ai")
        try conn.execute("INSERT INTO notes VALUES ('en', 'q', 'india', 'juliet')")
        let error = try #require(throws: SQLiteError.self) { try conn.checkIntegrity(searchTable: "notes_fts") }
        #expect(error.code == .corrupt)
        try conn.rebuild(searchTable: "notes_fts")
        try Self.check(conn, after: "rebuild")
    }

    /// A UNIQUE index added later makes the keyed triggers again; renaming the table keeps its search.
    @Test func triggersMadeAgainAndRenamesKeepTheMapping() throws {
        let conn = try Self.connection(Setup(name: "TEXT key", schema: Self.textKey))
        try conn.create(index: "notes_body", on: "notes", columns: ["body"], unique: true)
        try conn.execute("INSERT OR REPLACE INTO notes(code, lang, title, body) VALUES ('n', 'en', 'golf', 'echo')")
        try Self.check(conn, after: "INSERT OR REPLACE through a UNIQUE index added later")
        try conn.alter(table: "notes") { $0.unique(["lang", "body"]) }
        try conn.execute("INSERT OR REPLACE INTO notes(code, lang, title, body) VALUES ('o', 'en', 'hotel', 'echo')")
        try Self.check(conn, after: "INSERT OR REPLACE through a UNIQUE constraint added by a table rebuild")
        try conn.rename(table: "notes", to: "old_notes")
        try conn.execute("INSERT INTO old_notes(code, lang, title, body) VALUES ('m', 'en', 'juliet', 'india')")
        try conn.rename(table: "old_notes", to: "notes")
        try Self.check(conn, after: "renames of the table")
    }

    @Test func ifNotExistsAndDropHandleTheMapping() throws {
        let setup = Setup(name: "composite", schema: Self.composite)
        let conn = try Self.connection(setup)
        try conn.create(
            searchTable: "notes_fts", on: "notes", columns: ["title", "body"], unindexed: ["lang"],
            weights: ["title": 5], ifNotExists: true)
        try Self.check(conn, after: "create if not exists")
        try conn.drop(searchTable: "notes_fts")
        let left = try conn.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'notes_fts%'")
        #expect(left.isEmpty)
        try conn.insert(Note(lang: "en", code: "x", title: "hotel", body: "golf"))
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"], unindexed: ["lang"])
        try Self.check(conn, after: "drop and create")
    }

    @Test func tablesWithoutAKeyToPointByAreRefused() throws {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE plain(title TEXT);
                CREATE TABLE nullable(code TEXT PRIMARY KEY, title TEXT);
                CREATE TABLE keyed(code TEXT PRIMARY KEY, title TEXT) WITHOUT ROWID;
                """)
        #expect(throws: SearchTableError.noStableRowID(searchTable: "f", table: "plain")) {
            try conn.create(searchTable: "f", on: "plain", columns: ["title"])
        }
        #expect(throws: SearchTableError.nullableKey(searchTable: "f", table: "nullable", column: "code")) {
            try conn.create(searchTable: "f", on: "nullable", columns: ["title"])
        }
        // Without triggers nothing would keep the mapping: refused as before.
        #expect(throws: SearchTableError.noStableRowID(searchTable: "f", table: "keyed")) {
            try conn.create(searchTable: "f", on: "keyed", columns: ["title"], keptInStep: false)
        }
        #expect(try conn.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'f%'").isEmpty)
        try conn.create(searchTable: "f", on: "keyed", columns: ["title"])
        try conn.execute("INSERT INTO keyed VALUES ('k', 'found')")
        #expect(try conn.rows("SELECT rowid FROM f WHERE f MATCH 'found'").count == 1)
    }

    /// Columns named like the triggers' own (`k`, `v0`, `m`, `id`) change nothing: an ignored write
    /// leaves a row noted, which a later insert must not take out of the index while the row is there.
    @Test(arguments: [
        "CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT UNIQUE, v0 TEXT, m TEXT, body TEXT)",
        "CREATE TABLE t(k TEXT PRIMARY KEY NOT NULL, id TEXT UNIQUE, v0 TEXT, m TEXT, body TEXT) WITHOUT ROWID",
    ])
    func columnsNamedLikeTheTriggersOwnChangeNothing(schema: String) throws {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(script: schema)
        try conn.execute("INSERT INTO t(id, k, v0, m, body) VALUES ('1', 'a', 'x', 'y', 'kept')")
        try conn.create(searchTable: "t_fts", on: "t", columns: ["body", "v0"], unindexed: ["m"])
        try conn.execute("INSERT OR IGNORE INTO t(id, k, v0, m, body) VALUES ('2', 'a', 'x', 'y', 'ignored')")
        try conn.execute("INSERT INTO t(id, k, v0, m, body) VALUES ('3', 'b', 'x', 'y', 'later')")
        try conn.execute("INSERT OR REPLACE INTO t(id, k, v0, m, body) VALUES ('4', 'b', 'x', 'y', 'replacing')")
        try conn.checkIntegrity(searchTable: "t_fts")
        let kept = try conn.rows("SELECT rowid FROM t_fts WHERE t_fts MATCH 'kept'")
        #expect(kept.count == 1)
        let later = try conn.rows("SELECT rowid FROM t_fts WHERE t_fts MATCH 'later'")
        #expect(later.isEmpty)
        let replacing = try conn.rows("SELECT rowid FROM t_fts WHERE t_fts MATCH 'replacing'")
        #expect(replacing.count == 1)
    }

    /// The content view reads the table's columns under the search table's names, and SQLite renames
    /// them in the view and the triggers with the table's column: a rename keeps the search right.
    @Test func renamingAColumnKeepsTheSearchRight() throws {
        let conn = try Self.connection(Setup(name: "composite", schema: Self.composite))
        try conn.alter(table: "notes") { $0.rename(column: "body", to: "text") }
        try conn.execute("INSERT INTO notes(lang, code, title, text) VALUES ('en', 'r', 'golf', 'hotel india')")
        try conn.execute("UPDATE notes SET text = 'juliet' WHERE code = 'a'")
        try conn.checkIntegrity(searchTable: "notes_fts")
        let ids = { (word: String) in
            try conn.rows("SELECT rowid FROM notes_fts WHERE notes_fts MATCH \(word)").count
        }
        #expect(try ids("hotel") == 1)
        #expect(try ids("juliet") == 1)
        #expect(try ids("charlie") == 0)
        try conn.rebuild(searchTable: "notes_fts")
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(try ids("india") == 1)
    }

    /// Names with quotes, for the table, its key, its columns and the search table, are quoted
    /// everywhere: the mapping, its view, the triggers and the join of `matching`.
    @Test func hostileNamesAreQuoted() throws {
        struct Hostile: Record, Equatable {
            static let tableName = "my \"notes'"
            static let primaryKey = ["co\"de"]
            var code: String
            var title: String
            enum CodingKeys: String, CodingKey {
                case code = "co\"de"
                case title = "ti'tle\""
            }
        }
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.create(table: "my \"notes'", options: [.withoutRowID]) { t in
            t.column("co\"de", .text).primaryKey()
            t.column("ti'tle\"", .text).notNull()
        }
        try conn.insert(Hostile(code: "a'\"", title: "hello"))
        try conn.create(searchTable: "fts \"x'", on: "my \"notes'", columns: ["ti'tle\""], weights: ["ti'tle\"": 2])
        try conn.insert(Hostile(code: "b", title: "hello again"))
        try conn.execute("UPDATE \"my \"\"notes'\" SET \"co\"\"de\" = 'c' WHERE \"co\"\"de\" = 'b'")
        try conn.execute(script: "VACUUM")
        let pattern = try #require(SearchPattern.all("hello"))
        let found = try conn.fetchAll(Hostile.all().matching(pattern, in: "fts \"x'", ranked: false))
        #expect(found.map(\.code).sorted() == ["a'\"", "c"])
        try conn.checkIntegrity(searchTable: "fts \"x'")
        try conn.drop(searchTable: "fts \"x'")
        #expect(try conn.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'fts%'").isEmpty)
    }
}
