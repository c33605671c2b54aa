// libFuzzer target: search patterns built from any text, run against small FTS5 tables of every
// tokenizer, with properties:
// - a builder (all, any, phrase, prefix) returns nil exactly when `SearchPattern.terms(in:)` finds no
//   term, and every term it finds is non-empty;
// - FTS5 never reports an error for a built pattern, neither in a bare MATCH (on every table) nor in
//   a ranked request with a snippet and a highlight (on one table the input picks);
// - a raw pattern may be refused, only with an SQLiteError, and never crashes.

import Foundation

/// The search tables, one per tokenizer, over a few rows of hostile text. Used by one thread:
/// libFuzzer calls the target serially.
nonisolated(unsafe) private let searchDatabase: Connection? = {
    guard let conn = try? Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema)) else { return nil }
    // Not `harden(conn)`: its progress handler interrupts a statement every million steps counted over
    // the statement's lifetime, and the cached search statements here run for the whole session. Only
    // patterns reach this connection, never SQL, on a few short rows.
    do {
        try conn.execute(script: "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)")
        for text in ["Swift and SQLite", "café crème NEAR \"quotes\"", "a*b (c) -d ^e :f", "😀 emoji 👩‍👩‍👧", "\0 nul"] {
            try conn.execute("INSERT INTO notes(title, body) VALUES (\(text), \(text + " body"))")
        }
        for (index, tokenizer) in searchTokenizers.enumerated() {
            try conn.create(
                searchTable: "notes_fts\(index)", on: "notes", columns: ["title", "body"], tokenizer: tokenizer,
                weights: ["title": 2])
        }
        return conn
    } catch {
        FileHandle.standardError.write(Data("search fuzz: cannot set up: \(error)\n".utf8))
        return nil
    }
}()

private let searchTokenizers: [SearchTokenizer] = [
    .unicode61(), .unicode61(removeDiacritics: false), .porter(), .trigram(), .trigram(caseSensitive: true), .ascii,
]

private struct SearchFuzzNote: Record {
    static let tableName = "notes"
    var id: Int64?
    var title: String
    var body: String
}

private struct SearchFuzzHit: Decodable {
    var id: Int64
    var excerpt: String?
    var marked: String?
}

/// The harness (run through `fuzzOneInput` in FuzzEntry.swift): the input is the typed text, either
/// whole (as UTF-8, invalid sequences repaired) or picked by FuzzInput among hostile strings.
public func searchPatternFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let conn = searchDatabase else {
        require(false, "the search fuzz database could not be set up")
        return 0
    }
    var input = FuzzInput(data, size)
    let whole = String(decoding: UnsafeBufferPointer(start: size > 0 ? data : nil, count: max(size, 0)), as: UTF8.self)
    let texts = [whole, input.string() + " " + input.string()]
    // The ranked request with a snippet and a highlight runs on one table, picked by the input.
    let requested = input.choice(searchTokenizers.count)
    for text in texts {
        let terms = SearchPattern.terms(in: text)
        require(terms.allSatisfy { !$0.isEmpty }, "an empty term in \(text.debugDescription)")
        let built: [(String, SearchPattern?)] = [
            ("all", SearchPattern.all(text)), ("any", SearchPattern.any(text)),
            ("phrase", SearchPattern.phrase(text)), ("prefix", SearchPattern.prefix(text)),
        ]
        for (kind, pattern) in built {
            require((pattern == nil) == terms.isEmpty, "\(kind)(\(text.debugDescription)) and terms disagree")
            guard let pattern else { continue }
            for index in searchTokenizers.indices {
                let table = "notes_fts\(index)"
                do {
                    _ = try conn.rows(
                        "SELECT rowid FROM \(SQL.quote(identifier: table)) WHERE \(SQL.quote(identifier: table)) "
                            + "MATCH ? ORDER BY rank", arguments: [pattern.sqliteValue])
                    guard index == requested else { continue }
                    let excerpt = SQL.snippet(in: table, before: "[", after: "]", tokens: 5)
                    let marked = SQL.highlight(in: table, column: 0)
                    _ = try conn.fetchAll(
                        SearchFuzzHit.self,
                        SearchFuzzNote.all().matching(pattern, in: table).limit(3)
                            .select("id, \(excerpt) AS excerpt, \(marked) AS marked"))
                } catch {
                    require(
                        false,
                        "\(kind)(\(text.debugDescription)) = \(pattern.rawPattern.debugDescription) on \(table): \(error)"
                    )
                }
            }
        }
        // A raw pattern may be refused, with an SQLiteError only.
        do {
            _ = try conn.fetchAll(SearchFuzzNote.all().matching(SearchPattern(raw: text), in: "notes_fts0").limit(3))
        } catch is SQLiteError {
        } catch {
            require(false, "raw \(text.debugDescription) threw \(error), not an SQLiteError")
        }
    }
    return 0
}
