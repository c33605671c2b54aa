import Foundation
import Testing

@testable import Bindery

/// The newcomer scenario of schema evolution, each way of working: frozen migrations (the table
/// builder code printed once) and tables that follow their types (`syncTable`).
@Suite struct TableSyncTests {
    private struct BookV1: Record, Equatable {
        static let tableName = "books"
        var id: Int64?
        var title: String
    }

    private struct BookV2: Record, Equatable {
        static let tableName = "books"
        var id: Int64?
        var title: String
        var shelf: String?
    }

    private func columns(_ conn: Connection, _ table: String = "books") throws -> [String] {
        try conn.rows(
            "SELECT name || ' ' || type || IIF(\"notnull\", ' NOT NULL', '') FROM pragma_table_info(\(table))"
        )
        .map { try $0[0] as String }
    }

    // MARK: Frozen

    /// Version 1 of the app: the code `createTableCode(for: BookV1.self)` printed, pasted.
    private func frozenV1() -> Migrator {
        var migrator = Migrator()
        migrator.register("create books") { conn in
            try conn.create(table: "books") { t in
                t.column("id", .integer).primaryKey()
                t.column("title", .text).notNull()
            }
        }
        return migrator
    }

    /// Version 2: one migration more.
    private func frozenV2() -> Migrator {
        var migrator = frozenV1()
        migrator.register("add shelf") { conn in
            try conn.alter(table: "books") { t in t.add(column: "shelf", .text) }
        }
        return migrator
    }

