import Foundation
import Testing

@testable import Bindery

/// An `INSERT OR REPLACE` (or an upsert) that deletes a row through any UNIQUE key of the table,
/// partial and expression indexes included, takes that row out of the search table: FTS5's integrity
/// check passes and a search no longer finds it, with `recursive_triggers` off (SQLite's default) and on.
@Suite struct SearchIndexSafetyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// The table `people(id INTEGER PRIMARY KEY, email TEXT, active INTEGER, bio TEXT, …)` and its indexes.
        var schema: String
        /// Rows inserted before the search table is made.
        var setup: String
        /// The write that deletes the row whose bio holds "zebra".
        var write: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "plain UNIQUE column",
            schema: "CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT UNIQUE, active INTEGER, bio TEXT)",
            setup: "INSERT INTO people(email, active, bio) VALUES ('a@x', 1, 'zebra stripes')",
            write: "INSERT OR REPLACE INTO people(email, active, bio) VALUES ('a@x', 1, 'lion mane')"),
        Case(
            name: "UNIQUE table constraint",
            schema:
                "CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, active INTEGER, bio TEXT, UNIQUE(email, active))",
            setup: "INSERT INTO people(email, active, bio) VALUES ('a@x', 1, 'zebra stripes')",
            write: "INSERT OR REPLACE INTO people(email, active, bio) VALUES ('a@x', 1, 'lion mane')"),
        Case(
            name: "partial UNIQUE index",
            schema: """
                CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, active INTEGER, bio TEXT);
                CREATE UNIQUE INDEX people_active_email ON people(email) WHERE active = 1
                """,
            setup: """
                INSERT INTO people(email, active, bio) VALUES ('a@x', 1, 'zebra stripes');
                INSERT INTO people(email, active, bio) VALUES ('a@x', 0, 'zebu horns')
                """,
            write: "INSERT OR REPLACE INTO people(email, active, bio) VALUES ('a@x', 1, 'lion mane')"),
        Case(
            name: "expression UNIQUE index",
            schema: """
                CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, active INTEGER, bio TEXT);
                CREATE UNIQUE INDEX people_email_lower ON people(lower(email) DESC, active + 0 COLLATE NOCASE)
                """,
            setup: "INSERT INTO people(email, active, bio) VALUES ('A@X', 1, 'zebra stripes')",
            write: "INSERT OR REPLACE INTO people(email, active, bio) VALUES ('a@x', 1, 'lion mane')"),
        Case(
            name: "partial expression UNIQUE index, updated",
            schema: """
                CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, active INTEGER, bio TEXT);
                CREATE UNIQUE INDEX "people email" ON people(trim(email)) WHERE "people".active
                """,
            setup: """
                INSERT INTO people(email, active, bio) VALUES (' a@x', 1, 'zebra stripes');
                INSERT INTO people(email, active, bio) VALUES ('b@x', 1, 'lion mane')
                """,
            write: "UPDATE OR REPLACE people SET email = 'a@x ' WHERE email = 'b@x'"),
        Case(
            name: "upsert through a partial UNIQUE index",
            schema: """
                CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, active INTEGER, bio TEXT);
                CREATE UNIQUE INDEX people_active_email ON people(email) WHERE active = 1
                """,
            setup: """
                INSERT INTO people(email, active, bio) VALUES ('a@x', 1, 'zebra stripes');
                INSERT INTO people(email, active, bio) VALUES ('b@x', 1, 'lion mane')
                """,
            write: """
                INSERT INTO people(email, active, bio) VALUES ('a@x', 1, 'lion again')
                ON CONFLICT (email) WHERE active = 1 DO UPDATE SET bio = excluded.bio
                """),
        Case(
            name: "REPLACE on the rowid",
            schema: "CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, active INTEGER, bio TEXT)",
            setup: "INSERT INTO people(id, email, active, bio) VALUES (7, 'a@x', 1, 'zebra stripes')",
            write: "REPLACE INTO people(id, email, active, bio) VALUES (7, 'b@x', 1, 'lion mane')"),
    ]

    @Test(arguments: cases, [false, true]) func replacedRowsLeaveTheIndex(_ test: Case, recursiveTriggers: Bool) throws
    {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(script: test.schema)
        try conn.execute(script: test.setup)
        try conn.execute(script: "PRAGMA recursive_triggers = \(recursiveTriggers ? "ON" : "OFF")")
        try conn.create(searchTable: "people_fts", on: "people", columns: ["email", "bio"])
        try conn.execute(script: test.write)
        #expect(throws: Never.self) { try conn.checkIntegrity(searchTable: "people_fts") }
        let zebra: [Int64] = try conn.fetchAll(
            Int64.self, sql: "SELECT rowid FROM people_fts WHERE people_fts MATCH 'zebra'")
        let zebraRows: [Int64] = try conn.fetchAll(Int64.self, sql: "SELECT id FROM people WHERE bio LIKE '%zebra%'")
        #expect(zebra == zebraRows)
        let lion: [Int64] = try conn.fetchAll(
            Int64.self, sql: "SELECT rowid FROM people_fts WHERE people_fts MATCH 'lion' ORDER BY rowid")
        let lionRows: [Int64] = try conn.fetchAll(
            Int64.self, sql: "SELECT id FROM people WHERE bio LIKE '%lion%' ORDER BY id")
        #expect(lion == lionRows)
        #expect(!lion.isEmpty)
        let entries: [Int64] = try conn.fetchAll(Int64.self, sql: "SELECT count(*) FROM people_fts_docsize")
        let rows: [Int64] = try conn.fetchAll(Int64.self, sql: "SELECT count(*) FROM people")
        #expect(entries == rows)
    }

    /// A row the partial index does not hold is not taken for a conflict: an insert beside it keeps it
    /// in the table and in the search table.
    @Test func rowsOutsideAPartialIndexStay() throws {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, active INTEGER, bio TEXT);
                CREATE UNIQUE INDEX people_active_email ON people(email) WHERE active = 1;
                INSERT INTO people(email, active, bio) VALUES ('a@x', 0, 'zebra stripes');
                """)
        try conn.create(searchTable: "people_fts", on: "people", columns: ["bio"])
        try conn.execute(script: "INSERT OR REPLACE INTO people(email, active, bio) VALUES ('a@x', 1, 'lion mane')")
        try conn.checkIntegrity(searchTable: "people_fts")
        let all: [Int64] = try conn.fetchAll(
            Int64.self, sql: "SELECT rowid FROM people_fts WHERE people_fts MATCH 'zebra OR lion' ORDER BY rowid")
        #expect(all == [1, 2])
    }

    /// A UNIQUE index over a generated column cannot be followed by a BEFORE trigger: creating the
    /// search table throws, naming the index, and creates nothing.
    @Test func generatedColumnIndexIsRefused() throws {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, bio TEXT, folded TEXT AS (lower(email)));
                CREATE UNIQUE INDEX people_folded ON people(folded);
                """)
        #expect {
            try conn.create(searchTable: "people_fts", on: "people", columns: ["bio"])
        } throws: { error in
            guard case .uncoveredUniqueIndex(let searchTable, let table, let index, _) = error as? SearchTableError
            else { return false }
            return searchTable == "people_fts" && table == "people" && index == "people_folded"
        }
        let left: [String] = try conn.fetchAll(
            String.self, sql: "SELECT name FROM sqlite_schema WHERE name LIKE 'people_fts%'")
        #expect(left.isEmpty)
    }
}

