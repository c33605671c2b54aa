import Foundation
import Testing

@testable import Bindery

@Suite struct MigratorTests {
    private struct Author: Record {
        static let tableName = "authors"
        var id: Int64?
        var name: String
    }

    /// Three migrations; each also counts its runs in `runs`.
    private func threeMigrations() -> Migrator {
        var migrator = Migrator()
        migrator.register("1 create runs and authors") { conn in
            try conn.execute(
                script: """
                    CREATE TABLE runs(identifier TEXT PRIMARY KEY, n INTEGER NOT NULL);
                    CREATE TABLE authors(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    """)
            try Self.countRun("1", conn)
        }
        migrator.register("2 create books") { conn in
            try conn.execute(
                script: """
                    CREATE TABLE books(id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                                       author_id INTEGER NOT NULL REFERENCES authors(id))
                    """)
            try Self.countRun("2", conn)
        }
        migrator.register("3 index titles") { conn in
            try conn.execute(script: "CREATE INDEX books_title ON books(title)")
            try Self.countRun("3", conn)
        }
        return migrator
    }

    private static func countRun(_ tag: String, _ conn: Connection) throws {
        try conn.execute("INSERT INTO runs(identifier, n) VALUES (\(tag), 1) ON CONFLICT DO UPDATE SET n = n + 1")
    }

