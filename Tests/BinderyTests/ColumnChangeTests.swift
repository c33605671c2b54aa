import Foundation
import Testing

@testable import Bindery

/// `change(column:to:)` keeps what it does not name; `replace(column:with:)` gives a whole new
/// definition; the explicit forms drop or replace one part each.
@Suite struct ColumnChangeTests {
    private func columnSQL(_ conn: Connection, _ table: String, _ column: String) throws -> String {
        let sql = try conn.rows("SELECT sql FROM sqlite_schema WHERE name = \(table)").first.map { try $0[0] as String }
        let statement = try CreateTableStatement(sql: sql ?? "", table: table)
        return statement.columns.first { $0.name == column }?.definition ?? "(none)"
    }

    private func library() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.create(table: "authors") { t in
            t.column("id", .integer).primaryKey()
        }
        try conn.create(table: "books") { t in
            t.column("id", .integer).primaryKey()
            t.column("title", .text).notNull().collate("NOCASE")
            t.column("pages", .integer).notNull().defaults(to: 10).check("pages > 0")
            t.column("authorID", .integer).references("authors", onDelete: .cascade)
            t.column("slug", .text).generated(as: "lower(title) || '-' || pages")
        }
        try conn.execute(
            script:
                "INSERT INTO authors VALUES (1); INSERT INTO books (id, title, pages, authorID) VALUES (1, 'Emma', 200, 1)"
        )
        return conn
    }

    @Test func aTypeChangeKeepsEveryOtherConstraintAndTheGeneratedColumnThatUsesIt() throws {
        let conn = try library()
        try conn.alter(table: "books") { t in
            t.change(column: "pages", to: .real)
            t.change(column: "title", to: .text)
            t.change(column: "authorID", to: .integer)
        }
        #expect(try columnSQL(conn, "books", "pages") == "REAL NOT NULL CHECK (pages > 0) DEFAULT 10")
        #expect(try columnSQL(conn, "books", "title") == "TEXT NOT NULL COLLATE \"NOCASE\"")
        #expect(try columnSQL(conn, "books", "authorID") == "INTEGER REFERENCES \"authors\" ON DELETE CASCADE")
        // Each still holds.
        try conn.execute("INSERT INTO books (id, title) VALUES (2, 'Persuasion')")
        #expect(try conn.rows("SELECT pages FROM books WHERE id = 2").first.map { try $0[0] as Double } == 10)
        #expect(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO books (id, title, pages) VALUES (3, NULL, 5)")
        }
        #expect(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO books (id, title, pages) VALUES (3, 'x', 0)")
        }
        #expect(try conn.rows("SELECT count(*) FROM books WHERE title = 'EMMA'").first.map { try $0[0] as Int } == 1)
        #expect(
            try conn.rows("SELECT \"table\", on_delete FROM pragma_foreign_key_list('books')").map {
                [try $0[0] as String, try $0[1] as String]
            } == [["authors", "CASCADE"]])
        #expect(try conn.rows("SELECT slug FROM books WHERE id = 1").first.map { try $0[0] as String } == "emma-200.0")
        try conn.execute("UPDATE books SET pages = 250 WHERE id = 1")
        #expect(try conn.rows("SELECT slug FROM books WHERE id = 1").first.map { try $0[0] as String } == "emma-250.0")
    }

    @Test func withoutATypeTheTypeStaysAndTheExplicitFormsReplaceOrDrop() throws {
        let conn = try library()
        try conn.alter(table: "books") { t in
            t.change(column: "pages").defaults(to: 1).dropChecks().check("pages < \(5000)")
            t.change(column: "title").collate("RTRIM")
            t.change(column: "authorID").dropReferences().notNull(onConflict: .fail).defaults(to: 1)
        }
        #expect(try columnSQL(conn, "books", "pages") == "INTEGER NOT NULL DEFAULT 1 CHECK (pages < 5000)")
        #expect(try columnSQL(conn, "books", "title") == "TEXT NOT NULL COLLATE \"RTRIM\"")
        #expect(try columnSQL(conn, "books", "authorID") == "INTEGER NOT NULL ON CONFLICT FAIL DEFAULT 1")
        try conn.alter(table: "books") { t in
            t.change(column: "pages").dropNotNull().dropDefault().dropChecks()
            t.change(column: "title").dropCollation().dropNotNull()
        }
        #expect(try columnSQL(conn, "books", "pages") == "INTEGER")
        #expect(try columnSQL(conn, "books", "title") == "TEXT")
        #expect(try conn.rows("SELECT title FROM books").map { try $0[0] as String } == ["Emma"])
    }

    @Test func restatingAConstraintAddsItOnceAndReplaceForgetsTheRest() throws {
        let conn = try library()
        // A migration written when change(column:) replaced the definition repeats what it keeps.
        try conn.alter(table: "books") { t in
            t.change(column: "pages", to: .integer).notNull().check("pages > 0")
            t.change(column: "authorID", to: .integer).references("authors", onDelete: .cascade)
        }
        #expect(try columnSQL(conn, "books", "pages") == "INTEGER NOT NULL CHECK (pages > 0) DEFAULT 10")
        #expect(
            try conn.rows("SELECT count(*) FROM pragma_foreign_key_list('books')").first.map { try $0[0] as Int } == 1)
        try conn.alter(table: "books") { t in
            t.replace(column: "pages", with: .real)
            t.replace(column: "title").notNull()
        }
        #expect(try columnSQL(conn, "books", "pages") == "REAL")
        #expect(try columnSQL(conn, "books", "title") == "NOT NULL")
    }

    @Test func aValueTheKeptConstraintsRefuseFailsTheChangeAndChangesNothing() throws {
        let conn = try library()
        try conn.execute("INSERT INTO books (id, title, pages) VALUES (2, 'Nine', 9)")
        let before = try columnSQL(conn, "books", "pages")
        #expect(throws: SchemaChangeError.self) {
            try conn.alter(table: "books") { t in t.change(column: "pages", to: .real).check("pages > 100") }
        }
        #expect(try columnSQL(conn, "books", "pages") == before)
        #expect(try conn.rows("SELECT count(*) FROM books").first.map { try $0[0] as Int } == 2)
    }

    @Test func theClausesOfAWrittenDefinitionAreToldApart() {
        let clauses = ColumnClauses(
            definition:
                "VARCHAR (20) CONSTRAINT nn NOT NULL ON CONFLICT REPLACE DEFAULT NULL "
                + "REFERENCES a (id) ON DELETE SET NULL ON UPDATE SET DEFAULT NOT DEFERRABLE INITIALLY DEFERRED "
                + "CHECK (x IN (1, 2)) COLLATE nocase UNIQUE AS (1 + 2) STORED")
        #expect(clauses.type == "VARCHAR (20)")
        #expect(
            clauses.clauses.map(\.kind) == [
                .notNull, .defaultValue, .references, .check, .collate, .unique, .generated,
            ])
        #expect(clauses.clauses[0].text == "CONSTRAINT nn NOT NULL ON CONFLICT REPLACE")
        #expect(
            clauses.clauses[2].text
                == "REFERENCES a (id) ON DELETE SET NULL ON UPDATE SET DEFAULT NOT DEFERRABLE INITIALLY DEFERRED")
        let plain = ColumnClauses(definition: "INTEGER PRIMARY KEY DESC AUTOINCREMENT NULL GENERATED ALWAYS AS (2)")
        #expect(plain.clauses.map(\.kind) == [.primaryKey, .null, .generated])
        #expect(ColumnClauses(definition: "").definition == "")
    }

    @Test func notNullGoesWithItsConflictClauseAndABareNullGoesWhenNotNullComes() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script:
                "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT CONSTRAINT named NOT NULL ON CONFLICT IGNORE, b TEXT NULL)"
        )
        try conn.alter(table: "t") { t in
            t.change(column: "a").dropNotNull()
            t.change(column: "b").notNull(onConflict: .replace).defaults(to: "none")
        }
        #expect(try columnSQL(conn, "t", "a") == "TEXT")
        #expect(try columnSQL(conn, "t", "b") == "TEXT NOT NULL ON CONFLICT REPLACE DEFAULT 'none'")
        try conn.execute("INSERT INTO t (id, a, b) VALUES (1, NULL, NULL)")
        #expect(try conn.rows("SELECT b FROM t").first.map { try $0[0] as String } == "none")
    }

    @Test func thePreviewShowsTheDefinitionAsKept() throws {
        let conn = try library()
        var migrator = Migrator()
        migrator.register("pages become real") { conn in
            try conn.alter(table: "books") { t in t.change(column: "pages", to: .real) }
        }
        let previews = try migrator.preview(conn)
        #expect(previews.count == 1)
        #expect(
            previews[0].statements.contains {
                $0.hasPrefix("CREATE TABLE") && $0.contains("\"pages\" REAL NOT NULL CHECK (pages > 0) DEFAULT 10")
            })
        #expect(try columnSQL(conn, "books", "pages") == "INTEGER NOT NULL CHECK (pages > 0) DEFAULT 10")
    }

    @Test func aChangeKeepsASearchTableInStepAndAKeyOfAWithoutRowIDTable() throws {
        let conn = try Connection.inMemory(options: Connection.Options(schemaTrust: .trustedSchema))
        try conn.execute(script: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL DEFAULT '')")
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["body"])
        try conn.execute("INSERT INTO notes (id, body) VALUES (1, 'apples and pears')")
        try conn.alter(table: "notes") { t in t.change(column: "body", to: .text).check("length(body) < \(1000)") }
        #expect(try columnSQL(conn, "notes", "body") == "TEXT NOT NULL DEFAULT '' CHECK (length(body) < 1000)")
        try conn.execute("INSERT INTO notes (id, body) VALUES (2, 'pears only')")
        #expect(
            try conn.fetchAll(Int.self, sql: "SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'pears' ORDER BY rowid")
                == [1, 2])
        try conn.checkIntegrity(searchTable: "notes_fts")

        try conn.execute(
            script: """
                CREATE TABLE rates (code TEXT NOT NULL, year INTEGER CONSTRAINT sane CHECK (year > 1900),
                    rate ANY, PRIMARY KEY (code, year)) WITHOUT ROWID, STRICT;
                INSERT INTO rates VALUES ('FR', 2020, 1.5);
                """)
        try conn.alter(table: "rates") { t in
            t.change(column: "year", to: .integer)
            t.change(column: "rate", to: .real).notNull()
        }
        #expect(try columnSQL(conn, "rates", "year") == "INTEGER CONSTRAINT sane CHECK (year > 1900)")
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO rates VALUES ('DE', 2020, NULL)") }
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO rates VALUES ('FR', 1800, 2.0)") }
        try conn.alter(table: "rates") { t in t.change(column: "year").dropChecks() }
        #expect(try columnSQL(conn, "rates", "year") == "INTEGER")
        try conn.execute("INSERT INTO rates VALUES ('FR', 1800, 2.0)")
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM rates") == 2)
    }

    @Test func aTableThatFollowsItsTypeRetypesKeepingTheRest() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script:
                "CREATE TABLE t (id INTEGER PRIMARY KEY, b INTEGER NULL CHECK (b > 0), c TEXT NOT NULL ON CONFLICT IGNORE)"
        )
        let alteration = TableAlteration(name: "t")
        alteration.retype(column: "b", to: .text, notNull: true)
        alteration.retype(column: "c", to: .blob, notNull: true)
        try conn.alter(alteration)
        #expect(try columnSQL(conn, "t", "b") == "TEXT NOT NULL CHECK (b > 0)")
        #expect(try columnSQL(conn, "t", "c") == "BLOB NOT NULL ON CONFLICT IGNORE")
        let back = TableAlteration(name: "t")
        back.retype(column: "b", to: nil, notNull: false)
        try conn.alter(back)
        #expect(try columnSQL(conn, "t", "b") == "CHECK (b > 0)")
    }

    @Test func aLineCommentInADefinitionSwallowsNothing() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: "CREATE TABLE t (id INTEGER PRIMARY KEY, pages INTEGER NOT NULL -- must have\n DEFAULT 7 -- seven\n"
                + " CHECK (pages > 0) -- positive\n, n INTEGER NOT NULL -- count\n DEFAULT 0)")
        try conn.alter(table: "t") { t in
            t.change(column: "pages", to: .real)
            t.change(column: "n", to: .real)
        }
        #expect(try columnSQL(conn, "t", "pages") == "REAL NOT NULL DEFAULT 7 CHECK (pages > 0)")
        #expect(try columnSQL(conn, "t", "n") == "REAL NOT NULL DEFAULT 0")
        try conn.execute("INSERT INTO t (id) VALUES (1)")
        #expect(try conn.fetchOne(Double.self, sql: "SELECT pages FROM t") == 7)
    }

    @Test func aChangeAfterARenameNamesTheColumnByItsNewName() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER)")
        try conn.alter(table: "t") { t in
            t.change(column: "x").notNull(onConflict: .replace)
            t.rename(column: "x", to: "w")
            t.change(column: "w").defaults(to: 5)
        }
        #expect(try columnSQL(conn, "t", "w") == "INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 5")
    }

    @Test func dropsApplyToWhatCameBeforeThemInTheChange() throws {
        let conn = try library()
        try conn.alter(table: "books") { t in
            t.change(column: "pages").check("pages < \(100)").dropChecks().check("pages < \(9000)")
        }
        #expect(try columnSQL(conn, "books", "pages") == "INTEGER NOT NULL DEFAULT 10 CHECK (pages < 9000)")
    }

    @Test func schemaSQLHoldsOneStatement() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE users (id INTEGER PRIMARY KEY); CREATE TABLE t (id INTEGER PRIMARY KEY)")
        #expect(throws: SQLiteError.self) {
            try conn.create(table: "x") { t in t.column(sql: "a INT); DROP TABLE users; CREATE TABLE y(b") }
        }
        #expect(throws: SQLiteError.self) {
            try conn.alter(table: "t") { t in t.add(columnSQL: "a INT; DROP TABLE users") }
        }
        #expect(throws: SQLiteError.self) {
            try conn.alter(table: "t") { t in t.add(column: "c", .integer).check("1); DROP TABLE users; --") }
        }
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM sqlite_schema WHERE name = 'users'") == 1)
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info('t')") == ["id"])
    }
}
