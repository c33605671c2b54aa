import Foundation
import Testing

@testable import Bindery

/// A table that follows its record type keeps every constraint a change of the type does not touch,
/// and the table builder keeps every reference a column is given.
@Suite struct TableSyncConstraintTests {
    private struct BookV1: Record, Equatable {
        static let tableName = "books"
        var id: Int64?
        var authorId: Int64
        var pages: Int
        var title: String
    }

    private struct BookV2: Record, Equatable {
        static let tableName = "books"
        var id: Int64?
        var authorId: Int64?
        var pages: Double
        var title: String?
    }

    /// `authors` and `books` with a foreign key, a check, a collation, a default and a uniqueness
    /// on the columns that `BookV2` changes, and a table constraint.
    private func libraryV1() -> Migrator {
        var migrator = Migrator()
        migrator.register("library") { conn in
            try conn.execute(
                script: """
                    CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT);
                    CREATE TABLE books (
                        id INTEGER PRIMARY KEY,
                        authorId INTEGER CONSTRAINT required NOT NULL ON CONFLICT ABORT
                            REFERENCES authors(id) ON DELETE CASCADE,
                        pages INTEGER NOT NULL CHECK (pages > 0) DEFAULT 1,
                        title TEXT NOT NULL COLLATE NOCASE UNIQUE CHECK (title IS NOT NULL),
                        CHECK (pages < 100000)
                    );
                    """)
        }
        return migrator
    }

    private func strings(_ conn: Connection, _ sql: SQL) throws -> [String] {
        try conn.rows(sql).map { try $0[0] as String }
    }

    private func columns(_ conn: Connection) throws -> [String] {
        try strings(
            conn, "SELECT name || ' ' || type || IIF(\"notnull\", ' NOT NULL', '') FROM pragma_table_info('books')")
    }

    private func foreignKeys(_ conn: Connection, _ table: String) throws -> [String] {
        try strings(
            conn,
            """
            SELECT "table" || ' ' || "from" || ' ' || on_delete FROM pragma_foreign_key_list(\(table))
            """)
    }

    @Test func aChangedTypeOrOptionalityKeepsTheColumnsOtherConstraints() throws {
        let conn = try Connection.inMemory()
        var v1 = libraryV1()
        v1.syncTable(for: BookV1.self)
        #expect(try v1.migrate(conn) == ["library"])
        try conn.execute(script: "INSERT INTO authors VALUES (1, 'Ann'); INSERT INTO books VALUES (1, 1, 10, 'Dune')")

        var v2 = libraryV1()
        v2.syncTable(for: BookV2.self)
        #expect(try v2.migrate(conn) == ["sync table books: changed authorId, changed pages, changed title"])
        #expect(
            try columns(conn) == ["id INTEGER", "authorId INTEGER", "pages REAL NOT NULL", "title TEXT"])
        // The foreign key, with its action.
        #expect(
            try foreignKeys(conn, "books") == ["authors authorId CASCADE"])
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO books VALUES (2, 9, 10, 'Emma')") }
        try conn.execute("INSERT INTO books VALUES (2, NULL, 10, 'Emma')")
        // The checks, of the column and of the table.
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO books VALUES (3, 1, -1.5, 'Persuasion')") }
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO books VALUES (3, 1, 100000, 'Persuasion')") }
        // The default, the collation and the uniqueness.
        try conn.execute("INSERT INTO books (id, authorId, title) VALUES (3, 1, 'Persuasion')")
        #expect(try conn.rows("SELECT pages FROM books WHERE id = 3").first.map { try $0[0] as Double } == 1)
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO books VALUES (4, 1, 10, 'DUNE')") }
        // A NULL title is now allowed: its own CHECK still says no.
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO books VALUES (4, 1, 10, NULL)") }
        // Deleting the author cascades.
        try conn.execute("DELETE FROM authors WHERE id = 1")
        #expect(try conn.rows("SELECT id FROM books").map { try $0[0] as Int } == [2])
        let sql = try #require(try strings(conn, "SELECT sql FROM sqlite_schema WHERE name = 'books'").first)
        #expect(sql.contains("CONSTRAINT required") == false)
        #expect(sql.contains("CHECK (pages > 0)"))
    }

    @Test func becomingRequiredAgainAddsNotNullBeforeTheOtherConstraints() throws {
        let conn = try Connection.inMemory()
        var v2 = libraryV1()
        v2.syncTable(for: BookV2.self)
        try v2.migrate(conn)
        var v1 = libraryV1()
        v1.syncTable(for: BookV1.self)
        #expect(try v1.migrate(conn) == ["sync table books: changed authorId, changed pages, changed title (2)"])
        #expect(
            try columns(conn) == [
                "id INTEGER", "authorId INTEGER NOT NULL", "pages INTEGER NOT NULL", "title TEXT NOT NULL",
            ])
        #expect(
            try foreignKeys(conn, "books") == ["authors authorId CASCADE"])
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO books VALUES (3, NULL, 10, 'Persuasion')") }
    }

    // MARK: The table builder (point 10)

    @Test func aColumnGivenTwoReferencesKeepsBoth() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "people") { t in t.column("id", .integer).primaryKey() }
        try conn.create(table: "members") { t in t.column("id", .integer).primaryKey() }
        try conn.create(table: "cards") { t in
            t.column("owner", .integer).references("people").references("members", onDelete: .cascade)
        }
        #expect(
            try foreignKeys(conn, "cards").sorted() == ["members owner CASCADE", "people owner NO ACTION"])
        try conn.execute(script: "INSERT INTO people VALUES (1); INSERT INTO members VALUES (1), (2)")
        try conn.execute("INSERT INTO cards VALUES (1)")
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO cards VALUES (2)") }
    }
}
