import Foundation
import Testing

@testable import Bindery

/// Every public error type of the package reads the same through `localizedDescription` as through
/// its description, instead of Foundation's "The operation could not be completed".
@Suite struct LocalizedErrorTests {
    struct Student: Record {
        var id: Int64?
        var name: String
    }

    static func expectLocalized(
        _ error: any Error, equals description: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error.localizedDescription == description, sourceLocation: sourceLocation)
        #expect(!error.localizedDescription.contains("could not be completed"), sourceLocation: sourceLocation)
    }

    @Test func recordError() throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Student.self)
        let error = try #require(throws: RecordError.self) {
            try conn.update(Student(id: 3, name: "Ana"))
        }
        Self.expectLocalized(error, equals: error.description)
        #expect(error.localizedDescription == #"no row in "student" with id = 3"#)
    }

    @Test func schemaError() {
        let error = SchemaError.cannotAddColumn(table: "notes", column: "body", reason: "it is not optional")
        Self.expectLocalized(error, equals: error.description)
        Self.expectLocalized(
            SchemaError.unreadableType("Note", reason: "no keys"), equals: "cannot read the columns of Note: no keys")
    }

    @Test func sqliteErrorKeepsArgumentValuesOut() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE users (email TEXT UNIQUE)")
        try conn.execute("INSERT INTO users(email) VALUES (?)", arguments: ["ana@example.com"])
        let error = try #require(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO users(email) VALUES (?)", arguments: ["ana@example.com"])
        }
        #expect(error.debugDescription.contains("ana@example.com"))
        Self.expectLocalized(error, equals: error.description)
        #expect(error.localizedDescription.contains("UNIQUE constraint failed"))
        #expect(!error.localizedDescription.contains("ana@example.com"))
    }

    @Test func databaseError() async throws {
        let db = try Database.inMemory()
        try await db.close()
        let error = await #expect(throws: DatabaseError.self) { _ = try await db.count(Student.self) }
        let closed = try #require(error)
        Self.expectLocalized(closed, equals: closed.description)
        #expect(closed.localizedDescription.contains("the database is closed"))
    }

    @Test func migrationError() async throws {
        let db = try Database.inMemory()
        var migrator = Migrator()
        migrator.register("create") { conn in try conn.execute(script: "CREATE TABLE t (x)") }
        migrator.register("create") { conn in try conn.execute(script: "CREATE TABLE u (x)") }
        let error = await #expect(throws: MigrationError.self) { try await migrator.migrate(db) }
        let duplicate = try #require(error)
        Self.expectLocalized(duplicate, equals: duplicate.description)
        #expect(duplicate.localizedDescription == #"the migration "create" is registered more than once"#)
        let failed = MigrationError.failed(
            identifier: "seed", underlying: RecordError.compositeKey(table: "t", key: ["a", "b"]))
        Self.expectLocalized(failed, equals: failed.description)
    }
}
