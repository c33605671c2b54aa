import Foundation
import Testing

@testable import Bindery

/// Patterns built from typed text: the terms they hold, what they match, and that FTS5 never reports
/// a syntax error for one, whatever the text (a hostile table and thousands of random strings).
@Suite struct SearchPatternTests {
    /// Text a search box may receive, each of which breaks an FTS5 query spliced by hand.
    static let hostileTexts: [String] = [
        "\"", "\"\"", "\"unterminated", "a\"b", "(", ")", "(a", "a)", "*", "a*", "*a", "NEAR", "NEAR(a b)",
        "NEAR/2", "AND", "OR", "NOT", "a AND", "OR b", "NOT NOT", "a AND OR NOT b", "title:swift", ":", "a:b:c",
        "-", "-a", "a-b", "^", "^a", "+", "{a b}:c", "a\0b", "\0", "😀", "👩‍👩‍👧‍👦", "🇫🇷", "é\u{0301}", "\u{0301}",
        "\u{202E}rtl", "\u{FEFF}", "日本語のテキスト", "\r\n\t", "", " ", "   \t ", "'", "''", "\\", "%_",
        "a OR", "rowid:1", "col : x", "a NEAR b", "a + b", "\"a\" \"b\"", "x' OR '1'='1",
        String(repeating: "\"", count: 500), String(repeating: "(", count: 500),
    ]

    /// A table per tokenizer the builders must survive.
    static let tokenizers = ["unicode61", "unicode61 remove_diacritics 2", "porter unicode61", "trigram", "ascii"]

    static func searchConnection() throws -> Connection {
        let conn = try Connection(path: ":memory:")
        for (index, tokenizer) in tokenizers.enumerated() {
            try conn.execute(
                "CREATE VIRTUAL TABLE fts\(index) USING fts5(title, body, tokenize = '\(tokenizer)')", arguments: [])
            try conn.execute(
                "INSERT INTO fts\(index)(title, body) VALUES (?, ?), (?, ?)",
                arguments: [
                    "Swift and SQLite", "Café NEAR the \"station\" (AND more)", "日本語のテキスト", "emoji 😀 here",
                ])
        }
        return conn
    }

    static func matches(_ pattern: SearchPattern, in conn: Connection, table: Int = 0) throws -> [Int64] {
        try conn.rows(
            "SELECT rowid FROM fts\(table) WHERE fts\(table) MATCH ? ORDER BY rowid",
            arguments: [
                pattern.sqliteValue
            ]
        ).map { try $0[0] as Int64 }
    }

    @Test func termsSplitAtSpacesPunctuationAndControlCharacters() {
        #expect(SearchPattern.terms(in: "  (café) NEAR-by: 😀 ") == ["café", "NEAR", "by"])
        #expect(SearchPattern.terms(in: "a\0b") == ["a", "b"])
        #expect(SearchPattern.terms(in: "e\u{0301}té") == ["e\u{0301}té"])
        #expect(SearchPattern.terms(in: "👩‍👩‍👧‍👦") == [])
        #expect(SearchPattern.terms(in: "a👩‍👩‍👧‍👦") == ["a👩‍👩‍👧‍👦"])
        #expect(SearchPattern.terms(in: " \t\r\n\"()*:^-") == [])
    }

    @Test func buildersQuoteEveryTerm() throws {
        #expect(SearchPattern.all("swift AND sqlite")?.rawPattern == #""swift" "AND" "sqlite""#)
        #expect(SearchPattern.any("swift sqlite")?.rawPattern == #""swift" OR "sqlite""#)
        #expect(SearchPattern.phrase("swift, sqlite")?.rawPattern == #""swift sqlite""#)
        #expect(SearchPattern.prefix("sw sq")?.rawPattern == #""sw" * "sq" *"#)
        #expect(SearchPattern.all("a＂b^c+d€")?.rawPattern == #""a" "b" "c" "d€""#)
        #expect(SearchPattern(raw: "a OR b").rawPattern == "a OR b")
    }

