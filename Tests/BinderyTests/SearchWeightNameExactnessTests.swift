import Foundation
import Testing

@testable import Bindery

/// Search weights are matched to columns by their names' bytes, as SQLite tells columns apart: two
/// columns whose names differ only by Unicode normalization each get their own weight, and a weight
/// for a column the search table does not index is refused. SQLite's own `bm25` with the weights
/// written out is the expected rank.
@Suite struct SearchWeightNameExactnessTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    private func connection() throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE notes(id INTEGER PRIMARY KEY, "\(Self.composed)" TEXT, "\(Self.decomposed)" TEXT, other TEXT);
                INSERT INTO notes VALUES (1, 'apple pie', 'pear', 'x'), (2, 'pear', 'apple pie', 'x');
                """)
        return conn
    }

    @Test func eachSpellingGetsItsOwnWeight() throws {
        let conn = try connection()
        try conn.create(
            searchTable: "notes_fts", on: "notes", columns: [Self.composed, Self.decomposed],
            weights: [Self.composed: 10])
        let ranks = try conn.rows(
            "SELECT rowid, rank = bm25(notes_fts, 10.0, 1.0) FROM notes_fts WHERE notes_fts MATCH 'apple' "
                + "ORDER BY rowid",
            arguments: [])
        #expect(ranks.map(\.values) == [[.integer(1), .integer(1)], [.integer(2), .integer(1)]])
    }

    @Test func aWeightForAnotherSpellingIsRefused() throws {
        let conn = try connection()
        #expect(throws: SearchTableError.self) {
            try conn.create(
                searchTable: "notes_fts", on: "notes", columns: [Self.composed, "other"],
                weights: [Self.decomposed: 10])
        }
    }
}
