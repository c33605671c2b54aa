import Foundation
import Testing

@testable import Bindery

@Suite struct TableBuilderTests {
    private func schemaSQL(_ conn: Connection, _ name: String) throws -> String {
        try conn.rows("SELECT sql FROM sqlite_schema WHERE name = \(name)").first.map { try $0[0] as String } ?? ""
    }

    @Test func createEmitsReadableSQLWithEveryConstraint() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "authors") { t in
            t.column("id", .integer).primaryKey(autoincrement: true)
            t.column("name", .text).notNull().unique().collate("NOCASE")
        }
        let sql = try conn.createTableSQL("books") { t in
            t.column("id", .integer).primaryKey()
            t.column("title", .text).notNull()
            t.column("authorID", .integer).notNull().references("authors", onDelete: .cascade, onUpdate: .restrict)
            t.column("price", .real).notNull().defaults(to: 0.5).check("price >= \(0)")
            t.column("status", .text).notNull().defaults(to: "it's new")
            t.column("createdAt", .text).defaults(sql: "CURRENT_TIMESTAMP")
            t.column("slug", .text).generated(as: "lower(title)")
            t.check("length(title) < \(200)", name: "short")
        }
        #expect(
            sql == """
                CREATE TABLE "books" (
                    "id" INTEGER PRIMARY KEY,
                    "title" TEXT NOT NULL,
                    "authorID" INTEGER NOT NULL REFERENCES "authors" ON DELETE CASCADE ON UPDATE RESTRICT,
                    "price" REAL NOT NULL CHECK (price >= 0) DEFAULT 0.5,
                    "status" TEXT NOT NULL DEFAULT 'it''s new',
                    "createdAt" TEXT DEFAULT CURRENT_TIMESTAMP,
                    "slug" TEXT GENERATED ALWAYS AS (lower(title)) VIRTUAL,
                    CONSTRAINT "short" CHECK (length(title) < 200)
                )
                """)
        try conn.execute(script: sql)
        try conn.execute("INSERT INTO authors (name) VALUES ('Ann')")
        try conn.execute("INSERT INTO books (title, authorID) VALUES ('Dune', 1)")
        let row = try #require(try conn.rows("SELECT price, status, slug, createdAt IS NOT NULL FROM books").first)
        #expect(try row[0] as Double == 0.5)
        #expect(try row[1] as String == "it's new")
        #expect(try row[2] as String == "dune")
        #expect(try row[3] as Bool)
        // The constraints hold.
        #expect(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO books (title, authorID, price) VALUES ('x', 1, -1)")
        }
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO authors (name) VALUES ('ANN')") }
        try conn.execute("DELETE FROM authors")
        #expect(try conn.rows("SELECT count(*) FROM books").first.map { try $0[0] as Int } == 0)
        #expect(
            try conn.rows("SELECT seq FROM sqlite_sequence WHERE name = 'authors'").first.map { try $0[0] as Int } == 1)
    }

    @Test func valuesBecomeExactLiteralsAndIdentifiersAreQuoted() throws {
        let conn = try Connection.inMemory()
        let hostile = "x'); DROP TABLE t; --"
        try conn.create(table: "odd \"name\"", options: [.strict]) { t in
            t.column("we\"ird", .text).notNull().defaults(to: hostile)
            t.column("b", .blob).defaults(to: Data([0, 1, 0xAB]))
            t.column("i", .integer).defaults(to: Int64.min)
            t.column("r", .real).defaults(to: 0.1 + 0.2)
            t.column("n", .integer).check("n <> \(hostile) AND n IS NOT '?'")
        }
        try conn.execute("INSERT INTO \"odd \"\"name\"\"\" DEFAULT VALUES")
        let row = try #require(try conn.rows("SELECT \"we\"\"ird\", b, i, r FROM \"odd \"\"name\"\"\"").first)
        #expect(try row[0] as String == hostile)
        #expect(try row[1] as Data == Data([0, 1, 0xAB]))
        #expect(try row[2] as Int64 == Int64.min)
        #expect(try row[3] as Double == 0.1 + 0.2)
        #expect(try schemaSQL(conn, "odd \"name\"").hasSuffix(") STRICT"))
        #expect(throws: SchemaChangeError.self) {
            try conn.create(table: "t") { t in t.column("a", "TEXT); DROP TABLE x; --") }
        }
        #expect(throws: SchemaChangeError.self) {
            try conn.create(table: "t") { t in t.column("a", .text).defaults(to: "a\u{0}b") }
        }
    }

    @Test func compositeKeysWithoutRowIDAndTableForeignKeys() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "courses", options: [.withoutRowID]) { t in
            t.column("code", .text).notNull()
            t.column("year", .integer).notNull()
            t.primaryKey(["code", "year"])
        }
        try conn.create(table: "enrollments") { t in
            t.column("code", .text)
            t.column("year", .integer)
            t.unique(["code", "year"])
            t.foreignKey(["code", "year"], references: "courses", onDelete: .setNull)
        }
        #expect(try schemaSQL(conn, "courses").hasSuffix(") WITHOUT ROWID"))
        try conn.execute(script: "INSERT INTO courses VALUES ('FR', 2020); INSERT INTO enrollments VALUES ('FR', 2020)")
        try conn.execute(script: "DELETE FROM courses")
        #expect(try conn.rows("SELECT code FROM enrollments").first.map { try $0[0] as String? } == .some(nil))
        #expect(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO enrollments VALUES ('DE', 2021)")
        }
    }

    @Test func indexesUniqueAndPartial() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "books") { t in
            t.column("id", .integer).primaryKey()
            t.column("isbn", .text)
            t.column("title", .text)
        }
        try conn.create(index: "books_title", on: "books", columns: ["title"])
        try conn.create(index: "books_isbn", on: "books", columns: ["isbn"], unique: true, where: "isbn <> \("none")")
        #expect(
            try schemaSQL(conn, "books_isbn")
                == "CREATE UNIQUE INDEX \"books_isbn\" ON \"books\" (\"isbn\") WHERE isbn <> 'none'")
        try conn.execute(script: "INSERT INTO books (isbn) VALUES ('none'), ('none'), ('1')")
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO books (isbn) VALUES ('1')") }
        try conn.drop(index: "books_title")
        #expect(try schemaSQL(conn, "books_title").isEmpty)
    }

    @Test func renameDropAndAlterWithAlterTable() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "books") { t in
            t.column("id", .integer).primaryKey()
            t.column("name", .text)
            t.column("legacy", .text)
        }
        try conn.execute("INSERT INTO books (name, legacy) VALUES ('Dune', 'x')")
        try conn.alter(table: "books") { t in
            t.add(column: "shelf", .text).notNull().defaults(to: "A")
            t.rename(column: "name", to: "title")
            t.drop(column: "legacy")
        }
        #expect(
            try schemaSQL(conn, "books")
                == "CREATE TABLE \"books\" (\n    \"id\" INTEGER PRIMARY KEY,\n    \"title\" TEXT,\n"
                + "    \"shelf\" TEXT NOT NULL DEFAULT 'A')")
        #expect(try conn.rows("SELECT title, shelf FROM books").first.map { try $0[1] as String } == "A")
        try conn.rename(table: "books", to: "volumes")
        try conn.drop(table: "volumes")
        #expect(try conn.rows("SELECT name FROM sqlite_schema").isEmpty)
        #expect(throws: SQLiteError.self) { try conn.drop(table: "volumes") }
        try conn.drop(table: "volumes", ifExists: true)
    }

    @Test func aFailingAlterationChangesNothing() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "books") { t in
            t.column("id", .integer).primaryKey()
            t.column("title", .text)
        }
        #expect(throws: SchemaChangeError.noSuchColumn(table: "books", column: "nope")) {
            try conn.alter(table: "books") { t in
                t.add(column: "shelf", .text)
                t.drop(column: "nope")
            }
        }
        #expect(
            try conn.rows("SELECT name FROM pragma_table_info('books')").map { try $0[0] as String } == ["id", "title"])
    }
}
