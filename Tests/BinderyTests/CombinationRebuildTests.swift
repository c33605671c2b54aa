import Foundation
import Testing

@testable import Bindery

/// Table rebuilds (`alter(table:)` with `change(column:to:)`, `replace(column:with:)`, constraints
/// with `ON CONFLICT` clauses) meeting the rows, views, triggers, indexes and search tables already
/// there: no row lost or changed without an error, nothing that depends on the table lost.
@Suite struct CombinationRebuildTests {
    private func count(_ conn: Connection, _ sql: SQL) throws -> Int {
        try conn.rows(sql).first.map { try $0[0] as Int } ?? -1
    }

    private func people() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, age TEXT);
                INSERT INTO people VALUES (1, 'a@x', '30'), (2, 'a@x', '41'), (3, NULL, '7');
                """)
        return conn
    }

    @Test func aUniqueColumnThatIgnoresConflictsRefusesDuplicateRowsInsteadOfDroppingThem() throws {
        let conn = try people()
        #expect(throws: SchemaChangeError.self) {
            try conn.alter(table: "people") { t in
                t.change(column: "email").unique(onConflict: .ignore)
            }
        }
        #expect(try count(conn, "SELECT count(*) FROM people") == 3)
        #expect(try count(conn, "SELECT count(*) FROM people WHERE email = 'a@x'") == 2)
    }

    @Test func aUniqueColumnThatReplacesOnConflictRefusesDuplicateRowsInsteadOfDeletingThem() throws {
        let conn = try people()
        #expect(throws: SchemaChangeError.self) {
            try conn.alter(table: "people") { t in
                t.change(column: "email").unique(onConflict: .replace)
            }
        }
        #expect(try count(conn, "SELECT count(*) FROM people") == 3)
    }

    @Test func aTableUniqueConstraintThatIgnoresConflictsRefusesDuplicateRows() throws {
        let conn = try people()
        #expect(throws: SchemaChangeError.self) {
            try conn.alter(table: "people") { t in
                t.unique(["email"], name: "one_email", onConflict: .ignore)
            }
        }
        #expect(try count(conn, "SELECT count(*) FROM people") == 3)
    }

    @Test func aNotNullColumnThatIgnoresConflictsRefusesNullRowsInsteadOfDroppingThem() throws {
        let conn = try people()
        do {
            try conn.alter(table: "people") { t in
                t.change(column: "email").notNull(onConflict: .ignore)
            }
            Issue.record("the NULL email was dropped without an error")
        } catch SchemaChangeError.rowsBreakConstraints(let table, let rows) {
            #expect(table == "people")
            #expect(rows.map(\.key) == ["rowid = 3"])
        }
        #expect(try count(conn, "SELECT count(*) FROM people") == 3)
    }

    @Test func aPrimaryKeyThatReplacesOnConflictRefusesKeysThatBecomeEqual() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE codes(code TEXT PRIMARY KEY ON CONFLICT REPLACE, label TEXT NOT NULL);
                INSERT INTO codes VALUES ('1', 'one'), ('01', 'zero one'), ('2', 'two');
                """)
        // As INTEGER, '1' and '01' are the same key.
        #expect(throws: SchemaChangeError.self) {
            try conn.alter(table: "codes") { t in
                t.change(column: "code", to: .integer)
            }
        }
        #expect(try count(conn, "SELECT count(*) FROM codes") == 3)
    }

    @Test func aRetypedColumnKeepsTheViewAndTheTriggerThatReadIt() throws {
        let conn = try people()
        try conn.execute(
            script: """
                CREATE TABLE audit(personId INTEGER, age INTEGER);
                CREATE TRIGGER people_age AFTER UPDATE OF age ON people BEGIN
                    INSERT INTO audit VALUES (new.id, new.age);
                END;
                CREATE INDEX people_age_index ON people(age);
                """)
        try conn.create(view: "adults", as: "SELECT id, age FROM people WHERE age >= 18")
        // As TEXT, '7' >= 18 (text sorts after numbers); as INTEGER, it is a child.
        #expect(try count(conn, "SELECT count(*) FROM adults") == 3)
        try conn.alter(table: "people") { t in
            t.change(column: "age", to: .integer)
        }
        #expect(try count(conn, "SELECT count(*) FROM adults") == 2)
        try conn.execute("UPDATE people SET age = 8 WHERE id = 3")
        #expect(try count(conn, "SELECT count(*) FROM audit WHERE personId = 3 AND age = 8") == 1)
        #expect(
            try count(conn, "SELECT count(*) FROM sqlite_schema WHERE name IN ('people_age', 'people_age_index')")
                == 2)
        #expect(try conn.rows("PRAGMA integrity_check").first.map { try $0[0] as String } == "ok")
    }

    @Test func aReplacedColumnThatWasIndexedAndIsIndexedAgainKeepsOneIndex() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "tags") { t in
            t.column("id", .integer).primaryKey()
            t.column("name", .text).indexed()
        }
        try conn.execute("INSERT INTO tags VALUES (1, 'b'), (2, 'a')")
        try conn.alter(table: "tags") { t in
            t.replace(column: "name", with: .text).notNull().indexed()
        }
        #expect(try count(conn, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'tags'") == 1)
        #expect(try count(conn, "SELECT count(*) FROM tags") == 2)
    }

    @Test func aCollatedIndexFollowsItsCollationAfterARebuildAndAReindex() throws {
        let reversed = Collation("reversedOrder") { left, right in
            left == right ? .orderedSame : (left < right ? .orderedDescending : .orderedAscending)
        }
        let conn = try Connection.inMemory()
        try conn.add(collation: reversed)
        try conn.create(table: "words") { t in
            t.column("id", .integer).primaryKey()
            t.column("word", .text).collate(reversed).indexed()
        }
        try conn.execute("INSERT INTO words VALUES (1, 'a'), (2, 'c'), (3, 'b')")
        try conn.alter(table: "words") { t in
            t.change(column: "id", to: .integer)
            t.add(column: "note", .text)
            t.check("length(word) > 0", name: "some_word")
        }
        let ordered = try conn.fetchAll(String.self, sql: "SELECT word FROM words ORDER BY word")
        #expect(ordered == ["c", "b", "a"])
        try conn.reindex(collation: "reversedOrder")
        #expect(try conn.rows("PRAGMA integrity_check").first.map { try $0[0] as String } == "ok")
        #expect(try conn.fetchAll(String.self, sql: "SELECT word FROM words WHERE word > 'b'") == ["a"])
    }

    @Test func aMigrationThatAddsAnIgnoringUniqueConstraintOverDuplicatesFailsAndKeepsTheRows() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in
            try conn.execute(
                script: """
                    CREATE TABLE people(id INTEGER PRIMARY KEY, email TEXT, age TEXT);
                    INSERT INTO people VALUES (1, 'a@x', '30'), (2, 'a@x', '41'), (3, NULL, '7');
                    CREATE VIEW emails AS SELECT DISTINCT email FROM people;
                    """)
        }
        var migrator = Migrator()
        migrator.register("unique emails") { conn in
            try conn.alter(table: "people") { t in
                t.change(column: "email").unique(onConflict: .ignore)
            }
        }
        await #expect(throws: MigrationError.self) { try await migrator.migrate(db) }
        #expect(try await db.read { conn in try conn.fetchAll(Int64.self, sql: "SELECT id FROM people") } == [1, 2, 3])
        #expect(try await migrator.pendingIdentifiers(in: db) == ["unique emails"])
        #expect(
            try await db.read { conn in try conn.fetchAll(String?.self, sql: "SELECT email FROM emails") }.count == 2)
    }
}
