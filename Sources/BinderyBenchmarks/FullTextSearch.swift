import Bindery
import CSQLite
import Foundation

/// A document of the full-text search corpus.
struct SearchDocument: Record, Equatable {
    static let tableName = "documents"
    var id: Int64?
    var title: String
    var body: String
}

/// A ranked search hit: the document and its snippet.
struct SearchHit: Decodable, Equatable {
    var id: Int64
    var title: String
    var body: String
    var excerpt: String?
}

/// Full-text search over 100,000 documents generated deterministically (words of three syllables,
/// drawn with a Zipf distribution, so that queries range from common words to rare ones): indexing
/// through Bindery into a table kept in step by a search table's triggers, beside the C loop inserting
/// the same rows into the same schema; and ranked top-20 searches with snippets, beside the same
/// queries by hand.
enum FullTextSearch {
    static let count = 100_000
    static let vocabularySize = 5_000
    static let searchTable = "documents_fts"

    static let indexName = "full-text: index 100,000 documents, kept by triggers"
    static let searchName = "full-text: ranked top 20 with snippets, 8 searches"

    static func run(_ benchmark: Benchmark) throws {
        if let only = benchmark.only, !indexName.contains(only), !searchName.contains(only),
            !TypedSearchBound.name.contains(only), !TypedSearchBound.cancelName.contains(only)
        {
            return
        }
        let documents = corpus()
        let trusting = Connection.Options(schemaTrust: .trustedSchema)
        var failure: Error?
        // The schema both sides insert into: Bindery's search table, as SQLite stores it.
        let setup = try Connection(path: ":memory:", options: trusting)
        try create(on: setup)
        let schema = try setup.fetchAll(
            String.self,
            sql: """
                SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT IN \
                ('documents_fts_data', 'documents_fts_idx', 'documents_fts_docsize', 'documents_fts_config') \
                ORDER BY rowid
                """
        ).joined(separator: ";\n")
        let rank: String =
            try setup.fetchOne(
                String.self, sql: "SELECT v FROM documents_fts_config WHERE k = 'rank'") ?? ""

        var binderyDatabase = setup
        var rawDatabase = try RawDatabase(path: ":memory:")
        let insertWithC = {
            do {
                let raw = try RawDatabase(path: ":memory:")
                try raw.exec(schema)
                try raw.exec("INSERT INTO documents_fts(documents_fts, rank) VALUES ('rank', '\(rank)')")
                let insert = try raw.prepare("INSERT INTO documents (title, body) VALUES (?, ?)")
                defer { sqlite3_finalize(insert) }
                try raw.exec("BEGIN IMMEDIATE")
                for document in documents {
                    sqlite3_bind_text(insert, 1, document.title, -1, bindery_sqlite_transient())
                    sqlite3_bind_text(insert, 2, document.body, -1, bindery_sqlite_transient())
                    guard sqlite3_step(insert) == SQLITE_DONE else {
                        throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(raw.handle)))
                    }
                    sqlite3_reset(insert)
                }
                try raw.exec("COMMIT")
                rawDatabase = raw
            } catch {
                failure = error
            }
        }
        let indexed = benchmark.compare(
            indexName, goal: 1.0,
            baseline: insertWithC,
            bindery: {
                do {
                    let conn = try Connection(path: ":memory:", options: trusting)
                    try create(on: conn)
                    try conn.insert(contentsOf: documents)
                    binderyDatabase = conn
                } catch {
                    failure = error
                }
            })
        if let failure { throw failure }
        if indexed == 0 {
            // The searches below need both databases filled.
            insertWithC()
            try binderyDatabase.insert(contentsOf: documents)
            if let failure { throw failure }
        }
        try binderyDatabase.checkIntegrity(searchTable: searchTable)
        let rawCount = try rawDatabase.prepare("SELECT count(*) FROM documents_fts_docsize")
        defer { sqlite3_finalize(rawCount) }
        guard sqlite3_step(rawCount) == SQLITE_ROW, sqlite3_column_int64(rawCount, 0) == Int64(count),
            try binderyDatabase.fetchCount(SearchDocument.all()) == count
        else {
            throw BenchmarkError.mismatch("full-text indexing: the two databases do not hold \(count) documents")
        }

        try search(benchmark, conn: binderyDatabase, raw: rawDatabase)
        try TypedSearchBound.run(benchmark, conn: binderyDatabase)
    }

    /// The ranked top-20 searches with snippets, on both sides; their results compared.
    private static func search(_ benchmark: Benchmark, conn: Connection, raw: RawDatabase) throws {
        let typed = queries()
        let patterns = typed.compactMap { $0.pattern }
        guard patterns.count == typed.count, searchName.contains("\(typed.count) searches") else {
            throw BenchmarkError.mismatch("the searches are not the \(typed.count) the line names")
        }
        let byHand = try raw.prepare(
            """
            SELECT documents.id, documents.title, documents.body, \
            snippet(documents_fts, -1, '<b>', '</b>', '…', 12) \
            FROM documents JOIN documents_fts ON documents_fts.rowid = documents.id \
            WHERE documents_fts MATCH ? ORDER BY documents_fts.rank LIMIT 20
            """)
        defer { sqlite3_finalize(byHand) }
        var withC: [[SearchHit]] = []
        var withBindery: [[SearchHit]] = []
        var failure: Error?
        let ran = benchmark.compare(
            searchName, goal: 1.2,
            baseline: {
                withC = patterns.map { pattern in
                    sqlite3_bind_text(byHand, 1, pattern.rawPattern, -1, bindery_sqlite_transient())
                    var hits: [SearchHit] = []
                    while sqlite3_step(byHand) == SQLITE_ROW {
                        hits.append(
                            SearchHit(
                                id: sqlite3_column_int64(byHand, 0), title: text(byHand, 1), body: text(byHand, 2),
                                excerpt: sqlite3_column_type(byHand, 3) == SQLITE_NULL ? nil : text(byHand, 3)))
                    }
                    sqlite3_reset(byHand)
                    return hits
                }
            },
            bindery: {
                do {
                    let excerpt = SQL.snippet(in: searchTable, tokens: 12)
                    withBindery = try typed.map { query in
                        guard let pattern = query.pattern else { return [] }
                        return try conn.fetchAll(
                            SearchHit.self,
                            SearchDocument.all().matching(pattern, in: searchTable).limit(20)
                                .select("documents.*, \(excerpt) AS excerpt"))
                    }
                } catch {
                    failure = error
                }
            })
        if let failure { throw failure }
        if ran > 0 {
            guard withC == withBindery, withC.allSatisfy({ !$0.isEmpty }) else {
                throw BenchmarkError.mismatch("full-text search: Bindery and the C loop found different hits")
            }
        }
    }

    /// The search table both sides use.
    private static func create(on conn: Connection) throws {
        try conn.createTable(for: SearchDocument.self)
        try conn.create(
            searchTable: searchTable, on: SearchDocument.tableName, columns: ["title", "body"],
            weights: ["title": 10])
    }

    /// The searches: typed text of common, middling and rare words, as every kind of pattern.
    private static func queries() -> [(text: String, pattern: SearchPattern?)] {
        let words = vocabulary()
        let texts: [(String, (String) -> SearchPattern?)] = [
            (words[0], SearchPattern.all), (words[3] + " " + words[40], SearchPattern.all),
            (words[120], SearchPattern.all), (words[2_500], SearchPattern.all),
            (words[7] + " " + words[900], SearchPattern.any), (words[0] + " " + words[1], SearchPattern.phrase),
            (String(words[15].prefix(4)), SearchPattern.prefix),
            ("\"" + words[60] + "\" (" + words[0] + "* NEAR", SearchPattern.any),
        ]
        return texts.map { ($0.0, $0.1($0.0)) }
    }

    /// `vocabularySize` words of three syllables each, all different.
    static func vocabulary() -> [String] {
        let consonants = Array("bdfgklmnprstvz")
        let vowels = Array("aeiou")
        return (0..<vocabularySize).map { index in
            var word = ""
            var rest = index
            for _ in 0..<3 {
                let syllable = rest % (consonants.count * vowels.count)
                rest /= consonants.count * vowels.count
                word.append(consonants[syllable / vowels.count])
                word.append(vowels[syllable % vowels.count])
            }
            return word
        }
    }

    /// The documents: a title of 5 words and a body of 16, words drawn with a Zipf distribution
    /// from a generator with a fixed seed.
    static func corpus() -> [SearchDocument] {
        let words = vocabulary()
        var cumulative: [Double] = []
        var total = 0.0
        for rank in 0..<words.count {
            total += 1 / Double(rank + 1)
            cumulative.append(total)
        }
        var generator = SplitMix64(seed: 0x5EA2C4)
        func word() -> String {
            let target = Double(generator.next() >> 11) / Double(1 << 53) * total
            var low = 0
            var high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return words[low]
        }
        return (0..<count).map { _ in
            SearchDocument(
                id: nil, title: (0..<5).map { _ in word() }.joined(separator: " "),
                body: (0..<16).map { _ in word() }.joined(separator: " "))
        }
    }

    private static func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: pointer)
    }
}

/// A small deterministic generator (SplitMix64), so that every run builds the same corpus.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
