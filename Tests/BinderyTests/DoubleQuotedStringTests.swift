import Foundation
import NorthwindFixture
import Testing

@testable import Bindery

/// SQLite's legacy rule that reads a double-quoted name matching no column as a string is off on
/// every connection Bindery opens: a misspelt identifier is an error, never a string that matches.
@Suite struct DoubleQuotedStringTests {
    private struct Book: Record, Equatable {
        static let tableName = "books"
        var id: Int64?
        var title: String
        var author: String
    }

    private static let schema = "CREATE TABLE books(id INTEGER PRIMARY KEY, title TEXT NOT NULL, author TEXT NOT NULL)"

    private static func seed(_ conn: Connection) throws {
        try conn.execute(script: schema)
        try conn.insert(Book(id: nil, title: "Dune", author: "Herbert"))
        try conn.insert(Book(id: nil, title: "Emma", author: "Austen"))
    }

    /// The statements of the issue, each with the identifier `name` in it.
    private static func statements(_ name: String) -> [(String, SQL)] {
        [
            ("SELECT", "SELECT \(identifier: name) FROM books"),
            ("WHERE", "SELECT id FROM books WHERE \(identifier: name) = \("Dune")"),
            ("ORDER BY", "SELECT id FROM books ORDER BY \(identifier: name)"),
            ("UPDATE", "UPDATE books SET author = \("X") WHERE \(identifier: name) = \("nothing")"),
            ("CREATE INDEX", "CREATE INDEX books_by_\(raw: name) ON books(\(identifier: name))"),
        ]
    }

