import Foundation
import Testing

@testable import Bindery

/// Tokenizer options: `separators` and `tokenchars` for `unicode61` and `ascii`, `porter` wrapping
/// any tokenizer; the characters are written as FTS5 strings, so quotes, spaces and parentheses in
/// them are characters, never syntax; characters FTS5 would not read as given are refused.
@Suite struct SearchTokenizerOptionsTests {
    static func connection(_ tokenizer: SearchTokenizer, rows: [String]) throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
        for row in rows {
            try conn.execute("INSERT INTO notes(body) VALUES (\(row))")
        }
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["body"], tokenizer: tokenizer)
        return conn
    }

    static func ids(_ raw: String, in conn: Connection) throws -> [Int64] {
        try conn.rows(
            "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rowid", arguments: [.text(raw)]
        ).map { try $0[0] as Int64 }
    }

    @Test func theOptionIsWrittenWithFTS5Strings() {
        #expect(
            SearchTokenizer.unicode61(separators: "x'", tokenCharacters: "- \"").option
                == #"unicode61 remove_diacritics 2 separators 'x''' tokenchars '- "'"#)
        #expect(SearchTokenizer.ascii(tokenCharacters: "_").option == "ascii tokenchars '_'")
        #expect(SearchTokenizer.porter(wrapping: .ascii(separators: "/")).option == "porter ascii separators '/'")
        #expect(SearchTokenizer.porter(wrapping: .trigram()).option == "porter trigram case_sensitive 0")
        // Without characters, the plain tokenizers.
        #expect(
            SearchTokenizer.unicode61(removeDiacritics: false, separators: "") == .unicode61(removeDiacritics: false))
        #expect(SearchTokenizer.ascii(separators: "", tokenCharacters: "") == .ascii)
        #expect(
            SearchTokenizer.porter(wrapping: .unicode61(removeDiacritics: false)) == .porter(removeDiacritics: false))
    }

    @Test func tokenCharactersJoinWordsAndSeparatorsCutThem() throws {
        let rows = ["send an e-mail", "mail me", "fooxbar"]
        let plain = try Self.connection(.unicode61(), rows: rows)
        #expect(try Self.ids(#""mail""#, in: plain) == [1, 2])
        #expect(try Self.ids(#""bar""#, in: plain) == [])

        let joined = try Self.connection(.unicode61(separators: "x", tokenCharacters: "-"), rows: rows)
        #expect(try Self.ids(#""mail""#, in: joined) == [2])
        #expect(try Self.ids(#""e-mail""#, in: joined) == [1])
        #expect(try Self.ids(#""bar""#, in: joined) == [3])
        #expect(try Self.ids(#""foo" "bar""#, in: joined) == [3])

        let ascii = try Self.connection(.ascii(tokenCharacters: "-"), rows: rows)
        #expect(try Self.ids(#""e-mail""#, in: ascii) == [1])
        #expect(try Self.ids(#""mail""#, in: ascii) == [2])
    }

    /// Quotes, spaces, commas and parentheses are characters of the option, never SQL or FTS5 syntax.
    @Test func quotesAndSpacesInTheCharactersCannotBreakTheStatement() throws {
        let rows = ["o'clock \"quoted\" a b", "it's) x, y"]
        let conn = try Self.connection(.unicode61(separators: "),", tokenCharacters: "'\" "), rows: rows)
        // The space and the quotes are token characters: the whole text of row 1 is one word.
        #expect(try Self.ids(#""o'clock ""quoted"" a b""#, in: conn) == [1])
        #expect(try Self.ids(#""o'clock""#, in: conn) == [])
        #expect(try Self.ids(#""it's""#, in: conn) == [2])
        #expect(try Self.ids(#"" x""#, in: conn) == [2])
        let stored: String = try conn.rows("SELECT sql FROM sqlite_schema WHERE name = 'notes_fts'")[0][0]
        #expect(stored.contains(#"separators ''),'' tokenchars ''''''" '''"#))
        try conn.execute("INSERT INTO notes(body) VALUES ('later''s) one')")
        #expect(try Self.ids(#""later's""#, in: conn) == [3])
        try conn.checkIntegrity(searchTable: "notes_fts")
        try conn.rebuild(searchTable: "notes_fts")
        #expect(try Self.ids(#""later's""#, in: conn) == [3])

        // Text shaped like the end of the option and more SQL stays characters.
        let hostile = try Self.connection(.ascii(separators: "'), = -- ;"), rows: ["ab=cd"])
        #expect(try Self.ids(#""cd""#, in: hostile) == [1])
        try hostile.checkIntegrity(searchTable: "notes_fts")
    }

    @Test func porterWrapsAnyTokenizer() throws {
        let rows = ["Cafés searching", "cafe-searched"]
        let folding = try Self.connection(.porter(wrapping: .unicode61(removeDiacritics: true)), rows: rows)
        #expect(try Self.ids(#""cafe" "search""#, in: folding) == [1, 2])
        let keeping = try Self.connection(.porter(wrapping: .unicode61(removeDiacritics: false)), rows: rows)
        #expect(try Self.ids(#""cafe""#, in: keeping) == [2])
        #expect(try Self.ids(#""café" "searched""#, in: keeping) == [1])
        let joined = try Self.connection(
            .porter(wrapping: .unicode61(removeDiacritics: true, tokenCharacters: "-")), rows: rows)
        #expect(try Self.ids(#""search""#, in: joined) == [1])
        #expect(try Self.ids(#""cafe-searching""#, in: joined) == [2])
        let ascii = try Self.connection(.porter(wrapping: .ascii), rows: rows)
        #expect(try Self.ids(#""searches""#, in: ascii) == [1, 2])
        #expect(try Self.ids(#""cafe""#, in: ascii) == [2])
        try ascii.checkIntegrity(searchTable: "notes_fts")
    }

    @Test func charactersFTS5WouldNotReadAsGivenAreRefused() throws {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
        func refusal(_ tokenizer: SearchTokenizer) -> SearchTableError? {
            do {
                try conn.create(searchTable: "f", on: "notes", columns: ["body"], tokenizer: tokenizer)
                return nil
            } catch {
                return error as? SearchTableError
            }
        }
        guard case .invalidOption("f", "separators", _) = refusal(.unicode61(separators: "a\u{0}")) else {
            Issue.record("a NUL separator was not refused")
            return
        }
        guard
            case .invalidOption("f", "tokenchars", let reason) = refusal(
                .unicode61(separators: "-x", tokenCharacters: "x"))
        else {
            Issue.record("a character both separator and token character was not refused")
            return
        }
        #expect(reason.contains("\"x\""))
        guard case .invalidOption("f", "tokenchars", _) = refusal(.porter(wrapping: .ascii(tokenCharacters: "é")))
        else {
            Issue.record("a non-ASCII character for the ascii tokenizer was not refused")
            return
        }
        #expect(try conn.rows("SELECT name FROM sqlite_schema WHERE name LIKE 'f%'").isEmpty)
    }
}
