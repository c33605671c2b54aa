import Foundation
import Testing

@testable import Bindery

/// Search tables declared over a table: kept in step by triggers through insert, update, delete and
/// upsert; tokenizers fold case and diacritics as configured; weights, rebuild, optimize and
/// integrity checks.
@Suite struct SearchTableTests {
    struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64?
        var title: String
        var body: String
    }

    static let trusting = Connection.Options(schemaTrust: .trustedSchema)

    static func connection(
        tokenizer: SearchTokenizer = .unicode61(), content: SearchContent = .external, weights: [String: Double] = [:]
    ) throws -> Connection {
        let conn = try Connection(path: ":memory:", options: Self.trusting)
        try conn.createTable(for: Note.self)
        try conn.insert(Note(id: nil, title: "Before", body: "already here"))
        try conn.create(
            searchTable: "notes_fts", on: "notes", columns: ["title", "body"], tokenizer: tokenizer, content: content,
            weights: weights)
        return conn
    }

    static func ids(_ text: String, in conn: Connection, table: String = "notes_fts") throws -> [Int64] {
        guard let pattern = SearchPattern.all(text) else { return [] }
        return try conn.rows(
            "SELECT rowid FROM \(SQL.quote(identifier: table)) WHERE \(SQL.quote(identifier: table)) MATCH ? "
                + "ORDER BY rowid", arguments: [pattern.sqliteValue]
        ).map { try $0[0] as Int64 }
    }

    @Test func triggersFollowInsertUpdateDeleteAndUpsert() throws {
        let conn = try Self.connection()
        #expect(try Self.ids("already", in: conn) == [1])
        var note = try conn.insert(Note(id: nil, title: "Groceries", body: "milk and bread"))
        #expect(try Self.ids("milk", in: conn) == [2])
        note.body = "eggs and butter"
        try conn.update(note)
        #expect(try Self.ids("milk", in: conn) == [])
        #expect(try Self.ids("eggs", in: conn) == [2])
        _ = try conn.upsert(Note(id: 2, title: "Groceries", body: "cheese"))
        #expect(try Self.ids("eggs", in: conn) == [])
        #expect(try Self.ids("cheese", in: conn) == [2])
        _ = try conn.upsert(Note(id: 7, title: "New", body: "cheese again"))
        #expect(try Self.ids("cheese", in: conn) == [2, 7])
        #expect(try conn.delete(note))
        #expect(try Self.ids("cheese", in: conn) == [7])
        #expect(try Self.ids("groceries", in: conn) == [])
        try conn.checkIntegrity(searchTable: "notes_fts")
    }

    @Test func contentlessTablesFollowTheTableToo() throws {
        let conn = try Self.connection(content: .contentless)
        #expect(try Self.ids("already", in: conn) == [1])
        var note = try conn.insert(Note(id: nil, title: "Groceries", body: "milk"))
        note.body = "eggs"
        try conn.update(note)
        #expect(try Self.ids("milk", in: conn) == [])
        #expect(try Self.ids("eggs", in: conn) == [2])
        #expect(try conn.delete(note))
        #expect(try Self.ids("eggs", in: conn) == [])
        let stored = try conn.rows("SELECT body FROM notes_fts WHERE rowid = 1", arguments: [])
        #expect(stored.first?.values == [.null])
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(throws: SQLiteError.self) { try conn.rebuild(searchTable: "notes_fts") }
    }

    @Test func diacriticsAndCaseFoldAsConfigured() throws {
        let folding = try Self.connection(tokenizer: .unicode61(removeDiacritics: true))
        try folding.insert(Note(id: nil, title: "CAFÉ Crème", body: "Ärger"))
        #expect(try Self.ids("cafe creme", in: folding) == [2])
        #expect(try Self.ids("café ARGER", in: folding) == [2])

        let keeping = try Self.connection(tokenizer: .unicode61(removeDiacritics: false))
        try keeping.insert(Note(id: nil, title: "CAFÉ Crème", body: "Ärger"))
        #expect(try Self.ids("cafe", in: keeping) == [])
        #expect(try Self.ids("café crème ärger", in: keeping) == [2])

        let stemming = try Self.connection(tokenizer: .porter())
        try stemming.insert(Note(id: nil, title: "Searching", body: "indexes"))
        #expect(try Self.ids("searched index", in: stemming) == [2])

        let trigram = try Self.connection(tokenizer: .trigram())
        try trigram.insert(Note(id: nil, title: "Bindery", body: "SQLite"))
        #expect(try Self.ids("NDER", in: trigram) == [2])
        let caseSensitive = try Self.connection(tokenizer: .trigram(caseSensitive: true))
        try caseSensitive.insert(Note(id: nil, title: "Bindery", body: "SQLite"))
        #expect(try Self.ids("NDER", in: caseSensitive) == [])
        #expect(try Self.ids("nder", in: caseSensitive) == [2])
    }

    @Test func weightsAreStoredAsTheRank() throws {
        let conn = try Self.connection(weights: ["title": 10])
        try conn.insert(Note(id: nil, title: "other", body: "swift swift"))
        try conn.insert(Note(id: nil, title: "swift", body: "other"))
        let pattern = try #require(SearchPattern.all("swift"))
        let ranked = try conn.rows(
            "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rank", arguments: [pattern.sqliteValue]
        ).map { try $0[0] as Int64 }
        #expect(ranked == [3, 2])
        let plain = try Self.connection()
        try plain.insert(Note(id: nil, title: "other", body: "swift swift"))
        try plain.insert(Note(id: nil, title: "swift", body: "other"))
        let unweighted = try plain.rows(
            "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rank", arguments: [pattern.sqliteValue]
        ).map { try $0[0] as Int64 }
        #expect(unweighted == [2, 3])
    }

    @Test func rebuildRepairsWhatIntegrityCheckFinds() throws {
        let conn = try Self.connection()
        try conn.execute("DROP TRIGGER notes_fts_au", arguments: [])
        try conn.execute("UPDATE notes SET body = 'changed behind its back'", arguments: [])
        let error = try #require(throws: SQLiteError.self) { try conn.checkIntegrity(searchTable: "notes_fts") }
        #expect(error.code == .corrupt)
        try conn.rebuild(searchTable: "notes_fts")
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(try Self.ids("behind", in: conn) == [1])
        try conn.optimize(searchTable: "notes_fts")
        #expect(try Self.ids("behind", in: conn) == [1])
    }

    @Test func hostileNamesAreQuoted() throws {
        let conn = try Connection(path: ":memory:", options: Self.trusting)
        try conn.create(table: "my \"notes'") { t in
            t.column("id", .integer).primaryKey()
            t.column("ti'tle\"", .text)
        }
        try conn.execute("INSERT INTO \"my \"\"notes'\" VALUES (1, 'hello')", arguments: [])
        try conn.create(searchTable: "fts \"x'", on: "my \"notes'", columns: ["ti'tle\""], weights: ["ti'tle\"": 2])
        #expect(try Self.ids("hello", in: conn, table: "fts \"x'") == [1])
        try conn.execute("INSERT INTO \"my \"\"notes'\" VALUES (2, 'hello again')", arguments: [])
        #expect(try Self.ids("hello", in: conn, table: "fts \"x'") == [1, 2])
    }

    @Test func dropRemovesTheSearchTableAndItsTriggers() throws {
        let conn = try Self.connection()
        try conn.drop(searchTable: "notes_fts")
        let left = try conn.rows(
            "SELECT name FROM sqlite_master WHERE name LIKE 'notes_fts%' OR type = 'trigger'", arguments: [])
        #expect(left.isEmpty)
        try conn.insert(Note(id: nil, title: "After", body: "the drop"))
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["body"])
        #expect(try Self.ids("drop", in: conn) == [2])
        #expect(throws: SQLiteError.self) { try conn.drop(searchTable: "missing_fts") }
    }

    @Test func badDeclarationsThrowNamingTheCulprit() throws {
        let conn = try Connection(path: ":memory:", options: Self.trusting)
        try conn.createTable(for: Note.self)
        #expect(throws: SearchTableError.weightForUnindexedColumn(searchTable: "f", column: "body")) {
            try conn.create(searchTable: "f", on: "notes", columns: ["title"], weights: ["body": 2])
        }
        #expect(throws: SearchTableError.invalidWeight(searchTable: "f", column: "title", weight: .infinity)) {
            try conn.create(searchTable: "f", on: "notes", columns: ["title"], weights: ["title": .infinity])
        }
        #expect(throws: SearchTableError.noColumns(searchTable: "f")) {
            try conn.create(searchTable: "f", on: "notes", columns: [])
        }
        #expect(throws: SQLiteError.self) { try conn.create(searchTable: "f", on: "notes", columns: ["missing"]) }
        // Nothing of a refused declaration is left behind.
        #expect(try conn.rows("SELECT name FROM sqlite_master WHERE name LIKE 'f%'", arguments: []).isEmpty)
    }

    /// VACUUM renumbers the rowids of a table without an INTEGER PRIMARY KEY, which would leave the
    /// index pointing at the wrong rows: such a table is searched through a mapping of its primary key
    /// (see SearchKeyedTableTests), and refused when it has no primary key, when its key may be NULL,
    /// or when nothing would keep the mapping (`keptInStep: false` with external content); a
    /// contentless search table written by the app chooses its rowids itself.
    @Test func aTableWithoutAStableRowIDIsRefused() throws {
        let conn = try Connection(path: ":memory:", options: Self.trusting)
        try conn.execute(
            script: """
                CREATE TABLE plain(title TEXT);
                CREATE TABLE descending(id INTEGER PRIMARY KEY DESC, title TEXT);
                CREATE TABLE keyed(code TEXT PRIMARY KEY, title TEXT) WITHOUT ROWID;
                CREATE TABLE aliased(id INTEGER PRIMARY KEY, title TEXT);
                """)
        for content in [SearchContent.external, .contentless] {
            #expect(throws: SearchTableError.noStableRowID(searchTable: "f", table: "plain")) {
                try conn.create(searchTable: "f", on: "plain", columns: ["title"], content: content)
            }
            #expect(throws: SearchTableError.nullableKey(searchTable: "f", table: "descending", column: "id")) {
                try conn.create(searchTable: "f", on: "descending", columns: ["title"], content: content)
            }
        }
        for table in ["plain", "descending", "keyed"] {
            #expect(throws: SearchTableError.noStableRowID(searchTable: "f", table: table)) {
                try conn.create(searchTable: "f", on: table, columns: ["title"], keptInStep: false)
            }
        }
        #expect(try conn.rows("SELECT name FROM sqlite_master WHERE name LIKE 'f%'", arguments: []).isEmpty)
        try conn.create(searchTable: "f", on: "plain", columns: ["title"], content: .contentless, keptInStep: false)
        try conn.create(searchTable: "g", on: "aliased", columns: ["title"])
        try conn.execute("INSERT INTO aliased(title) VALUES ('kept'), ('gone'), ('last')")
        try conn.execute("DELETE FROM aliased WHERE title = 'gone'")
        try conn.execute(script: "VACUUM")
        #expect(try Self.ids("last", in: conn, table: "g") == [3])
        try conn.checkIntegrity(searchTable: "g")
    }
}
