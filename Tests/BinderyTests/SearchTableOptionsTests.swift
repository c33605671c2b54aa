import Foundation
import Testing

@testable import Bindery

/// Table options: `prefix` indexes, `columnsize`, `detail` and `ifNotExists`. Searches, ranking,
/// triggers, rebuild and integrity checks keep working with each; a combination FTS5 would answer
/// wrongly is refused, and what FTS5 cannot run throws.
@Suite struct SearchTableOptionsTests {
    struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64?
        var code: String
        var title: String
        var body: String
    }

    static func connection() throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            "CREATE TABLE notes(id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, title TEXT, body TEXT)")
        try conn.insert(Note(id: nil, code: "a", title: "other", body: "swift swift swiftly"))
        try conn.insert(Note(id: nil, code: "b", title: "swift", body: "other words here"))
        try conn.insert(Note(id: nil, code: "c", title: "sqlite", body: "nothing"))
        return conn
    }

    static func ids(_ pattern: SearchPattern?, in conn: Connection, ranked: Bool = false) throws -> [Int64] {
        let pattern = try #require(pattern)
        let request = Note.all().matching(pattern, in: "notes_fts", ranked: ranked)
        return try conn.fetchAll(ranked ? request : request.order("id")).compactMap(\.id)
    }

    static func statement(_ conn: Connection) throws -> String {
        try conn.rows("SELECT sql FROM sqlite_schema WHERE name = 'notes_fts'")[0][0]
    }

    /// Runs the writes every option must survive: insert, update, INSERT OR REPLACE through the UNIQUE
    /// column, delete; then checks the index and rebuilds it.
    static func writeAndCheck(_ conn: Connection) throws {
        try conn.insert(Note(id: nil, code: "d", title: "swimming", body: "pool"))
        try conn.execute("UPDATE notes SET body = 'ocean swim' WHERE code = 'd'")
        try conn.execute("INSERT OR REPLACE INTO notes(code, title, body) VALUES ('a', 'replaced', 'gone')")
        try conn.execute("DELETE FROM notes WHERE code = 'c'")
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(try ids(.prefix("swi"), in: conn) == [2, 4])
        #expect(try ids(.all("ocean"), in: conn) == [4])
        #expect(try ids(.all("sqlite"), in: conn) == [])
        try conn.rebuild(searchTable: "notes_fts")
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(try ids(.prefix("swi"), in: conn) == [2, 4])
    }

    @Test func prefixIndexesServePrefixPatterns() throws {
        let conn = try Self.connection()
        try conn.create(
            searchTable: "notes_fts", on: "notes", columns: ["title", "body"], prefixes: [3, 2, 3])
        #expect(try Self.statement(conn).hasSuffix("prefix = '2 3')"))
        #expect(try Self.ids(.prefix("sw"), in: conn) == [1, 2])
        #expect(try Self.ids(.prefix("swif"), in: conn) == [1, 2])
        #expect(try Self.ids(.phraseAtStart("swift sw", completingLastTerm: true), in: conn) == [1])
        try Self.writeAndCheck(conn)
    }

    @Test func prefixLengthsOutOfRangeAreRefused() throws {
        let conn = try Self.connection()
        for lengths in [[0], [2, 1000], [-1]] {
            #expect {
                try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title"], prefixes: lengths)
            } throws: { error in
                guard case .invalidOption("notes_fts", "prefix", _) = error as? SearchTableError else { return false }
                return true
            }
        }
        #expect(try conn.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'notes_fts%'").isEmpty)
    }

    /// Without column sizes, bm25 counts the words of the content table's text: the same ranks.
    @Test func withoutColumnSizesRanksStayTheSame() throws {
        let sized = try Self.connection()
        try sized.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"], weights: ["title": 2])
        let unsized = try Self.connection()
        try unsized.create(
            searchTable: "notes_fts", on: "notes", columns: ["title", "body"], weights: ["title": 2], columnSize: false)
        #expect(try Self.statement(unsized).hasSuffix("columnsize = 0)"))
        #expect(try unsized.rows("SELECT name FROM sqlite_schema WHERE name = 'notes_fts_docsize'").isEmpty)
        let pattern = SearchPattern.all("swift")
        let expected = try Self.ids(pattern, in: sized, ranked: true)
        #expect(expected == [1, 2])
        #expect(try Self.ids(pattern, in: unsized, ranked: true) == expected)
        let sql: SQL = "SELECT rowid, rank FROM notes_fts WHERE notes_fts MATCH 'swift' ORDER BY rowid"
        let sizedRanks = try sized.rows(sql).map(\.values)
        #expect(try unsized.rows(sql).map(\.values) == sizedRanks)
        try Self.writeAndCheck(unsized)
    }

    @Test func detailColumnAndNoneSearchWordsAndThrowOnPhrases() throws {
        for detail in [SearchDetail.column, .none] {
            let conn = try Self.connection()
            try conn.create(
                searchTable: "notes_fts", on: "notes", columns: ["title", "body"], weights: ["title": 5],
                detail: detail)
            #expect(try Self.statement(conn).hasSuffix("detail = \(detail.rawValue))"))
            #expect(try Self.ids(.all("swift"), in: conn) == [1, 2])
            // The title weight puts the title match first, as with full detail.
            #expect(try Self.ids(.all("swift"), in: conn, ranked: true) == [2, 1])
            #expect(try Self.ids(.any("sqlite nothing"), in: conn) == [3])
            #expect(throws: SQLiteError.self) { try Self.ids(.phrase("swift swiftly"), in: conn) }
            if detail == .none {
                #expect(throws: SQLiteError.self) { try Self.ids(SearchPattern(raw: "title: swift"), in: conn) }
            } else {
                #expect(try Self.ids(SearchPattern(raw: "title: swift"), in: conn) == [2])
            }
            try Self.writeAndCheck(conn)
        }
    }

    /// A contentless table has no text to count or locate words in: FTS5 would rank by wrong lengths
    /// (without column sizes) or rank every match 0 (without full detail).
    @Test func contentlessTablesThatWouldRankWronglyAreRefused() throws {
        let conn = try Self.connection()
        #expect {
            try conn.create(
                searchTable: "notes_fts", on: "notes", columns: ["title"], content: .contentless, columnSize: false)
        } throws: { error in
            guard case .invalidOption("notes_fts", "columnsize", _) = error as? SearchTableError else { return false }
            return true
        }
        for detail in [SearchDetail.column, .none] {
            #expect {
                try conn.create(
                    searchTable: "notes_fts", on: "notes", columns: ["title"], content: .contentless, detail: detail)
            } throws: { error in
                guard case .invalidOption("notes_fts", "detail", _) = error as? SearchTableError else { return false }
                return true
            }
        }
        #expect(try conn.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'notes_fts%'").isEmpty)
        try conn.create(
            searchTable: "notes_fts", on: "notes", columns: ["title"], content: .contentless, prefixes: [2])
        #expect(try Self.ids(.prefix("sq"), in: conn) == [3])
    }

    @Test func ifNotExistsKeepsAMatchingTableAndRefusesAnother() throws {
        let conn = try Self.connection()
        func create(
            columns: [String] = ["title", "body"], weights: [String: Double] = ["title": 2], keptInStep: Bool = true,
            ifNotExists: Bool = true
        ) throws {
            try conn.create(
                searchTable: "notes_fts", on: "notes", columns: columns, tokenizer: .porter(), weights: weights,
                prefixes: [2], keptInStep: keptInStep, ifNotExists: ifNotExists)
        }
        try create()
        try create()
        #expect(try conn.rows("SELECT count(*) FROM notes_fts_docsize")[0].values == [.integer(3)])
        #expect(try Self.ids(.all("swift"), in: conn) == [1, 2])
        try conn.checkIntegrity(searchTable: "notes_fts")

        let existing = try Self.statement(conn)
        for other in [
            { try create(columns: ["title"]) }, { try create(weights: [:]) }, { try create(keptInStep: false) },
        ] {
            #expect(throws: SearchTableError.existsWithOtherDefinition(searchTable: "notes_fts", existing: existing)) {
                try other()
            }
        }
        #expect(throws: SQLiteError.self) { try create(ifNotExists: false) }
        // A name taken by something that is no search table.
        #expect(throws: SearchTableError.existsWithOtherDefinition(searchTable: "notes", existing: "")) {
            try conn.create(searchTable: "notes", on: "notes", columns: ["title"], ifNotExists: true)
        }
        try Self.writeAndCheck(conn)
    }

    /// Every option at once: the UNIQUE-index and rename machinery, rebuild, integrity check and drop
    /// keep working.
    @Test func everyOptionAtOnceKeepsTheMachineryWorking() throws {
        let conn = try Self.connection()
        try conn.create(
            searchTable: "notes_fts", on: "notes", columns: ["title", "body"], unindexed: ["code"],
            tokenizer: .porter(wrapping: .unicode61(removeDiacritics: true, tokenCharacters: "-")),
            weights: ["body": 2], prefixes: [2], columnSize: false, detail: .column)
        try conn.create(index: "notes_body", on: "notes", columns: ["body"], unique: true)
        // Replaces row 3 through the UNIQUE index made after the search table.
        try conn.execute("INSERT OR REPLACE INTO notes(code, title, body) VALUES ('e', 'Café-au-lait', 'nothing')")
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(try Self.ids(.all("sqlite"), in: conn) == [])
        #expect(try Self.ids(SearchPattern(raw: #""cafe-au-lait""#), in: conn) == [4])
        #expect(try Self.ids(.prefix("swi"), in: conn) == [1, 2])
        #expect(
            throws: SearchTableError.indexedColumnRenamed(searchTable: "notes_fts", table: "notes", column: "code")
        ) {
            try conn.alter(table: "notes") { $0.rename(column: "code", to: "slug") }
        }
        try conn.execute("UPDATE notes SET title = 'swimming' WHERE code = 'a'")
        try conn.rebuild(searchTable: "notes_fts")
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(try Self.ids(.prefix("caf"), in: conn) == [4])
        #expect(try Self.ids(.all("swim"), in: conn) == [1])
        try conn.drop(searchTable: "notes_fts")
        #expect(try conn.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'notes_fts%'").isEmpty)
        try conn.execute("INSERT INTO notes(code, title, body) VALUES ('f', 'after', 'the drop')")
    }
}