    private func runCounts(_ conn: Connection) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try conn.rows("SELECT identifier, n FROM runs", arguments: []) {
            counts[try row[0]] = try row[1] as Int
        }
        return counts
    }

    private func tableNames(_ conn: Connection) throws -> [String] {
        try conn.fetchAll(
            String.self,
            sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name")
    }

    // MARK: Running once

    @Test func threeMigrationsRunOnceEachAndNothingRunsTheSecondTime() throws {
        let conn = try Connection.inMemory()
        let migrator = threeMigrations()
        #expect(try migrator.pendingIdentifiers(in: conn) == migrator.registeredIdentifiers)
        #expect(try migrator.hasCompletedMigrations(in: conn) == false)
        #expect(try migrator.appliedIdentifiers(in: conn) == [])

        let first = try migrator.migrate(conn)
        #expect(first == ["1 create runs and authors", "2 create books", "3 index titles"])
        #expect(try runCounts(conn) == ["1": 1, "2": 1, "3": 1])
        #expect(try migrator.appliedIdentifiers(in: conn) == first)
        #expect(try migrator.pendingIdentifiers(in: conn) == [])
        #expect(try migrator.hasCompletedMigrations(in: conn))

        let second = try migrator.migrate(conn)
        #expect(second == [])
        #expect(try runCounts(conn) == ["1": 1, "2": 1, "3": 1])
        #expect(!conn.isInTransaction)
    }

    @Test func aMigrationRegisteredLaterRunsAlone() throws {
        let conn = try Connection.inMemory()
        var migrator = threeMigrations()
        try migrator.migrate(conn)
        migrator.register("4 add year") { conn in
            try conn.execute(script: "ALTER TABLE books ADD COLUMN year INTEGER")
            try Self.countRun("4", conn)
        }
        #expect(try migrator.pendingIdentifiers(in: conn) == ["4 add year"])
        #expect(try migrator.migrate(conn) == ["4 add year"])
        #expect(try runCounts(conn) == ["1": 1, "2": 1, "3": 1, "4": 1])
    }

    @Test func migrationsRunInRegistrationOrder() throws {
        let conn = try Connection.inMemory()
        var migrator = Migrator()
        for name in ["zeta", "alpha", "mu"] {
            migrator.register(name) { conn in
                try conn.execute(script: "CREATE TABLE IF NOT EXISTS seen(name TEXT)")
                try conn.execute("INSERT INTO seen VALUES (\(name))")
            }
        }
        #expect(try migrator.migrate(conn) == ["zeta", "alpha", "mu"])
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM seen ORDER BY rowid") == ["zeta", "alpha", "mu"])
        #expect(try migrator.appliedIdentifiers(in: conn) == ["zeta", "alpha", "mu"])
    }

    @Test func bookkeepingTableHoldsIdentifiersAndTimes() throws {
        let conn = try Connection.inMemory()
        let before = Date().addingTimeInterval(-1)
        try threeMigrations().migrate(conn)
        let after = Date().addingTimeInterval(1)
        let columns = try conn.rows("PRAGMA table_info(bindery_migrations)", arguments: [])
        #expect(try columns.map { try $0["name"] as String } == ["identifier", "applied_at"])
        #expect(try columns.map { try $0["type"] as String } == ["TEXT", "TEXT"])
        #expect(try columns.map { try $0["notnull"] as Int } == [1, 1])
        #expect(try columns.map { try $0["pk"] as Int } == [1, 0])
        let rows = try conn.rows("SELECT identifier, applied_at FROM bindery_migrations ORDER BY rowid", arguments: [])
        #expect(rows.count == 3)
        for row in rows {
            let text: String = try row["applied_at"]
            #expect(text.count == 23, "\(text) is in SQLite's text format yyyy-MM-dd HH:mm:ss.SSS")
            let date = try #require(SQLiteDate.date(from: text))
            #expect(date >= before && date <= after)
            // SQLite's own date functions read it.
            let julian = try conn.fetchOne(Double.self, sql: "SELECT julianday(\(text))")
            #expect(julian != nil)
        }
    }

    @Test func readingAppliedIdentifiersCreatesNothing() throws {
        let conn = try Connection.inMemory()
        #expect(try threeMigrations().appliedIdentifiers(in: conn) == [])
        #expect(try tableNames(conn) == [])
    }

    // MARK: upTo

    @Test func upToStopsWhereAsked() throws {
        let conn = try Connection.inMemory()
        let migrator = threeMigrations()
        #expect(try migrator.migrate(conn, upTo: "2 create books") == ["1 create runs and authors", "2 create books"])
        #expect(try runCounts(conn) == ["1": 1, "2": 1])
        #expect(try migrator.pendingIdentifiers(in: conn) == ["3 index titles"])
        #expect(try !migrator.hasCompletedMigrations(in: conn))
        #expect(try migrator.migrate(conn, upTo: "2 create books") == [])
        #expect(try migrator.migrate(conn, upTo: "1 create runs and authors") == [])
        #expect(try migrator.migrate(conn) == ["3 index titles"])
        #expect(try runCounts(conn) == ["1": 1, "2": 1, "3": 1])
    }

    @Test func upToAnUnregisteredIdentifierThrowsBeforeAnythingRuns() throws {
        let conn = try Connection.inMemory()
        #expect {
            try threeMigrations().migrate(conn, upTo: "nope")
        } throws: { error in
            guard case MigrationError.unknownTarget("nope") = error else { return false }
            return true
        }
        #expect(try tableNames(conn) == [])
    }

    // MARK: Registration

    @Test func syncTableCreatesTheTableOfARecordType() throws {
        let conn = try Connection.inMemory()
        var migrator = Migrator()
        migrator.syncTable(for: Author.self)
        #expect(migrator.registeredIdentifiers == [])
        #expect(try migrator.migrate(conn) == ["sync table authors: created"])
        #expect(try migrator.migrate(conn) == [])
        let saved = try conn.insert(Author(id: nil, name: "Ana"))
        let id = try #require(saved.id)
        #expect(try conn.find(Author.self, id: id)?.name == "Ana")
    }

    @Test func aDuplicateIdentifierThrowsAtMigrateBeforeAnythingRuns() throws {
        let conn = try Connection.inMemory()
        var migrator = threeMigrations()
        migrator.register("2 create books") { conn in
            try conn.execute(script: "CREATE TABLE other(x)")
        }
        for attempt in [{ try migrator.migrate(conn) }, { try migrator.migrate(conn, upTo: "3 index titles") }] {
            #expect {
                _ = try attempt()
            } throws: { error in
                guard case MigrationError.duplicateIdentifier("2 create books") = error else { return false }
                return true
            }
        }
        #expect(throws: MigrationError.self) { try migrator.pendingIdentifiers(in: conn) }
        #expect(try tableNames(conn) == [])
    }

    @Test func migrateInsideATransactionIsRefused() throws {
        let conn = try Connection.inMemory()
        try conn.transaction { (conn: Connection) -> Void in
            #expect {
                try threeMigrations().migrate(conn)
            } throws: { error in
                (error as? SQLiteError)?.code == .misuse
            }
        }
        #expect(try tableNames(conn) == [])
    }

    @Test func errorDescriptionsNameTheMigration() {
        let violation = ForeignKeyViolation(table: "books", rowid: 3, parent: "authors")
        #expect(violation.description == "row 3 of \"books\" refers to a missing row of \"authors\"")
        let failed = MigrationError.failed(
            identifier: "4", underlying: MigrationError.foreignKeyViolations([violation]))
        #expect(failed.description.contains("\"4\""))
        #expect(failed.description.contains("row 3 of \"books\""))
        #expect(MigrationError.unknownApplied(["x", "y"]).description.contains("\"x\", \"y\""))
        #expect(MigrationError.duplicateIdentifier("a").description.contains("\"a\""))
        #expect(MigrationError.unknownTarget("b").description.contains("\"b\""))
    }

    // MARK: eraseDatabaseOnSchemaChange

    /// Runs `body` with the path of a database file in a fresh directory that is removed afterwards.
    private func withDatabaseFile(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-migrator-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.appendingPathComponent("db.sqlite").path)
    }

    /// A development migrator: items with `columns`, then an index, erasing on schema change.
    private func itemsMigrator(columns: String, withIndex: Bool = true) -> Migrator {
        var migrator = Migrator()
        migrator.eraseDatabaseOnSchemaChange = true
        migrator.register("1 items") { conn in
            try conn.execute(script: "CREATE TABLE items(id INTEGER PRIMARY KEY, \(columns))")
        }
        if withIndex {
            migrator.register("2 index") { conn in
                try conn.execute(script: "CREATE INDEX items_name ON items(name)")
            }
        }
        return migrator
    }

    private func itemNames(_ conn: Connection) throws -> [String] {
        try conn.fetchAll(String.self, sql: "SELECT name FROM items ORDER BY id")
    }

    @Test func eraseDatabaseOnSchemaChangeRecreatesOnlyWhenTheSchemaChanged() throws {
        try withDatabaseFile { path in
            do {
                let conn = try Connection(path: path)
                #expect(try itemsMigrator(columns: "name TEXT", withIndex: false).migrate(conn) == ["1 items"])
                try conn.execute(script: "INSERT INTO items(name) VALUES ('kept')")
            }
            do {
                // Same migrations: nothing erased, nothing run.
                let conn = try Connection(path: path)
                #expect(try itemsMigrator(columns: "name TEXT", withIndex: false).migrate(conn) == [])
                #expect(try itemNames(conn) == ["kept"])
            }
            do {
                // A new migration: it runs, and the data stays.
                let conn = try Connection(path: path)
                #expect(try itemsMigrator(columns: "name TEXT").migrate(conn) == ["2 index"])
                #expect(try itemNames(conn) == ["kept"])
            }
            do {
                // The first migration was edited: the database is erased and migrated again.
                let conn = try Connection(path: path)
                let migrator = itemsMigrator(columns: "name TEXT, price REAL")
                #expect(try migrator.migrate(conn) == ["1 items", "2 index"])
                #expect(try itemNames(conn) == [])
                let columns = try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info('items')")
                #expect(columns == ["id", "name", "price"])
                #expect(try migrator.appliedIdentifiers(in: conn) == ["1 items", "2 index"])
                #expect(try conn.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") == true)
                try conn.execute(script: "INSERT INTO items(name, price) VALUES ('new', 1.5)")
            }
            do {
                // Without the option an edited migration is not noticed.
                let conn = try Connection(path: path)
                var migrator = itemsMigrator(columns: "name TEXT")
                migrator.eraseDatabaseOnSchemaChange = false
                #expect(try migrator.migrate(conn) == [])
                #expect(try itemNames(conn) == ["new"])
            }
        }
    }

    @Test func eraseDatabaseOnSchemaChangeErasesEveryKindOfObject() throws {
        try withDatabaseFile { path in
            var migrator = Migrator()
            migrator.eraseDatabaseOnSchemaChange = true
            migrator.register("schema") { conn in
                try conn.execute(
                    script: """
                        CREATE TABLE parents(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE);
                        CREATE TABLE children(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parents(id));
                        CREATE INDEX children_parent ON children(parent_id);
                        CREATE VIEW named AS SELECT name FROM parents;
                        CREATE TRIGGER parents_insert AFTER INSERT ON parents BEGIN SELECT 1; END;
                        INSERT INTO parents(name) VALUES ('a');
                        INSERT INTO children(parent_id) VALUES (1);
                        """)
            }
            let conn = try Connection(path: path)
            try migrator.migrate(conn)
            try conn.execute(script: "INSERT INTO parents(name) VALUES ('b')")
            // Another program version whose migration of the same name made other tables.
            var other = Migrator()
            other.eraseDatabaseOnSchemaChange = true
            other.register("schema") { conn in
                try conn.execute(script: "CREATE TABLE parents(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT)")
            }
            #expect(try other.migrate(conn) == ["schema"])
            let objects = try conn.fetchAll(
                String.self, sql: "SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite%' ORDER BY name")
            #expect(objects == ["bindery_migrations", "parents"])
            #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM parents") == 0)
            // The AUTOINCREMENT counter started again.
            try conn.execute(script: "INSERT INTO parents(name) VALUES ('c')")
            #expect(try conn.fetchOne(Int.self, sql: "SELECT id FROM parents") == 1)
        }
    }

    @Test func eraseDatabaseOnSchemaChangeErasesADatabaseWithUnknownMigrations() throws {
        let conn = try Connection.inMemory()
        var newer = itemsMigrator(columns: "name TEXT")
        newer.register("3 newer") { conn in
            try conn.execute(script: "CREATE TABLE newer(x)")
        }
        try newer.migrate(conn)
        try conn.execute(script: "INSERT INTO items(name) VALUES ('gone')")
        #expect(try itemsMigrator(columns: "name TEXT").migrate(conn) == ["1 items", "2 index"])
        #expect(try itemNames(conn) == [])
        #expect(try tableNames(conn) == ["bindery_migrations", "items"])
    }

    @Test func eraseDatabaseOnSchemaChangeLeavesADatabaseWithoutMigrationsAlone() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE legacy(x); INSERT INTO legacy VALUES (1)")
        #expect(try itemsMigrator(columns: "name TEXT").migrate(conn) == ["1 items", "2 index"])
        #expect(try conn.fetchOne(Int.self, sql: "SELECT x FROM legacy") == 1)
    }

    @Test func eraseDatabaseOnSchemaChangeWithUpToComparesWhatWasApplied() throws {
        let conn = try Connection.inMemory()
        try itemsMigrator(columns: "name TEXT").migrate(conn)
        try conn.execute(script: "INSERT INTO items(name) VALUES ('kept')")
        // Migrating up to an earlier migration erases nothing: the applied ones still match.
        #expect(try itemsMigrator(columns: "name TEXT").migrate(conn, upTo: "1 items") == [])
        #expect(try itemNames(conn) == ["kept"])
        #expect(try itemsMigrator(columns: "name TEXT, size INTEGER").migrate(conn, upTo: "1 items") == ["1 items"])
        #expect(try itemNames(conn) == [])
    }

    @Test func eraseDatabaseOnSchemaChangeFollowsTheCodingOptions() throws {
        struct Gadget: Record {
            var id: Int64?
            var modelName: String
        }
        let conn = try Connection.inMemory()
        var options = CodingOptions()
        options.keyStrategy = .snakeCase
        conn.codingOptions = options
        var migrator = Migrator()
        migrator.eraseDatabaseOnSchemaChange = true
        migrator.register("create table gadgets") { conn in try conn.createTable(for: Gadget.self) }
        try migrator.migrate(conn)
        _ = try conn.insert(Gadget(id: nil, modelName: "x"))
        // The reference database uses the same key strategy, so the schemas match and the row stays.
        #expect(try migrator.migrate(conn) == [])
        #expect(try conn.count(Gadget.self) == 1)
    }
}