    @Test func textWithoutTermsBuildsNoPattern() {
        for text in ["", " ", "\t\r\n", "\0", "\"\"", "()", "*", "-:^"] {
            #expect(SearchPattern.all(text) == nil)
            #expect(SearchPattern.any(text) == nil)
            #expect(SearchPattern.phrase(text) == nil)
            #expect(SearchPattern.prefix(text) == nil)
        }
    }

    @Test func builtPatternsMatchAsDocumented() throws {
        let conn = try Self.searchConnection()
        #expect(try Self.matches(#require(SearchPattern.all("sqlite swift")), in: conn) == [1])
        #expect(try Self.matches(#require(SearchPattern.all("swift emoji")), in: conn) == [])
        #expect(try Self.matches(#require(SearchPattern.any("swift emoji")), in: conn) == [1, 2])
        #expect(try Self.matches(#require(SearchPattern.phrase("swift and sqlite")), in: conn) == [1])
        #expect(try Self.matches(#require(SearchPattern.phrase("sqlite and swift")), in: conn) == [])
        #expect(try Self.matches(#require(SearchPattern.prefix("sw sql")), in: conn) == [1])
        #expect(try Self.matches(#require(SearchPattern.all("sw sql")), in: conn) == [])
        // Operator words are searched as words: "NEAR" and "AND" are in row 1's body.
        #expect(try Self.matches(#require(SearchPattern.all("NEAR AND")), in: conn) == [1])
        #expect(try Self.matches(#require(SearchPattern.all("\"station\"")), in: conn) == [1])
        // Bound through SQL interpolation as well.
        let pattern = try #require(SearchPattern.all("café"))
        let rows = try conn.rows("SELECT rowid FROM fts0 WHERE fts0 MATCH ?", arguments: [pattern.sqliteValue])
        #expect(rows.count == 1)
    }

    @Test func rawPatternSyntaxErrorsArePassedOnAsSQLiteError() throws {
        let conn = try Self.searchConnection()
        #expect(try Self.matches(SearchPattern(raw: "swift AND sqlite"), in: conn) == [1])
        let error = try #require(throws: SQLiteError.self) {
            try Self.matches(SearchPattern(raw: "\"unterminated"), in: conn)
        }
        #expect(error.code == .error)
        #expect(error.message == "unterminated string")
    }

    @Test(arguments: hostileTexts) func hostileTextNeverBreaksAQuery(text: String) throws {
        let conn = try Self.searchConnection()
        try Self.expectNoError(for: text, in: conn)
    }

    /// Thousands of random strings from an alphabet of FTS5 syntax, quotes, controls, marks and emoji.
    @Test func randomHostileTextNeverBreaksAQuery() throws {
        let conn = try Self.searchConnection()
        let alphabet: [String] = [
            "\"", "'", "(", ")", "*", ":", "-", "^", "+", "{", "}", ",", ".", "/", "\\", "\0", " ", "\t", "\n",
            "NEAR", "AND", "OR", "NOT", "and", "a", "b", "swift", "é", "\u{0301}", "\u{200D}", "\u{FE0F}", "😀",
            "👩", "🇫", "日", "ß", "İ", "\u{202E}", "\u{FEFF}", "0", "9", "_", "%", "＂", "title", "body",
        ]
        var generator = ReliabilityTestSupport.SeededGenerator(state: 0x5EA2C4)
        for _ in 0..<3000 {
            let length = Int(generator.next() % 12)
            var text = ""
            for _ in 0..<length { text += alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            try Self.expectNoError(for: text, in: conn)
        }
    }

    static func expectNoError(for text: String, in conn: Connection) throws {
        let patterns = [SearchPattern.all(text), .any(text), .phrase(text), .prefix(text)]
        if SearchPattern.terms(in: text).isEmpty {
            #expect(patterns.allSatisfy { $0 == nil }, "\(text.debugDescription)")
            return
        }
        for case let pattern? in patterns {
            for table in tokenizers.indices {
                do {
                    _ = try matches(pattern, in: conn, table: table)
                } catch {
                    Issue.record("\(text.debugDescription) → \(pattern.rawPattern.debugDescription): \(error)")
                }
            }
        }
    }
}