    @Test func theCodeToPasteIsThePrintedTableBuilderCall() throws {
        let conn = try Connection.inMemory()
        #expect(
            try conn.createTableCode(for: BookV1.self) == """
                try conn.create(table: "books") { t in
                    t.column("id", .integer).primaryKey()
                    t.column("title", .text).notNull()
                }
                """)
        // The pasted code makes the table createTable(for:) makes.
        try frozenV1().migrate(conn)
        let other = try Connection.inMemory()
        try other.createTable(for: BookV1.self)
        #expect(try columns(conn) == columns(other))
    }

    @Test func frozenMigrationsOnAFreshInstallAndOnAnUpgrade() throws {
        let fresh = try Connection.inMemory()
        #expect(try frozenV2().migrate(fresh) == ["create books", "add shelf"])
        #expect(try columns(fresh) == ["id INTEGER", "title TEXT NOT NULL", "shelf TEXT"])
        let saved = try fresh.insert(BookV2(id: nil, title: "Dune", shelf: "A"))
        #expect(try fresh.find(BookV2.self, id: try #require(saved.id)) == saved)

        let upgraded = try Connection.inMemory()
        try frozenV1().migrate(upgraded)
        let old = try upgraded.insert(BookV1(id: nil, title: "Emma"))
        #expect(try frozenV2().migrate(upgraded) == ["add shelf"])
        #expect(try columns(upgraded) == columns(fresh))
        #expect(try upgraded.find(BookV2.self, id: try #require(old.id)) == BookV2(id: old.id, title: "Emma"))
    }

    // MARK: Following the type

    @Test func aSyncedTableOnAFreshInstallAndOnAnUpgrade() throws {
        var v1 = Migrator()
        v1.syncTable(for: BookV1.self)
        var v2 = Migrator()
        v2.syncTable(for: BookV2.self)

        let fresh = try Connection.inMemory()
        #expect(try v2.migrate(fresh) == ["sync table books: created"])
        #expect(try columns(fresh) == ["id INTEGER", "title TEXT NOT NULL", "shelf TEXT"])

        let upgraded = try Connection.inMemory()
        #expect(try v1.migrate(upgraded) == ["sync table books: created"])
        let old = try upgraded.insert(BookV1(id: nil, title: "Emma"))
        #expect(try v2.migrate(upgraded) == ["sync table books: added shelf"])
        #expect(try v2.migrate(upgraded) == [])
        #expect(try columns(upgraded) == columns(fresh))
        #expect(try upgraded.find(BookV2.self, id: try #require(old.id)) == BookV2(id: old.id, title: "Emma"))
        #expect(
            try v2.appliedIdentifiers(in: upgraded) == ["sync table books: created", "sync table books: added shelf"])
        // Going back to version 1 keeps the column, and adding it again is recorded once more.
        #expect(try v1.migrate(upgraded) == [])
        #expect(try columns(upgraded).count == 3)
    }

    @Test func syncRunsAfterTheRegisteredMigrations() throws {
        var migrator = Migrator()
        migrator.syncTable(for: BookV2.self)
        migrator.register("log") { conn in
            try conn.create(table: "log") { t in t.column("message", .text) }
            #expect(try conn.rows("SELECT 1 FROM sqlite_schema WHERE name = 'books'").isEmpty)
        }
        let conn = try Connection.inMemory()
        #expect(try migrator.migrate(conn) == ["log", "sync table books: created"])
        #expect(try migrator.migrate(conn, upTo: "log") == [])
    }

    private struct PriceV1: Record {
        static let tableName = "prices"
        var id: Int64?
        var amount: String
        var legacy: String?
    }

    private struct PriceV2: Record {
        static let tableName = "prices"
        var id: Int64?
        var amount: Double?
    }

    @Test func aChangedTypeOrNullabilityRebuildsAndColumnsDropOnlyWhenTold() throws {
        let conn = try Connection.inMemory()
        var v1 = Migrator()
        v1.syncTable(for: PriceV1.self)
        try v1.migrate(conn)
        try conn.create(index: "prices_amount", on: "prices", columns: ["amount"])
        _ = try conn.insert(PriceV1(id: nil, amount: "2.5", legacy: "x"))

        var v2 = Migrator()
        v2.syncTable(for: PriceV2.self)
        #expect(try v2.migrate(conn) == ["sync table prices: changed amount"])
        #expect(try columns(conn, "prices") == ["id INTEGER", "amount REAL", "legacy TEXT"])
        #expect(
            try conn.rows("SELECT amount, typeof(amount), legacy FROM prices").first.map { try $0[0] as Double } == 2.5)
        #expect(
            try conn.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql NOT NULL").map {
                try $0[0] as String
            }
                == ["prices_amount"])

        var dropping = Migrator()
        dropping.syncTable(for: PriceV2.self, droppingColumns: true)
        #expect(try dropping.migrate(conn) == ["sync table prices: dropped legacy"])
        #expect(try columns(conn, "prices") == ["id INTEGER", "amount REAL"])
    }

    private struct BookV3: Record {
        static let tableName = "books"
        var id: Int64?
        var title: String
        var isbn: String
    }

    @Test func aColumnTheRowsCannotFillFailsTheSyncAndChangesNothing() throws {
        let conn = try Connection.inMemory()
        var v1 = Migrator()
        v1.syncTable(for: BookV1.self)
        try v1.migrate(conn)
        _ = try conn.insert(BookV1(id: nil, title: "Emma"))
        var v3 = Migrator()
        v3.syncTable(for: BookV3.self)
        #expect {
            try v3.migrate(conn)
        } throws: { error in
            guard case MigrationError.failed("sync table books", let underlying) = error,
                case SchemaChangeError.rowsBreakConstraints("books", let rows) = underlying
            else { return false }
            return rows.map(\.key) == ["rowid = 1"]
        }
        #expect(try columns(conn) == ["id INTEGER", "title TEXT NOT NULL"])
        #expect(try v1.appliedIdentifiers(in: conn) == ["sync table books: created"])
    }

    @Test func eraseOnSchemaChangeLeavesSyncedTablesToTheSync() throws {
        let conn = try Connection.inMemory()
        var v1 = Migrator()
        v1.eraseDatabaseOnSchemaChange = true
        v1.register("log") { conn in try conn.create(table: "log") { t in t.column("message", .text) } }
        v1.syncTable(for: BookV1.self)
        try v1.migrate(conn)
        _ = try conn.insert(BookV1(id: nil, title: "Emma"))
        var v2 = Migrator()
        v2.eraseDatabaseOnSchemaChange = true
        v2.register("log") { conn in try conn.create(table: "log") { t in t.column("message", .text) } }
        v2.syncTable(for: BookV2.self)
        #expect(try v2.migrate(conn) == ["sync table books: added shelf"])
        #expect(try conn.count(BookV2.self) == 1)
    }
}
