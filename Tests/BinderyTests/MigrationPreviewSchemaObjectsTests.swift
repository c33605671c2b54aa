import Foundation
import Testing

@testable import Bindery

/// `Migrator.preview` meeting table rebuilds over views, triggers (temporary ones included), indexes
/// (partial, on expressions) and collations: a preview leaves the schema, the rows and the
/// connection's settings as they were, and says what `migrate` then does; a rebuild that a collation
/// change makes impossible (two rows equal under NOCASE in a UNIQUE column) throws in the preview as in
/// `migrate`. The final state is compared with the same changes written by hand in plain SQL.
@Suite struct MigrationPreviewSchemaObjectsTests {
    static let schema = """
        CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, weight INTEGER NOT NULL DEFAULT 1);
        CREATE INDEX tag_lower ON tag(lower(name)) WHERE weight > 0;
        CREATE VIEW heavy AS SELECT name FROM tag WHERE weight > 1;
        CREATE TABLE audit(id INTEGER PRIMARY KEY, what TEXT NOT NULL);
        CREATE TRIGGER tag_ai AFTER INSERT ON tag BEGIN INSERT INTO audit(what) VALUES ('ins ' || new.name); END;
        INSERT INTO tag(name, weight) VALUES ('swift', 2), ('sqlite', 1), ('Rust', 3);
        """

    private static func state(_ conn: Connection) throws -> [String] {
        try conn.fetchAll(
            String.self,
            sql: """
                SELECT type || ' ' || name || ' ' || ifnull(sql, '') FROM sqlite_schema
                UNION ALL SELECT 'temp ' || name || ' ' || ifnull(sql, '') FROM sqlite_temp_schema
                UNION ALL SELECT 'row ' || id || ' ' || name || ' ' || weight FROM tag
                UNION ALL SELECT 'audit ' || id || ' ' || what FROM audit
                UNION ALL SELECT 'heavy ' || name FROM heavy
                ORDER BY 1
                """)
    }

    private static func migrator() -> Migrator {
        var migrator = Migrator()
        migrator.register("nocase names") { conn in
            try conn.alter(table: "tag") { t in
                t.change(column: "name", to: .text).collate("NOCASE")
                t.add(column: "note", .text)
            }
        }
        migrator.register("more") { conn in
            try conn.execute("INSERT INTO tag(name, weight) VALUES (\("Kotlin"), \(5))")
        }
        return migrator
    }

    @Test func aPreviewChangesNothingAndMigrateMatchesPlainSQL() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        try conn.execute(
            "CREATE TEMP TRIGGER tag_au AFTER UPDATE ON main.tag BEGIN INSERT INTO audit(what) VALUES ('upd'); END")
        let before = try Self.state(conn)
        let foreignKeys = try conn.fetchOne(Int.self, sql: "PRAGMA foreign_keys")
        let previews = try Self.migrator().preview(conn)
        #expect(previews.map(\.identifier) == ["nocase names", "more"])
        #expect(try Self.state(conn) == before)
        #expect(try conn.fetchOne(Int.self, sql: "PRAGMA foreign_keys") == foreignKeys)
        try Self.migrator().migrate(conn)

        let plain = try Connection.inMemory()
        try plain.execute(script: Self.schema)
        try plain.execute(
            "CREATE TEMP TRIGGER tag_au AFTER UPDATE ON main.tag BEGIN INSERT INTO audit(what) VALUES ('upd'); END")
        try plain.execute(
            script: """
                PRAGMA foreign_keys = OFF;
                PRAGMA legacy_alter_table = ON;
                BEGIN;
                CREATE TABLE tag_new(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    weight INTEGER NOT NULL DEFAULT 1, note TEXT);
                INSERT INTO tag_new(id, name, weight) SELECT id, name, weight FROM tag;
                DROP TABLE tag;
                ALTER TABLE tag_new RENAME TO tag;
                CREATE INDEX tag_lower ON tag(lower(name)) WHERE weight > 0;
                CREATE TRIGGER tag_ai AFTER INSERT ON tag BEGIN INSERT INTO audit(what) VALUES ('ins ' || new.name); END;
                CREATE TEMP TRIGGER tag_au AFTER UPDATE ON main.tag BEGIN INSERT INTO audit(what) VALUES ('upd'); END;
                INSERT INTO tag(name, weight) VALUES ('Kotlin', 5);
                COMMIT;
                """)
        // The rows, views and triggers' effects agree (the ledger and each table's SQL text aside).
        let rows = { (c: Connection) throws -> [String] in
            try Self.state(c).filter { !$0.hasPrefix("table ") && !$0.hasPrefix("index sqlite_autoindex") }
        }
        #expect(try rows(conn).filter { !$0.contains("bindery") } == rows(plain))
        // The new collation is in force: 'SWIFT' is 'swift', and the UNIQUE index says so.
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM tag WHERE name = 'SWIFT'") == 1)
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO tag(name) VALUES ('RUST')") }
    }

    @Test func aCollationThatMakesTwoRowsOneThrowsInThePreviewAsInMigrate() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        try conn.execute("INSERT INTO tag(name, weight) VALUES ('SWIFT', 4)")
        let before = try Self.state(conn)
        #expect(throws: MigrationError.self) { try Self.migrator().preview(conn) }
        #expect(try Self.state(conn) == before)
        #expect(throws: MigrationError.self) { try Self.migrator().migrate(conn) }
        #expect(try Self.state(conn) == before)
        #expect(try Self.migrator().pendingIdentifiers(in: conn) == ["nocase names", "more"])
    }
}
