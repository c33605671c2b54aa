import Foundation
import Testing

@testable import Bindery

/// A pattern built from typed text is bounded whatever the text (distinct terms, at most
/// `maximumTermCount` of them, each at most `maximumTermLength` scalars), text without letters or
/// digits builds none, and a cancel ends a slow search promptly.
@Suite struct SearchPatternBoundTests {
    /// `count` different words of letters only.
    static func words(_ count: Int) -> [String] {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        return (0..<count).map { index in
            var word = ""
            var rest = index
            repeat {
                word.append(letters[rest % 26])
                rest /= 26
            } while rest > 0
            return "w" + word
        }
    }

    static func quotedTerms(in pattern: SearchPattern) -> Int {
        pattern.rawPattern.filter { $0 == "\"" }.count / 2
    }

    @Test func aPasteIsSearchedByItsFirstDistinctTerms() throws {
        let words = Self.words(20_000)
        let paste = words.joined(separator: " ")
        #expect(paste.utf8.count > 100_000)
        let first = words.prefix(SearchPattern.maximumTermCount).map { "\"\($0)\"" }
        #expect(try #require(SearchPattern.all(paste)).rawPattern == first.joined(separator: " "))
        #expect(try #require(SearchPattern.any(paste)).rawPattern == first.joined(separator: " OR "))
        #expect(try #require(SearchPattern.prefix(paste)).rawPattern == first.map { $0 + " *" }.joined(separator: " "))
        let phrase = try #require(SearchPattern.phrase(paste))
        #expect(phrase.rawPattern == "\"" + words.prefix(SearchPattern.maximumTermCount).joined(separator: " ") + "\"")
        #expect(SearchPattern.maximumTermCount == 32)
        #expect(SearchPattern.maximumTermLength == 64)
    }

    @Test func repeatedTermsCountOnce() throws {
        let text = Array(repeating: "swift sqlite", count: 5_000).joined(separator: " ") + " fts"
        #expect(SearchPattern.all(text)?.rawPattern == #""swift" "sqlite" "fts""#)
        #expect(SearchPattern.any(text)?.rawPattern == #""swift" OR "sqlite" OR "fts""#)
        #expect(SearchPattern.prefix("sw sw sq")?.rawPattern == #""sw" * "sq" *"#)
        // A phrase keeps its words in order, repeated ones too.
        #expect(SearchPattern.phrase("a b a")?.rawPattern == #""a b a""#)
    }

    @Test func aLongTermIsSearchedAsAPrefixOfItsFirstScalars() throws {
        let long = String(repeating: "é", count: 40) + String(repeating: "x", count: 100_000)
        let cut = String(repeating: "é", count: 40) + String(repeating: "x", count: 24)
        #expect(SearchPattern.all("a " + long + " b")?.rawPattern == "\"a\" \"\(cut)\" * \"b\"")
        #expect(SearchPattern.any(long)?.rawPattern == "\"\(cut)\" *")
        #expect(SearchPattern.prefix(long)?.rawPattern == "\"\(cut)\" *")
        // The phrase ends with the cut term.
        #expect(SearchPattern.phrase("a " + long + " b")?.rawPattern == "\"a \(cut)\" *")
    }

    /// A cut term still finds the long word, with every tokenizer.
    @Test(arguments: ["unicode61", "unicode61 remove_diacritics 2", "porter unicode61", "trigram", "ascii"])
    func aCutTermStillFindsItsWord(tokenizer: String) throws {
        let conn = try Connection(path: ":memory:")
        try conn.execute("CREATE VIRTUAL TABLE fts USING fts5(body, tokenize = '\(raw: tokenizer)')")
        let long = String(repeating: "abc", count: 50)
        try conn.execute("INSERT INTO fts(body) VALUES (\("one " + long + " two")), (\("other"))")
        for pattern in [SearchPattern.all(long), .any(long), .prefix(long), .phrase("one " + long + " two")] {
            let found: [Int64] = try conn.fetchAll(
                Int64.self, sql: "SELECT rowid FROM fts WHERE fts MATCH \(try #require(pattern))")
            #expect(found == [1], "\(pattern?.rawPattern ?? "")")
        }
    }

