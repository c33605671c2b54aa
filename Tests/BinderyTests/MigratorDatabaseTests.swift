import Foundation
import Testing

@testable import Bindery

@Suite struct MigratorDatabaseTests {
    private struct Student: Record {
        static let tableName = "students"
        var id: Int64?
        var name: String
        var enrolledAt: Date
    }

    private func migrator() -> Migrator {
        var migrator = Migrator()
        migrator.register("create table students") { conn in try conn.createTable(for: Student.self) }
        migrator.register("index names") { conn in
            try conn.execute(script: "CREATE INDEX students_name ON students(name)")
        }
        migrator.register("log table") { conn in
            try conn.execute(script: "CREATE TABLE log(message TEXT NOT NULL)")
        }
        return migrator
    }

    /// Runs `body` with the path of a database file in a fresh directory that is removed afterwards.
    private func withDatabaseFile(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-migrator-db-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("db.sqlite").path)
    }

    private func foreignKeysEnabled(_ db: Database) async throws -> Bool {
        try await db.writeWithoutTransaction { conn in
            try conn.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") ?? false
        }
    }

    @Test func migratesAnInMemoryDatabaseOnce() async throws {
        let db = try Database.inMemory()
        let migrator = migrator()
        #expect(try await migrator.appliedIdentifiers(in: db) == [])
        #expect(try await migrator.pendingIdentifiers(in: db) == ["create table students", "index names", "log table"])
        #expect(try await !migrator.hasCompletedMigrations(in: db))
        #expect(try await migrator.migrate(db) == ["create table students", "index names", "log table"])
        #expect(try await migrator.migrate(db) == [])
        #expect(try await migrator.hasCompletedMigrations(in: db))
        #expect(try await migrator.pendingIdentifiers(in: db) == [])
        let saved = try await db.insert(Student(id: nil, name: "Ana", enrolledAt: Date(timeIntervalSince1970: 0)))
        #expect(saved.id == 1)
    }

    @Test func migratesAFileDatabaseAndItsReadersSeeTheResult() async throws {
        try await withDatabaseFile { path in
            let db = try Database(path: path)
            let migrator = migrator()
            // The readers open the file read-only: reading the bookkeeping before it exists creates nothing.
            #expect(try await migrator.appliedIdentifiers(in: db) == [])
            #expect(try await migrator.migrate(db, upTo: "index names") == ["create table students", "index names"])
            #expect(try await migrator.appliedIdentifiers(in: db) == ["create table students", "index names"])
            #expect(try await migrator.pendingIdentifiers(in: db) == ["log table"])
            #expect(try await migrator.migrate(db) == ["log table"])
            #expect(try await migrator.hasCompletedMigrations(in: db))
            #expect(try await foreignKeysEnabled(db))
            try await db.close()

            let reopened = try Database(path: path)
            #expect(try await migrator.migrate(reopened) == [])
            try await reopened.close()
        }
    }

    @Test func aFailingMigrationThrowsAndTheDatabaseStaysUsable() async throws {
        let db = try Database.inMemory()
        var migrator = migrator()
        migrator.register("broken") { conn in
            try conn.execute(script: "INSERT INTO log(message) VALUES ('half'); INSERT INTO nowhere VALUES (1)")
        }
        await #expect {
            try await migrator.migrate(db)
        } throws: { error in
            guard case MigrationError.failed("broken", let underlying) = error else { return false }
            return underlying is SQLiteError
        }
        #expect(try await migrator.appliedIdentifiers(in: db) == ["create table students", "index names", "log table"])
        #expect(try await db.read { conn in try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM log") } == 0)
        #expect(try await foreignKeysEnabled(db))
        try await db.write { conn in
            try conn.execute(script: "INSERT INTO log(message) VALUES ('still usable')")
        }
    }

    @Test func aNewerDatabaseIsRefused() async throws {
        let db = try Database.inMemory()
        var newer = migrator()
        newer.register("from the future") { _ in }
        try await newer.migrate(db)
        await #expect {
            try await migrator().migrate(db)
        } throws: { error in
            guard case MigrationError.unknownApplied(let unknown) = error else { return false }
            return unknown == ["from the future"]
        }
    }

    @Test func twoDatabasesOnOneFileApplyEachMigrationOnce() async throws {
        try await withDatabaseFile { path in
            var migrator = Migrator()
            migrator.register("runs") { conn in
                try conn.execute(script: "CREATE TABLE runs(identifier TEXT NOT NULL)")
                try conn.execute("INSERT INTO runs VALUES (\("runs"))")
            }
            for index in 1...5 {
                migrator.register("rows \(index)") { conn in
                    try conn.execute(
                        script: """
                            CREATE TABLE t\(index)(x INTEGER);
                            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50000)
                            INSERT INTO t\(index) SELECT i FROM n;
                            """)
                    try conn.execute("INSERT INTO runs VALUES (\("rows \(index)"))")
                }
            }
            let shared = migrator
            let first = try Database(path: path)
            let second = try Database(path: path)
            async let appliedByFirst = shared.migrate(first)
            async let appliedBySecond = shared.migrate(second)
            let applied = try await appliedByFirst + appliedBySecond
            #expect(applied.sorted() == shared.registeredIdentifiers.sorted())
            let counts = try await first.read { conn in
                try conn.fetchAll(Int.self, sql: "SELECT count(*) FROM runs GROUP BY identifier")
            }
            #expect(counts == [1, 1, 1, 1, 1, 1])
            try await first.close()
            try await second.close()
        }
    }

    @Test func eraseDatabaseOnSchemaChangeUsesTheDatabaseCodingOptions() async throws {
        try await withDatabaseFile { path in
            var coding = CodingOptions()
            coding.keyStrategy = .snakeCase
            let options = Database.Options(coding: coding)
            var migrator = migrator()
            migrator.eraseDatabaseOnSchemaChange = true
            do {
                let db = try Database(path: path, options: options)
                try await migrator.migrate(db)
                _ = try await db.insert(Student(id: nil, name: "Ana", enrolledAt: Date()))
                try await db.close()
            }
            do {
                // Same migrations, same options: the schemas match and the row stays.
                let db = try Database(path: path, options: options)
                #expect(try await migrator.migrate(db) == [])
                #expect(try await db.count(Student.self) == 1)
                try await db.close()
            }
            do {
                // Other migrations: the database is erased and migrated again.
                var edited = Migrator()
                edited.eraseDatabaseOnSchemaChange = true
                edited.register("create table students") { conn in
                    try conn.execute(
                        script: "CREATE TABLE students(id INTEGER PRIMARY KEY, name TEXT, enrolled_at TEXT)")
                }
                let db = try Database(path: path, options: options)
                #expect(try await edited.migrate(db) == ["create table students"])
                #expect(try await db.count(Student.self) == 0)
                try await db.close()
            }
        }
    }
}
