import Foundation
import Testing

@testable import Bindery

@Suite struct MigrationPreviewTests {
    private func migrator() -> Migrator {
        var migrator = Migrator()
        migrator.register("v1 books") { conn in
            try conn.create(table: "books") { t in
                t.column("id", .integer).primaryKey()
                t.column("title", .text).notNull()
            }
        }
        migrator.register("v2 shelves") { conn in
            try conn.alter(table: "books") { t in t.add(column: "shelf", .text).defaults(to: "A") }
            try conn.create(index: "books_shelf", on: "books", columns: ["shelf"])
        }
        migrator.register("v3 title type") { conn in
            try conn.alter(table: "books") { t in t.change(column: "title", to: .blob).notNull() }
        }
        return migrator
    }

    @Test func listsThePendingMigrationsAndTheirSQLWithoutChangingTheDatabase() throws {
        let conn = try Connection.inMemory()
        var first = Migrator()
        first.register("v1 books") { conn in
            try conn.create(table: "books") { t in
                t.column("id", .integer).primaryKey()
                t.column("title", .text).notNull()
            }
        }
        try first.migrate(conn)
        try conn.execute("INSERT INTO books (title) VALUES ('Dune')")
        let schema = try conn.rows("SELECT coalesce(sql, name) FROM sqlite_schema ORDER BY name").map {
            try $0[0] as String
        }

        let previews = try migrator().preview(conn)
        #expect(previews.map(\.identifier) == ["v2 shelves", "v3 title type"])
        #expect(
            previews[0].statements == [
                "ALTER TABLE \"books\" ADD COLUMN \"shelf\" TEXT DEFAULT 'A'",
                "CREATE INDEX \"books_shelf\" ON \"books\" (\"shelf\")",
            ])
        let rebuild = previews[1].statements
        #expect(rebuild.first?.hasPrefix("CREATE TABLE \"bindery_new_books\"") == true)
        #expect(rebuild.contains("DROP TABLE \"books\""))
        #expect(rebuild.contains("ALTER TABLE \"bindery_new_books\" RENAME TO \"books\""))
        #expect(rebuild.last == "CREATE INDEX \"books_shelf\" ON \"books\" (\"shelf\")")
        #expect(previews[1].description.hasPrefix("-- v3 title type\nCREATE TABLE"))

        #expect(
            try conn.rows("SELECT coalesce(sql, name) FROM sqlite_schema ORDER BY name").map { try $0[0] as String }
                == schema)
        #expect(try migrator().pendingIdentifiers(in: conn) == ["v2 shelves", "v3 title type"])
        #expect(try conn.rows("PRAGMA foreign_keys").first.map { try $0[0] as Bool } == true)
        #expect(try migrator().migrate(conn) == ["v2 shelves", "v3 title type"])
        #expect(try migrator().preview(conn).isEmpty)
    }

    @Test func aFailingMigrationFailsThePreviewAndChangesNothing() async throws {
        let db = try Database.inMemory()
        var migrator = migrator()
        migrator.register("v4 broken") { conn in
            try conn.alter(table: "books") { t in t.drop(column: "missing") }
        }
        await #expect(throws: MigrationError.self) { try await migrator.preview(db) }
        #expect(try await db.read { try $0.rows("SELECT name FROM sqlite_schema") }.isEmpty)
        let previews = try await self.migrator().preview(db)
        #expect(previews.count == 3)
    }

    private struct Book: Record {
        static let tableName = "books"
        var id: Int64?
        var title: String
        var shelf: String?
    }

    @Test func listsWhatTheSyncOfATableWouldDo() throws {
        let conn = try Connection.inMemory()
        var migrator = Migrator()
        migrator.syncTable(for: Book.self)
        #expect(
            try migrator.preview(conn) == [
                MigrationPreview(
                    identifier: "sync table books: created",
                    statements: [
                        "CREATE TABLE \"books\" (\"id\" INTEGER PRIMARY KEY, \"title\" TEXT NOT NULL, \"shelf\" TEXT)"
                    ])
            ])
        #expect(try conn.rows("SELECT name FROM sqlite_schema").isEmpty)
        try migrator.migrate(conn)
        #expect(try migrator.preview(conn) == [])
    }
}
