import Foundation
import Testing

@testable import Bindery

/// What a search table refuses, and keys that compare in ways of their own: a key whose type or
/// collation a change would move, a search table renamed, a key index whose collation is not its
/// column's, a `STRICT` key of type `ANY`.
@Suite struct SearchKeyRefusalTests {
    struct Doc: Record, Equatable {
        static let tableName = "docs"
        static let primaryKey = ["code"]
        var code: String
        var body: String
    }

    private func trusted() throws -> Connection {
        try Connection.inMemory(options: Connection.Options(schemaTrust: .trustedSchema))
    }

    private func found(_ conn: Connection, _ word: String) throws -> [Doc] {
        guard let pattern = SearchPattern.all(word) else { return [] }
        return try conn.fetchAll(Doc.self, Doc.all().matching(pattern, in: "docs_fts").order(Column("code").asc))
    }

    @Test func aChangeOfTheKeysCollationOrTypeIsRefusedAndChangesNothing() throws {
        let conn = try trusted()
        try conn.execute(
            script: """
                CREATE TABLE docs (code TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, body TEXT NOT NULL) WITHOUT ROWID;
                INSERT INTO docs VALUES ('a', 'alpha');
                """)
        try conn.create(searchTable: "docs_fts", on: "docs", columns: ["body"])
        let before = try conn.fetchOne(String.self, sql: "SELECT sql FROM sqlite_schema WHERE name = 'docs'")
        #expect(throws: SearchTableError.keyChanged(searchTable: "docs_fts", table: "docs")) {
            try conn.alter(table: "docs") { t in t.change(column: "code").dropCollation() }
        }
        #expect(throws: SearchTableError.keyChanged(searchTable: "docs_fts", table: "docs")) {
            try conn.alter(table: "docs") { t in t.change(column: "code", to: .integer) }
        }
        #expect(try conn.fetchOne(String.self, sql: "SELECT sql FROM sqlite_schema WHERE name = 'docs'") == before)
        // A change that keeps the key's type and collation goes on.
        try conn.alter(table: "docs") { t in t.change(column: "body").check("length(body) < \(100)") }
        try conn.execute("INSERT INTO docs VALUES ('B', 'bravo')")
        #expect(try found(conn, "bravo") == [Doc(code: "B", body: "bravo")])
        try conn.checkIntegrity(searchTable: "docs_fts")
    }

    @Test func aSearchTableIsNotRenamedButItsTableIs() throws {
        let conn = try trusted()
        try conn.execute(
            script: """
                CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                CREATE TABLE docs (code TEXT PRIMARY KEY NOT NULL, body TEXT NOT NULL);
                """)
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["body"])
        try conn.create(searchTable: "docs_fts", on: "docs", columns: ["body"])
        for name in ["notes_fts", "docs_fts"] {
            #expect(throws: SearchTableError.searchTableRenamed(searchTable: name)) {
                try conn.rename(table: name, to: name + "2")
            }
        }
        try conn.execute("INSERT INTO docs VALUES ('c', 'charlie')")
        #expect(try found(conn, "charlie") == [Doc(code: "c", body: "charlie")])
        // A search table that reads its table by name keeps it from being renamed; one that reads it
        // through its key mapping's view follows.
        #expect(throws: SearchTableError.contentTableRenamed(searchTable: "notes_fts", table: "notes")) {
            try conn.rename(table: "notes", to: "memos")
        }
        try conn.rename(table: "docs", to: "papers")
        try conn.execute("INSERT INTO papers VALUES ('d', 'delta')")
        #expect(
            try conn.fetchAll(
                String.self,
                sql:
                    "SELECT code FROM papers WHERE code IN (SELECT k0 FROM docs_fts_keys WHERE id IN (SELECT rowid FROM docs_fts WHERE docs_fts MATCH 'delta'))"
            ) == ["d"])
        try conn.checkIntegrity(searchTable: "notes_fts")
        try conn.checkIntegrity(searchTable: "docs_fts")
    }

    @Test func aKeyIndexCollationOtherThanTheColumnsMatchesEachRowOnce() throws {
        let conn = try trusted()
        try conn.execute(
            script: """
                CREATE TABLE docs (code TEXT NOT NULL COLLATE NOCASE, body TEXT NOT NULL,
                    PRIMARY KEY (code COLLATE BINARY));
                INSERT INTO docs VALUES ('abc', 'alpha'), ('ABC', 'bravo');
                """)
        try conn.create(searchTable: "docs_fts", on: "docs", columns: ["body"])
        #expect(try found(conn, "alpha") == [Doc(code: "abc", body: "alpha")])
        #expect(try found(conn, "bravo") == [Doc(code: "ABC", body: "bravo")])
        try conn.execute("UPDATE docs SET body = 'charlie' WHERE code = 'ABC' COLLATE BINARY")
        try conn.execute("DELETE FROM docs WHERE code = 'abc' COLLATE BINARY")
        #expect(try found(conn, "alpha").isEmpty)
        #expect(try found(conn, "charlie") == [Doc(code: "ABC", body: "charlie")])
        try conn.checkIntegrity(searchTable: "docs_fts")
    }

    @Test func aStrictAnyKeyKeepsTextAndNumbersApart() throws {
        let conn = try trusted()
        try conn.execute(
            script: """
                CREATE TABLE docs (code ANY PRIMARY KEY NOT NULL, body TEXT NOT NULL) STRICT;
                INSERT INTO docs VALUES ('007', 'alpha'), (7, 'bravo');
                """)
        try conn.create(searchTable: "docs_fts", on: "docs", columns: ["body"])
        try conn.execute("DELETE FROM docs WHERE code = 7")
        #expect(try found(conn, "bravo").isEmpty)
        #expect(try conn.fetchAll(String.self, sql: "SELECT body FROM docs WHERE code = '007'") == ["alpha"])
        #expect(
            try conn.fetchOne(
                Int.self,
                sql:
                    "SELECT count(*) FROM docs_fts JOIN docs_fts_keys ON docs_fts.rowid = id WHERE docs_fts MATCH 'alpha'"
            ) == 1)
        try conn.checkIntegrity(searchTable: "docs_fts")
    }
}
