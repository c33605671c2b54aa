import Foundation
import Testing

@testable import Bindery

/// Migration identifiers are told apart by their bytes, as the ledger's `TEXT PRIMARY KEY` (BINARY
/// collation) tells them apart, never by Swift's canonical equivalence of `String`s: a migration
/// registered as "café" composed is not the one a database applied as "café" decomposed.
@Suite struct MigrationIdentifierExactnessTests {
    /// "é" as one code point (NFC) and as two (NFD): equal as Swift strings, two keys to SQLite.
    static let composed = "add caf\u{E9}"
    static let decomposed = "add cafe\u{301}"

    /// The ledger's identifiers as SQLite holds them, by their bytes (hex), in the order applied.
    private func ledger(_ conn: Connection) throws -> [String] {
        try conn.rows("SELECT hex(identifier) FROM bindery_migrations ORDER BY rowid", arguments: []).map {
            try $0[0] as String
        }
    }

    private func hex(_ text: String) -> String {
        text.utf8.map { String(format: "%02X", $0) }.joined()
    }

    @Test func twoSpellingsAreTwoMigrations() throws {
        let conn = try Connection.inMemory()
        var migrator = Migrator()
        migrator.register(Self.composed) { conn in try conn.execute(script: "CREATE TABLE a(x)") }
        migrator.register(Self.decomposed) { conn in try conn.execute(script: "CREATE TABLE b(x)") }
        let applied = try migrator.migrate(conn)
        #expect(applied.map(hex) == [hex(Self.composed), hex(Self.decomposed)])
        #expect(try ledger(conn) == [hex(Self.composed), hex(Self.decomposed)])
        let tables = try conn.rows(
            "SELECT name FROM sqlite_schema WHERE name IN ('a', 'b') ORDER BY name", arguments: [])
        #expect(tables.map(\.values) == [[.text("a")], [.text("b")]])
        #expect(try migrator.pendingIdentifiers(in: conn).isEmpty)
    }

    @Test func aMigrationAppliedUnderTheOtherSpellingIsNotThisOne() throws {
        let conn = try Connection.inMemory()
        var older = Migrator()
        older.register(Self.decomposed) { conn in try conn.execute(script: "CREATE TABLE a(x)") }
        try older.migrate(conn)
        #expect(try ledger(conn) == [hex(Self.decomposed)])

        var newer = Migrator()
        newer.register(Self.composed) { conn in try conn.execute(script: "CREATE TABLE b(x)") }
        // The database's "add cafe\u{301}" is not registered, and "add caf\u{E9}" has not run.
        #expect(try newer.pendingIdentifiers(in: conn).map(hex) == [hex(Self.composed)])
        do {
            try newer.migrate(conn)
            Issue.record("a database holding an unregistered migration was migrated")
        } catch MigrationError.unknownApplied(let unknown) {
            #expect(unknown.map(hex) == [hex(Self.decomposed)])
        }
        #expect(try ledger(conn) == [hex(Self.decomposed)])
        #expect(
            try conn.rows("SELECT count(*) FROM sqlite_schema WHERE name = 'b'", arguments: []).first?.values
                == [.integer(0)])
    }

    @Test func aTargetSpeltOtherwiseIsUnknown() throws {
        let conn = try Connection.inMemory()
        var migrator = Migrator()
        migrator.register(Self.composed) { conn in try conn.execute(script: "CREATE TABLE a(x)") }
        do {
            try migrator.migrate(conn, upTo: Self.decomposed)
            Issue.record("a target registered under no spelling of its bytes ran")
        } catch MigrationError.unknownTarget(let target) {
            #expect(hex(target) == hex(Self.decomposed))
        }
        #expect(
            try conn.rows("SELECT count(*) FROM sqlite_schema WHERE name = 'a'", arguments: []).first?.values
                == [.integer(0)])
    }
}