    private static func expectNoSuchColumn(_ label: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(label): a misspelt identifier did not throw")
        } catch let error as SQLiteError {
            #expect(error.code == .error, "\(label)")
            #expect(error.message == "no such column: titel", "\(label): \(error.message)")
        } catch {
            Issue.record("\(label): unexpected \(error)")
        }
    }

    private static func expectNoSuchColumn(_ label: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(label): a misspelt identifier did not throw")
        } catch let error as SQLiteError {
            #expect(error.message == "no such column: titel", "\(label): \(error.message)")
        } catch {
            Issue.record("\(label): unexpected \(error)")
        }
    }

    @Test func misspeltIdentifiersThrowThroughAConnection() throws {
        let conn = try Connection.inMemory()
        try Self.seed(conn)
        for (label, sql) in Self.statements("titel") {
            Self.expectNoSuchColumn(label) { try conn.execute(sql) }
        }
        Self.expectNoSuchColumn("fetchAll") { _ = try conn.fetchAll(String.self, sql: Self.statements("titel")[0].1) }
        Self.expectNoSuchColumn("where:") { _ = try conn.fetchAll(Book.self, where: "\(identifier: "titel") = \("x")") }
        // Spelt right, every one of them works.
        for (_, sql) in Self.statements("title") {
            try conn.execute(sql)
        }
        #expect(
            try conn.fetchAll(String.self, sql: "SELECT \(identifier: "title") FROM books ORDER BY id") == [
                "Dune", "Emma",
            ])
        #expect(try conn.count(Book.self, where: "\(identifier: "author") = \("Austen")") == 1)
    }

    @Test func misspeltIdentifiersThrowThroughADatabaseFile() async throws {
        try await ReliabilityTestSupport.withDirectory { directory in
            let db = try Database(path: directory.appendingPathComponent("books.sqlite").path)
            #expect(db.hasReaders)
            try await db.write { conn in try Self.seed(conn) }
            for (label, sql) in Self.statements("titel") {
                await Self.expectNoSuchColumn("write \(label)") { try await db.execute(sql) }
                await Self.expectNoSuchColumn("read \(label)") { _ = try await db.read { conn in try conn.rows(sql) } }
            }
            await Self.expectNoSuchColumn("db.fetchAll") {
                _ = try await db.fetchAll(Book.self, where: "\(identifier: "titel") = \("Dune")")
            }
            let titles = try await db.read { conn in
                try conn.fetchAll(String.self, sql: "SELECT \(identifier: "title") FROM books ORDER BY id")
            }
            #expect(titles == ["Dune", "Emma"])
            try await db.execute(Self.statements("title")[4].1)
            try await db.close()
        }
    }

    @Test func misspeltIdentifiersThrowInMemoryAndOnTheWriterOfADatabase() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in try Self.seed(conn) }
        for (label, sql) in Self.statements("titel") {
            await Self.expectNoSuchColumn(label) { try await db.execute(sql) }
        }
        #expect(try await db.fetchAll(Book.self, where: "\(identifier: "title") = \("Dune")").count == 1)
    }

    /// Every one of the 17 views of the Northwind fixture reads through a Bindery connection, with
    /// the same rows as under the legacy rule: none relies on it.
    @Test func northwindViewsAreQueryable() async throws {
        let path = try NorthwindFixture.databasePath()
        let conn = try Connection(path: path, options: Connection.Options(readOnly: true))
        let legacy = try Connection(
            path: path, options: Connection.Options(readOnly: true, acceptsDoubleQuotedStringLiterals: true))
        let views = try conn.fetchAll(
            String.self, sql: "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name")
        #expect(views.count == 17)
        var counts: [String: Int] = [:]
        for view in views {
            let sql: SQL = "SELECT * FROM \(identifier: view) ORDER BY 1, 2 LIMIT 50"
            #expect(try conn.rows(sql) == legacy.rows(sql), "\(view)")
            counts[view] = try legacy.fetchOne(Int.self, sql: "SELECT count(*) FROM \(identifier: view)")
        }
        // Some views select orders of 1997 by comparing text dates, and the fixture's dates hold none.
        #expect(counts.values.filter { $0 > 0 }.count == 12)
        let db = try Database(path: path, options: Database.Options(readOnly: true))
        for view in views {
            let count = try await db.read { conn in
                try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM \(identifier: view)")
            }
            #expect(count == counts[view], "\(view)")
        }
        try await db.close()
    }

    /// A file whose schema was written under the legacy rule: its tables (a DEFAULT, a CHECK and a
    /// generated column in double quotes) are parsed as they were; a view or trigger that relies on
    /// the rule throws an error that names it and what to do; the option opens it as before.
    @Test func aLegacySchemaOpensAndItsErrorsSayWhy() async throws {
        try await ReliabilityTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("legacy.sqlite").path
            let legacy = Connection.Options(acceptsDoubleQuotedStringLiterals: true)
            do {
                let conn = try Connection(path: path, options: legacy)
                try conn.execute(
                    script: """
                        CREATE TABLE items(name TEXT DEFAULT "unnamed", state TEXT CHECK (state <> "bad"),
                                           label TEXT GENERATED ALWAYS AS (name || "!"));
                        CREATE TABLE log(entry TEXT);
                        CREATE VIEW shown AS SELECT name, "visible" AS shown FROM items;
                        CREATE TRIGGER logged AFTER INSERT ON items BEGIN INSERT INTO log VALUES ("added"); END;
                        INSERT INTO items(state) VALUES ('new');
                        """)
                conn.close()
            }
            let conn = try Connection(path: path)
            // The tables were parsed with the schema: their double-quoted strings keep their meaning.
            let item = try conn.rows("SELECT name, state, label FROM items")
            #expect(
                try item.map { [try $0[0] as String, try $0[1] as String, try $0[2] as String] } == [
                    ["unnamed", "new", "unnamed!"]
                ])
            do {
                _ = try conn.rows("SELECT * FROM shown")
                Issue.record("the view relying on the legacy rule was read")
            } catch let error as SQLiteError {
                #expect(error.message.hasPrefix("no such column: visible (the view \"shown\" of the schema writes"))
                #expect(error.message.contains("acceptsDoubleQuotedStringLiterals"))
                #expect(error.message.contains("'visible' in single quotes"))
            }
            do {
                try conn.execute("INSERT INTO items(state) VALUES (\("ok"))")
                Issue.record("the trigger relying on the legacy rule ran")
            } catch let error as SQLiteError {
                #expect(error.message.hasPrefix("no such column: added (the trigger \"logged\" of the schema"))
            }
            // A misspelling of the caller's own gets no such explanation.
            do {
                _ = try conn.rows("SELECT \(identifier: "visible") FROM items")
                Issue.record("a misspelt identifier was read")
            } catch let error as SQLiteError {
                #expect(error.message == "no such column: visible")
            }
            conn.close()
            // With the option, the file reads as it did before.
            let lenient = try Connection(path: path, options: legacy)
            #expect(try lenient.fetchAll(String.self, sql: "SELECT shown FROM shown") == ["visible"])
            try lenient.execute("INSERT INTO items(state) VALUES (\("ok"))")
            #expect(try lenient.fetchAll(String.self, sql: "SELECT entry FROM log") == ["added", "added"])
            lenient.close()
            let db = try Database(path: path, options: Database.Options(acceptsDoubleQuotedStringLiterals: true))
            #expect(db.hasReaders)
            #expect(
                try await db.read { conn in try conn.fetchAll(String.self, sql: "SELECT shown FROM shown") } == [
                    "visible", "visible",
                ])
            try await db.close()
        }
    }
}