/// A UNIQUE key the table gains later through the table builder, and renames of indexed columns.
@Suite struct SearchIndexSafetyChangeTests {
    static func connection() throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, active INTEGER, bio TEXT);
                INSERT INTO people(email, active, bio) VALUES ('a@x', 1, 'zebra stripes');
                """)
        try conn.create(searchTable: "people_fts", on: "people", columns: ["email", "bio"])
        return conn
    }

    static func expectInStep(_ conn: Connection, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(throws: Never.self, sourceLocation: sourceLocation) {
            try conn.checkIntegrity(searchTable: "people_fts")
        }
        let zebra: [Int64] = try conn.fetchAll(
            Int64.self, sql: "SELECT rowid FROM people_fts WHERE people_fts MATCH 'zebra'")
        #expect(zebra.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func partialIndexCreatedLaterIsCovered() throws {
        let conn = try Self.connection()
        try conn.create(index: "people_email", on: "people", columns: ["email"], unique: true, where: "active = 1")
        try conn.execute(script: "INSERT OR REPLACE INTO people(email, active, bio) VALUES ('a@x', 1, 'lion mane')")
        try Self.expectInStep(conn)
    }

    @Test func uniqueConstraintAddedByARebuildIsCovered() throws {
        let conn = try Self.connection()
        try conn.alter(table: "people") { $0.unique(["email"]) }
        try conn.execute(script: "INSERT OR REPLACE INTO people(email, active, bio) VALUES ('a@x', 1, 'lion mane')")
        try Self.expectInStep(conn)
    }

    @Test func renamingAnIndexedColumnIsRefused() throws {
        let conn = try Self.connection()
        #expect(
            throws: SearchTableError.indexedColumnRenamed(searchTable: "people_fts", table: "people", column: "bio")
        ) {
            try conn.alter(table: "people") { $0.rename(column: "bio", to: "about") }
        }
        #expect(
            throws: SearchTableError.indexedColumnRenamed(searchTable: "people_fts", table: "People", column: "BIO")
        ) {
            try conn.alter(table: "People") { t in
                t.add(column: "extra", .text)
                t.rename(column: "BIO", to: "about")
            }
        }
        let columns: [String] = try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info('people')")
        #expect(columns == ["id", "email", "active", "bio"])
        try conn.checkIntegrity(searchTable: "people_fts")
        // A column the search table does not read renames as before.
        try conn.alter(table: "people") { $0.rename(column: "active", to: "enabled") }
        try conn.checkIntegrity(searchTable: "people_fts")
    }

    @Test func aSearchTableLeftBehindByPlainSQLNamesBoth() throws {
        let conn = try Self.connection()
        try conn.execute(script: "ALTER TABLE people RENAME COLUMN bio TO about")
        let mismatch = SearchTableError.contentMismatch(searchTable: "people_fts", table: "people", columns: ["bio"])
        #expect(throws: mismatch) { try conn.checkIntegrity(searchTable: "people_fts") }
        #expect(throws: mismatch) { try conn.rebuild(searchTable: "people_fts") }
        #expect(mismatch.description.contains("\"people_fts\""))
        #expect(mismatch.description.contains("\"people\""))
    }
}
