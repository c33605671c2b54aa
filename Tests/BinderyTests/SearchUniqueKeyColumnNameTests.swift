import Foundation
import Testing

@testable import Bindery

/// A search table over a table with a UNIQUE index on a column whose name differs from a generated
/// column's only by non-ASCII case ("é" and "É": two columns to SQLite). The index is on an ordinary
/// column, which the triggers can follow: the search table is made, and stays in step when a row is
/// replaced through that index (checked against a LIKE scan and FTS5's integrity check).
@Suite struct SearchUniqueKeyColumnNameTests {
    @Test func anIndexOnAnOrdinaryColumnNamedLikeAGeneratedOneIsFollowed() throws {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE t(id INTEGER PRIMARY KEY, "\u{E9}" TEXT NOT NULL, body TEXT NOT NULL,
                    "\u{C9}" TEXT GENERATED ALWAYS AS (upper(body)) STORED);
                CREATE UNIQUE INDEX t_e ON t("\u{E9}");
                INSERT INTO t(id, "\u{E9}", body) VALUES (1, 'a', 'alpha'), (2, 'b', 'bravo');
                """)
        try conn.create(searchTable: "t_fts", on: "t", columns: ["body"])
        try conn.execute("INSERT OR REPLACE INTO t(id, \"\u{E9}\", body) VALUES (3, 'a', 'charlie')")
        for word in ["alpha", "bravo", "charlie"] {
            let pattern = try #require(SearchPattern.all(word))
            let found = try conn.fetchAll(
                Int64.self, sql: "SELECT rowid FROM t_fts WHERE t_fts MATCH \(pattern.description) ORDER BY rowid")
            let like = "%" + word + "%"
            #expect(
                found == (try conn.fetchAll(Int64.self, sql: "SELECT id FROM t WHERE body LIKE \(like) ORDER BY id")))
        }
        #expect(throws: Never.self) { try conn.checkIntegrity(searchTable: "t_fts") }
    }
}