    @Test func textWithoutLettersOrDigitsBuildsNoPattern() {
        for text in ["😀", "😀 👩‍👩‍👧‍👦 🇫🇷", "€ ∑ ©", "\u{0301}", "😀\u{0301}", "♥️♥️"] {
            #expect(SearchPattern.terms(in: text) == [], "\(text)")
            #expect(SearchPattern.all(text) == nil, "\(text)")
            #expect(SearchPattern.any(text) == nil, "\(text)")
            #expect(SearchPattern.phrase(text) == nil, "\(text)")
            #expect(SearchPattern.prefix(text) == nil, "\(text)")
        }
        #expect(SearchPattern.terms(in: "café 😀 x😀 ９ \u{E000}") == ["café", "x😀", "９", "\u{E000}"])
    }

    /// A search slow on purpose (every row of a large index matches, and each is ranked, again and
    /// again) is cancelled while it runs, and ends promptly with `CancellationError`.
    ///
    /// The cancel comes from a Dispatch thread once the search has begun, and the latency is measured
    /// on the reader's thread (from the cancel to the statement's failure): when the whole suite runs
    /// on 2 cores the cooperative pool is saturated, and neither this test's own wake-ups nor the
    /// read's result may be delayed into the measure (a fixed sleep let the search end first).
    @Test func aCancelEndsASlowSearchPromptly() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bindery-search-cancel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("search.sqlite").path
        do {
            let conn = try Connection(path: path, options: .init(schemaTrust: .trustedSchema))
            try conn.execute(
                script: """
                    CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
                    INSERT INTO docs(body) SELECT
                        'w' || (i % 40) || ' w' || (i * 7 % 40) || ' w' || (i * 13 % 40) || ' w' || (i * 31 % 40)
                        || ' w' || (abs(random()) % 40) || ' w' || (abs(random()) % 40) || ' w' || (abs(random()) % 40)
                        || ' w' || (abs(random()) % 40) || ' w' || (abs(random()) % 40) || ' w' || (abs(random()) % 40)
                    FROM n;
                    """)
            try conn.create(searchTable: "docs_fts", on: "docs", columns: ["body"], keptInStep: false)
            conn.close()
        }
        struct Doc: Record {
            static let tableName = "docs"
            var id: Int64?
            var body: String
        }
        // A 100 KB paste of words every row holds: the slowest typed text for this index.
        let paste =
            (0..<12_000).map { "w\($0 % 40)" }.joined(separator: " ") + " " + Self.words(5_000).joined(separator: " ")
        let pattern = try #require(SearchPattern.any(paste))
        let db = try Database(path: path)
        let excerpt = SQL.snippet(in: "docs_fts")
        let clock = ContinuousClock()
        let started = DispatchSemaphore(value: 0)
        let failedAt = Locked<ContinuousClock.Instant?>(nil)
        let rounds = Locked(0)
        let search = Task {
            try await db.read { conn in
                started.signal()
                do {
                    // Far longer than the cancel takes to come, on any machine: 200 full searches.
                    for _ in 0..<200 {
                        _ = try conn.fetchAll(
                            Doc.all().matching(pattern, in: "docs_fts").select("id, \(excerpt) AS body").limit(20))
                        rounds.value += 1
                    }
                } catch {
                    failedAt.value = clock.now
                    throw error
                }
            }
        }
        let cancelledAt = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                started.wait()
                Thread.sleep(forTimeInterval: 0.05)
                let now = clock.now
                search.cancel()
                continuation.resume(returning: now)
            }
        }
        let result = await search.result
        guard case .failure(let error) = result else {
            Issue.record("the search ended before the cancel, after \(rounds.value) rounds: make it slower")
            try await db.close()
            return
        }
        #expect(error is CancellationError, "\(error)")
        let failed = try #require(failedAt.value)
        let late = failed - cancelledAt
        print(
            "SearchPatternBoundTests: the cancel ended the search \(late) after it was asked (\(rounds.value) rounds)")
        // A bound that holds on a loaded machine (the whole suite runs in parallel on 2 cores); the
        // bench line "cancel of a running search" measures the latency itself (≤ 100 ms).
        #expect(late < .seconds(10), "the cancel ended the search \(late) after it was asked")
        try await db.close()
    }
}
