import Foundation
import Testing

@testable import Bindery

@Suite struct MigrationSafetyTests {
    // MARK: Helpers

    /// Three migrations: authors, books referring to authors, and rows in both.
    private func threeMigrations() -> Migrator {
        var migrator = Migrator()
        migrator.register("1 authors") { conn in
            try conn.execute(script: "CREATE TABLE authors(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        }
        migrator.register("2 books") { conn in
            try conn.execute(
                script: """
                    CREATE TABLE books(id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                                       author_id INTEGER NOT NULL REFERENCES authors(id));
                    CREATE INDEX books_author ON books(author_id);
                    """)
        }
        migrator.register("3 rows") { conn in
            try conn.execute(
                script: """
                    INSERT INTO authors(id, name) VALUES (1, 'Ursula'), (2, 'Italo');
                    INSERT INTO books(id, title, author_id) VALUES (10, 'The Dispossessed', 1),
                        (11, 'Invisible Cities', 2), (12, 'The Lathe of Heaven', 1);
                    """)
        }
        return migrator
    }

    /// Everything in the database: `sqlite_schema`, then every row of every table, as text.
    private func dump(_ conn: Connection) throws -> [String] {
        let schema = try conn.rows("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name", arguments: [])
        var lines = schema.map { $0.values.map(\.description).joined(separator: " | ") }
        for row in schema where try row[0] as String == "table" {
            let table: String = try row[1]
            let rows = try conn.rows("SELECT * FROM \(SQL.quote(identifier: table))", arguments: [])
            lines += rows.map { table + ": " + $0.values.map(\.description).joined(separator: ", ") }.sorted()
        }
        return lines
    }

    private func foreignKeysEnabled(_ conn: Connection) throws -> Bool {
        try conn.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") ?? false
    }

    /// Runs the three migrations, then `fourth` and a fifth that must never run; checks that the
    /// database is exactly as after the third and returns the error.
    private func failingFourth(_ fourth: @escaping @Sendable (Connection) throws -> Void) throws -> MigrationError? {
        let conn = try Connection.inMemory()
        var migrator = threeMigrations()
        try migrator.migrate(conn)
        let before = try dump(conn)
        migrator.register("4 failing", fourth)
        migrator.register("5 never") { conn in
            try conn.execute(script: "CREATE TABLE never(x)")
        }
        var caught: MigrationError?
        do {
            try migrator.migrate(conn)
        } catch let error as MigrationError {
            caught = error
        }
        #expect(try dump(conn) == before)
        #expect(try migrator.appliedIdentifiers(in: conn) == ["1 authors", "2 books", "3 rows"])
        #expect(try migrator.pendingIdentifiers(in: conn) == ["4 failing", "5 never"])
        #expect(!conn.isInTransaction)
        #expect(try foreignKeysEnabled(conn))
        return caught
    }

    // MARK: A failing migration

    @Test func aFailingFourthMigrationWithBadSQLLeavesEverythingAsAfterTheThird() throws {
        let error = try failingFourth { conn in
            try conn.execute(
                script: """
                    CREATE TABLE publishers(id INTEGER PRIMARY KEY);
                    INSERT INTO authors(id, name) VALUES (3, 'Octavia');
                    UPDATE books SET title = upper(title);
                    DROP INDEX books_author;
                    """)
            try conn.execute(script: "SELEC nothing FROM nowhere")
        }
        guard case .failed(let identifier, let underlying) = error else {
            Issue.record("expected MigrationError.failed, got \(String(describing: error))")
            return
        }
        #expect(identifier == "4 failing")
        let sqliteError = try #require(underlying as? SQLiteError)
        #expect(sqliteError.code == .error)
        #expect(sqliteError.message.contains("syntax error"))
    }

    @Test func aForeignKeyViolationRollsTheMigrationBackAndNamesTheRow() throws {
        let error = try failingFourth { conn in
            try conn.execute(
                script: """
                    INSERT INTO authors(id, name) VALUES (3, 'Octavia');
                    INSERT INTO books(id, title, author_id) VALUES (13, 'Kindred', 3), (14, 'Orphan', 99);
                    """)
        }
        guard case .failed(let identifier, let underlying) = error,
            case .foreignKeyViolations(let violations) = underlying as? MigrationError
        else {
            Issue.record("expected a foreign-key failure, got \(String(describing: error))")
            return
        }
        #expect(identifier == "4 failing")
        #expect(violations == [ForeignKeyViolation(table: "books", rowid: 14, parent: "authors", foreignKeyIndex: 0)])
    }

    @Test func aViolationLeftByDeletingAParentIsCaught() throws {
        let error = try failingFourth { conn in
            try conn.execute(script: "DELETE FROM authors WHERE id = 1")
        }
        guard case .failed(_, let underlying) = error,
            case .foreignKeyViolations(let violations) = underlying as? MigrationError
        else {
            Issue.record("expected a foreign-key failure, got \(String(describing: error))")
            return
        }
        #expect(Set(violations.compactMap(\.rowid)) == [10, 12])
        #expect(violations.allSatisfy { $0.table == "books" && $0.parent == "authors" })
    }

    @Test func aThrowingBodyFailsWithItsOwnError() throws {
        struct Refused: Error {}
        let error = try failingFourth { conn in
            try conn.execute(script: "CREATE TABLE half(x)")
            throw Refused()
        }
        guard case .failed("4 failing", let underlying) = error else {
            Issue.record("expected MigrationError.failed, got \(String(describing: error))")
            return
        }
        #expect(underlying is Refused)
    }

    @Test func earlierMigrationsOfTheSameRunStayApplied() throws {
        let conn = try Connection.inMemory()
        var migrator = threeMigrations()
        migrator.register("4 failing") { conn in
            try conn.execute(script: "INSERT INTO nowhere VALUES (1)")
        }
        #expect(throws: MigrationError.self) { try migrator.migrate(conn) }
        #expect(try migrator.appliedIdentifiers(in: conn) == ["1 authors", "2 books", "3 rows"])
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM books") == 3)
    }

    // MARK: A newer database

    @Test func unknownAppliedIdentifiersAreRefusedBeforeAnyMigrationRuns() throws {
        let conn = try Connection.inMemory()
        var newer = threeMigrations()
        newer.register("4 from the future") { conn in
            try conn.execute(script: "CREATE TABLE future(x)")
        }
        try newer.migrate(conn, upTo: "1 authors")
        try newer.migrate(conn, upTo: "4 from the future")
        // An older program knows 1…3 and registers another migration of its own.
        var older = Migrator()
        older.register("1 authors") { _ in }
        older.register("2 books") { _ in }
        older.register("3 rows") { _ in }
        older.register("4 older") { conn in
            try conn.execute(script: "CREATE TABLE older(x)")
        }
        let before = try dump(conn)
        #expect {
            try older.migrate(conn)
        } throws: { error in
            guard case MigrationError.unknownApplied(let unknown) = error else { return false }
            return unknown == ["4 from the future"]
        }
        #expect(try dump(conn) == before)
        #expect(try foreignKeysEnabled(conn))
        #expect(try older.appliedIdentifiers(in: conn).contains("4 from the future"))
    }

    // MARK: Rebuilding a table

    @Test func aMigrationRebuildsATableThatForeignKeysPointAt() throws {
        let conn = try Connection.inMemory()
        var migrator = threeMigrations()
        migrator.register("4 rebuild authors") { conn in
            // The twelve steps of https://www.sqlite.org/lang_altertable.html, foreign keys being off.
            try conn.execute(
                script: """
                    CREATE TABLE new_authors(id INTEGER PRIMARY KEY, name TEXT NOT NULL,
                                             born INTEGER CHECK (born > 0));
                    INSERT INTO new_authors(id, name) SELECT id, name FROM authors;
                    DROP TABLE authors;
                    ALTER TABLE new_authors RENAME TO authors;
                    """)
        }
        #expect(try migrator.migrate(conn).count == 4)
        #expect(try foreignKeysEnabled(conn))
        #expect(try conn.rows("PRAGMA foreign_key_check", arguments: []).isEmpty)
        let columns = try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info('authors')")
        #expect(columns == ["id", "name", "born"])
        let booksSQL = try conn.fetchOne(String.self, sql: "SELECT sql FROM sqlite_schema WHERE name = 'books'")
        #expect(booksSQL?.contains("REFERENCES authors(id)") == true)
        #expect(try conn.fetchAll(Int.self, sql: "SELECT author_id FROM books ORDER BY id") == [1, 2, 1])
        // The foreign key still holds, now against the rebuilt table.
        #expect(throws: SQLiteError.self) {
            try conn.execute(script: "INSERT INTO books(id, title, author_id) VALUES (20, 'Nowhere', 42)")
        }
        #expect(throws: SQLiteError.self) {
            try conn.execute(script: "DELETE FROM authors WHERE id = 2")
        }
        try conn.execute(script: "INSERT INTO books(id, title, author_id) VALUES (20, 'Cosmicomics', 2)")
    }

    // MARK: Foreign keys setting

    @Test func foreignKeysAreOffInsideAMigrationAndRestoredAfterSuccessAndFailure() throws {
        let conn = try Connection.inMemory()
        #expect(try foreignKeysEnabled(conn))
        var migrator = Migrator()
        migrator.register("check inside") { conn in
            let enabled = try conn.fetchOne(Bool.self, sql: "PRAGMA foreign_keys")
            if enabled != false {
                throw SQLiteError(code: .error, message: "foreign keys were on inside the migration")
            }
        }
        try migrator.migrate(conn)
        #expect(try foreignKeysEnabled(conn))

        migrator.register("fails") { _ in throw CancellationError() }
        #expect(throws: MigrationError.self) { try migrator.migrate(conn) }
        #expect(try foreignKeysEnabled(conn))

        // Nothing pending: foreign keys are still set back.
        var done = Migrator()
        done.register("check inside") { _ in }
        try done.migrate(conn)
        #expect(try foreignKeysEnabled(conn))
    }

    @Test func foreignKeysStayOffWhenTheyWereOff() throws {
        let conn = try Connection.inMemory(options: Connection.Options(foreignKeys: false))
        try threeMigrations().migrate(conn)
        #expect(try !foreignKeysEnabled(conn))
        var failing = threeMigrations()
        failing.register("4 fails") { _ in throw CancellationError() }
        #expect(throws: MigrationError.self) { try failing.migrate(conn) }
        #expect(try !foreignKeysEnabled(conn))
    }

    @Test func aMigrationMayUseNestedTransactions() throws {
        let conn = try Connection.inMemory()
        var migrator = threeMigrations()
        migrator.register("4 savepoints") { conn in
            try conn.transaction { conn in
                try conn.execute(script: "INSERT INTO authors(id, name) VALUES (5, 'Jorge')")
            }
            struct Undo: Error {}
            _ = try? conn.transaction { conn in
                try conn.execute(script: "INSERT INTO authors(id, name) VALUES (6, 'Undone')")
                throw Undo()
            }
        }
        try migrator.migrate(conn)
        #expect(try conn.fetchAll(Int.self, sql: "SELECT id FROM authors ORDER BY id") == [1, 2, 5])
    }
}
