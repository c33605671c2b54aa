import Foundation
import Testing

@testable import Bindery

/// Typed search patterns over terms that differ only by Unicode normalization ("café" composed and
/// decomposed): two words to FTS5's tokenizers that keep diacritics (`unicode61` without removing
/// them, `trigram`, `ascii`), one word to Swift's `String` equality. The patterns must find the rows
/// the same pattern written by hand with both terms finds.
@Suite struct SearchPatternNormalizationTests {
    struct Doc: Record, Equatable {
        static let tableName = "docs"
        var id: Int64
        var body: String
    }

    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    private static func connection(_ tokenizer: SearchTokenizer) throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute("CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try conn.insert(contentsOf: [
            Doc(id: 1, body: "a \(composed) b"), Doc(id: 2, body: "a \(decomposed) b"), Doc(id: 3, body: "a cafe b"),
        ])
        try conn.create(searchTable: "docs_fts", on: "docs", columns: ["body"], tokenizer: tokenizer)
        return conn
    }

    private static func ids(_ conn: Connection, matching raw: String) throws -> [Int64] {
        try conn.fetchAll(Int64.self, sql: "SELECT rowid FROM docs_fts WHERE docs_fts MATCH \(raw) ORDER BY rowid")
    }

    @Test func theBuildersKeepBothTerms() throws {
        let text = "\(Self.composed) \(Self.decomposed)"
        #expect(SearchPattern.any(text)?.description == "\"\(Self.composed)\" OR \"\(Self.decomposed)\"")
        #expect(SearchPattern.all(text)?.description == "\"\(Self.composed)\" \"\(Self.decomposed)\"")
        #expect(SearchPattern.prefix(text)?.description == "\"\(Self.composed)\" * \"\(Self.decomposed)\" *")
        // The same bytes twice are still searched once.
        #expect(SearchPattern.any("\(Self.composed) \(Self.composed)")?.description == "\"\(Self.composed)\"")
    }

    @Test(arguments: [SearchTokenizer.unicode61(removeDiacritics: false), .trigram(), .ascii, .unicode61()])
    func patternsFindWhatTheHandWrittenPatternFinds(_ tokenizer: SearchTokenizer) throws {
        let conn = try Self.connection(tokenizer)
        let text = "\(Self.composed) \(Self.decomposed)"
        let cases: [(SearchPattern?, String)] = [
            (.any(text), "\"\(Self.composed)\" OR \"\(Self.decomposed)\""),
            (.all(text), "\"\(Self.composed)\" \"\(Self.decomposed)\""),
            (.prefix(text), "\"\(Self.composed)\" * \"\(Self.decomposed)\" *"),
        ]
        for (pattern, handWritten) in cases {
            let built = try #require(pattern)
            let found = try conn.fetchAll(Doc.all().matching(built, in: "docs_fts", ranked: false).order("id"))
            #expect(found.map(\.id) == (try Self.ids(conn, matching: handWritten)), "\(tokenizer) \(handWritten)")
        }
    }
}
