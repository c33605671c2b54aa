import Foundation
import Testing

@testable import Bindery

/// Issue 40, part 3: `syncTable` refuses a primary-key change, with an error that says how to write the
/// migration, instead of leaving the table's key as it is without a word.
@Suite struct TableSyncKeyTests {
    struct Book: Record, Equatable {
        static let tableName = "books"
        static let primaryKey = ["isbn"]
        var id: Int64
        var isbn: String
        var title: String
    }

    struct Edition: Record, Equatable {
        static let tableName = "editions"
        static let primaryKey = ["number", "bookId"]
        var bookId: Int64
        var number: Int64
        var title: String
    }

    @Test func aChangedPrimaryKeyThrowsAndChangesNothing() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE books(id INTEGER PRIMARY KEY, isbn TEXT NOT NULL, title TEXT NOT NULL);
                INSERT INTO books VALUES (1, '978-0', 'Dune');
                """)
        let schema = try conn.rows("SELECT sql FROM sqlite_schema WHERE name = 'books'").map { try $0[0] as String }
        var migrator = Migrator()
        migrator.syncTable(for: Book.self)
        do {
            _ = try migrator.migrate(conn)
            Issue.record("the sync changed nothing and said nothing")
        } catch MigrationError.failed(let identifier, let underlying) {
            #expect(identifier == "sync table books")
            guard case MigrationError.primaryKeyChanged(let table, let database, let type) = underlying else {
                Issue.record("unexpected error: \(underlying)")
                return
            }
            #expect(table == "books" && database == ["id"] && type == ["isbn"])
            #expect("\(underlying)".contains("register a migration before the sync"))
        }
        #expect(
            try conn.rows("SELECT sql FROM sqlite_schema WHERE name = 'books'").map { try $0[0] as String } == schema)
        #expect(try conn.fetchAll(Book.self, sql: "SELECT * FROM books") == [Book(id: 1, isbn: "978-0", title: "Dune")])
    }

    @Test func theSameKeyInAnotherOrderOrNoDeclaredKeyIsNoChange() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE editions(bookId INTEGER NOT NULL, number INTEGER NOT NULL, title TEXT NOT NULL,
                    PRIMARY KEY (bookId, number));
                CREATE TABLE books(id INTEGER NOT NULL, isbn TEXT NOT NULL, title TEXT NOT NULL);
                """)
        var migrator = Migrator()
        migrator.syncTable(for: Edition.self)
        migrator.syncTable(for: Book.self)
        let applied = try migrator.migrate(conn)
        #expect(applied == [])
    }
}
