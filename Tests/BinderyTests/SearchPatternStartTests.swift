import Foundation
import Testing

@testable import Bindery

/// `SearchPattern.phraseAtStart`: FTS5's initial token query (`^"…"`), built from typed text that
/// cannot inject FTS5 syntax; it matches a column that starts with the phrase, and nothing else.
@Suite struct SearchPatternStartTests {
    static func connection(detail: SearchDetail = .full) throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT, body TEXT);
                INSERT INTO notes VALUES (1, 'Swift SQLite tips', 'short');
                INSERT INTO notes VALUES (2, 'Learning Swift SQLite', 'swift sqlite again');
                INSERT INTO notes VALUES (3, 'Swiftly done', 'nothing');
                INSERT INTO notes VALUES (4, 'NEAR "a" ^ x', 'hostile');
                """)
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"], detail: detail)
        return conn
    }

    static func ids(_ pattern: SearchPattern?, in conn: Connection) throws -> [Int64] {
        let pattern = try #require(pattern)
        return try conn.rows(
            "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rowid", arguments: [pattern.sqliteValue]
        ).map { try $0[0] as Int64 }
    }

    @Test func theTextIsQuotedAfterTheCaret() {
        #expect(SearchPattern.phraseAtStart("swift \"sq")?.rawPattern == #"^"swift sq""#)
        #expect(SearchPattern.phraseAtStart("swift sq", completingLastTerm: true)?.rawPattern == #"^"swift sq" *"#)
        #expect(SearchPattern.phraseAtStart("^ NEAR(a, \"b\") * OR -c:")?.rawPattern == #"^"NEAR a b OR c""#)
        #expect(SearchPattern.phraseAtStart("  ^ () \" * ") == nil)
        #expect(SearchPattern.phraseAtStart("") == nil)
        let long = String(repeating: "a", count: SearchPattern.maximumTermLength + 6)
        let cut = String(repeating: "a", count: SearchPattern.maximumTermLength)
        #expect(SearchPattern.phraseAtStart("x " + long + " y")?.rawPattern == "^\"x \(cut)\" *")
    }

    @Test func onlyAColumnThatStartsWithThePhraseMatches() throws {
        let conn = try Self.connection()
        #expect(try Self.ids(.phraseAtStart("swift sqlite"), in: conn) == [1, 2])  // 2 by its body
        #expect(try Self.ids(.phraseAtStart("swift sqlite tips"), in: conn) == [1])
        #expect(try Self.ids(.phraseAtStart("learning"), in: conn) == [2])
        #expect(try Self.ids(.phraseAtStart("sqlite"), in: conn) == [])
        #expect(try Self.ids(.phraseAtStart("swif"), in: conn) == [])
        #expect(try Self.ids(.phraseAtStart("swif", completingLastTerm: true), in: conn) == [1, 2, 3])
        #expect(try Self.ids(.phraseAtStart("swift sq", completingLastTerm: true), in: conn) == [1, 2])
        #expect(try Self.ids(.phraseAtStart("tips swift"), in: conn) == [])
        // FTS5 syntax typed by a user is searched as words.
        #expect(try Self.ids(.phraseAtStart("NEAR(\"a\") ^ x"), in: conn) == [4])
        #expect(try Self.ids(.phraseAtStart("hostile OR swift"), in: conn) == [])
    }

    @Test func itCombinesWithMatchingRequests() throws {
        struct Note: Record, Equatable {
            static let tableName = "notes"
            var id: Int64?
            var title: String
            var body: String
        }
        let conn = try Self.connection()
        let pattern = try #require(SearchPattern.phraseAtStart("swift", completingLastTerm: true))
        let titles = try conn.fetchAll(
            Note.all().matching(pattern, in: "notes_fts", ranked: false).filter("id <> \(2)").order("id")
        ).map(\.title)
        #expect(titles == ["Swift SQLite tips", "Swiftly done"])
    }

    /// Without positions FTS5 cannot tell where a phrase starts: it throws, never answers wrongly.
    @Test func aSearchTableWithoutPositionsThrows() throws {
        for detail in [SearchDetail.column, .none] {
            let conn = try Self.connection(detail: detail)
            #expect(throws: SQLiteError.self) { try Self.ids(.phraseAtStart("swift"), in: conn) }
        }
    }
}
