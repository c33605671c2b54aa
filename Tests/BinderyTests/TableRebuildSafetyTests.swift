import Foundation
import Testing

@testable import Bindery

/// What a table rebuild must keep, or refuse to lose: triggers whose `ON` clause spells the table in
/// another case, rowids, rows of a table that refers to itself, columns named by a single-quoted
/// string, and a schema whose triggers and views still compile.
@Suite struct TableRebuildSafetyTests {
    private func strings(_ conn: Connection, _ sql: SQL) throws -> [String] {
        try conn.rows(sql).map { try $0[0] as String }
    }

    // MARK: Names in another case (point 3, point 17)

    @Test func aTriggerWhoseOnClauseSpellsTheTableInAnotherCaseIsKept() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE Books (id INTEGER PRIMARY KEY, title TEXT);
                CREATE TABLE log (title TEXT);
                CREATE TRIGGER books_log AFTER INSERT ON books BEGIN INSERT INTO log VALUES (new.title); END;
                CREATE INDEX books_title ON BOOKS (title);
                INSERT INTO Books (title) VALUES ('a');
                """)
        try conn.alter(table: "Books") { t in t.change(column: "title", to: .text).notNull() }
        #expect(
            try strings(conn, "SELECT name FROM sqlite_schema WHERE type IN ('index', 'trigger') ORDER BY name")
                == ["books_log", "books_title"])
        try conn.execute("INSERT INTO Books (title) VALUES ('b')")
        #expect(try strings(conn, "SELECT title FROM log") == ["a", "b"])
    }

    @Test func aTemporaryTriggerOnTheTableIsKept() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT);
                CREATE TEMP TABLE seen (title TEXT);
                CREATE TEMP TRIGGER books_seen AFTER INSERT ON main.Books BEGIN INSERT INTO seen VALUES (new.title); END;
                """)
        try conn.alter(table: "books") { t in t.change(column: "title", to: .text).notNull() }
        #expect(try strings(conn, "SELECT name FROM temp.sqlite_schema WHERE type = 'trigger'") == ["books_seen"])
        try conn.execute("INSERT INTO books (title) VALUES ('b')")
        #expect(try strings(conn, "SELECT title FROM seen") == ["b"])
    }

    @Test func rowsBreakingTheNewDefinitionAreNamedWhateverTheCaseOfTheTableName() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE items (name TEXT); INSERT INTO items VALUES ('a'), (NULL)")
        #expect(
            throws: SchemaChangeError.rowsBreakConstraints(
                table: "items", rows: [RejectedRow(key: "rowid = 2", reason: "NOT NULL constraint failed: items.name")])
        ) {
            try conn.alter(table: "ITEMS") { t in t.change(column: "name", to: .text).notNull() }
        }
        #expect(try conn.rows("SELECT count(*) FROM items").first.map { try $0[0] as Int } == 2)
        // The other entry points take the name in any case too.
        try conn.alter(table: "Items") { t in t.add(column: "shelf", .text) }
        try conn.alter(table: "ITEMS") { t in t.drop(column: "shelf") }
        try conn.create(index: "items_name", on: "ITEMS", columns: ["NAME"])
        try conn.alter(table: "iTeMs") { t in t.change(column: "name", to: .blob) }
        #expect(try strings(conn, "SELECT name FROM sqlite_schema WHERE type = 'index'") == ["items_name"])
    }

    // MARK: Rowids (point 4)

    /// Rowids 1…n, and a copy that SQLite reads through the covering index of `name` (the wide
    /// column it leaves out makes the table's rows larger than the index's).
    @Test func denseRowIDsReadThroughACoveringIndexKeepTheirRows() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE words (name TEXT UNIQUE, note TEXT);
                INSERT INTO words VALUES ('zebra', hex(randomblob(2000))), ('apple', hex(randomblob(2000))),
                    ('mango', hex(randomblob(2000)));
                """)
        try conn.alter(table: "words") { t in
            t.drop(column: "note")
            t.change(column: "name", to: .text).notNull().unique()
        }
        #expect(
            try strings(conn, "SELECT rowid || ':' || name FROM words ORDER BY rowid")
                == ["1:zebra", "2:apple", "3:mango"])
    }

    @Test func rowIDsAreCarriedWhenTheTableLosesItsIntegerKey() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT UNIQUE);
                INSERT INTO tags VALUES (3, 'zebra'), (1, 'apple'), (2, 'mango');
                """)
        try conn.alter(table: "tags") { t in t.change(column: "id", to: .integer).notNull() }
        #expect(
            try strings(conn, "SELECT rowid || ':' || id || ':' || name FROM tags ORDER BY rowid")
                == ["1:1:apple", "2:2:mango", "3:3:zebra"])
    }

    // MARK: Triggers and views that no longer compile (point 11)

    @Test func droppingAColumnATriggerUsesFailsNamingTheTrigger() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE t (a TEXT, b TEXT);
                CREATE TABLE log (v TEXT);
                CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.b); END;
                INSERT INTO t VALUES ('x', 'y');
                """)
        #expect(
            throws: SchemaChangeError.brokenDependency(kind: "trigger", name: "t_log", reason: "no such column: new.b")
        ) {
            try conn.alter(table: "t") { t in t.drop(column: "b") }
        }
        #expect(try strings(conn, "SELECT name FROM pragma_table_info('t')") == ["a", "b"])
        try conn.execute("INSERT INTO t VALUES ('p', 'q')")
        #expect(try strings(conn, "SELECT v FROM log") == ["y", "q"])
    }

    /// A column named only where SQLite's own schema check does not look: an `UPDATE … SET` or an
    /// `INSERT` column list in a trigger's body, of the table's own trigger or of another table's.
    @Test func droppingAColumnATriggerWritesFailsNamingTheTrigger() throws {
        for (body, reason) in [
            ("UPDATE t SET b = 1 WHERE rowid = new.rowid;", "no such column: b"),
            ("INSERT INTO t (b) VALUES (new.a);", "table t has no column named b"),
        ] {
            let conn = try Connection.inMemory()
            try conn.execute(
                script: """
                    CREATE TABLE t (a TEXT, b TEXT);
                    CREATE TABLE other (a TEXT);
                    CREATE TRIGGER t_sets_b AFTER INSERT ON t WHEN new.a = 'x' BEGIN \(body) END;
                    CREATE TRIGGER other_log AFTER INSERT ON t BEGIN INSERT INTO other VALUES (new.a); END;
                    """)
            #expect(
                throws: SchemaChangeError.brokenDependency(
                    kind: "trigger", name: "t_sets_b", reason: reason), "\(body)"
            ) {
                try conn.alter(table: "t") { t in t.drop(column: "b") }
            }
            #expect(try strings(conn, "SELECT name FROM pragma_table_info('t')") == ["a", "b"])
        }
    }

    @Test func droppingAColumnATriggerOfAnotherTableUsesFailsNamingIt() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE t (a TEXT, b TEXT);
                CREATE TABLE other (x TEXT);
                CREATE TRIGGER other_sets_b AFTER INSERT ON other BEGIN UPDATE T SET b = new.x; END;
                """)
        #expect(
            throws: SchemaChangeError.brokenDependency(
                kind: "trigger", name: "other_sets_b", reason: "no such column: b")
        ) {
            try conn.alter(table: "t") { t in
                t.drop(column: "b")
                t.change(column: "a", to: .text).notNull()
            }
        }
        #expect(try strings(conn, "SELECT name FROM pragma_table_info('t')") == ["a", "b"])
        try conn.execute("INSERT INTO other VALUES ('z')")
    }

    @Test func aMigrationDroppingAColumnATriggerUsesFailsAndPreviewSaysSo() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE t (a TEXT, b TEXT);
                CREATE TABLE log (v TEXT);
                CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO log VALUES (new.b); END;
                """)
        var migrator = Migrator()
        migrator.register("drop b") { conn in try conn.alter(table: "t") { $0.drop(column: "b") } }
        let expected = MigrationError.failed(
            identifier: "drop b",
            underlying: SchemaChangeError.brokenDependency(
                kind: "trigger", name: "t_log", reason: "no such column: new.b"))
        let previewError = #expect(throws: MigrationError.self) { try migrator.preview(conn) }
        #expect(previewError.map { "\($0)" } == "\(expected)")
        let migrateError = #expect(throws: MigrationError.self) { try migrator.migrate(conn) }
        #expect(migrateError.map { "\($0)" } == "\(expected)")
        #expect(try strings(conn, "SELECT name FROM pragma_table_info('t')") == ["a", "b"])
        try conn.execute("INSERT INTO t VALUES ('p', 'q')")
        #expect(try strings(conn, "SELECT v FROM log") == ["q"])
    }

    @Test func droppingAColumnASearchTableIndexesFailsWithEverythingRolledBack() throws {
        let conn = try Connection.inMemory(options: .init(schemaTrust: .trustedSchema))
        try conn.execute(script: "CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT)")
        try conn.execute("INSERT INTO notes (title, body) VALUES ('one', 'alpha'), ('two', 'beta')")
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"])
        let schema = try strings(conn, "SELECT name || ' ' || coalesce(sql, '') FROM sqlite_schema ORDER BY name")
        // The search table is named, not one of its triggers (SearchIndexedColumnDropTests).
        #expect(throws: SearchTableError.indexedColumnDropped(searchTable: "notes_fts", table: "notes", column: "body"))
        {
            try conn.alter(table: "notes") { t in t.drop(column: "body") }
        }
        #expect(
            try strings(conn, "SELECT name || ' ' || coalesce(sql, '') FROM sqlite_schema ORDER BY name") == schema)
        try conn.execute("INSERT INTO notes (title, body) VALUES ('three', 'gamma')")
        try conn.execute("UPDATE notes SET body = 'delta' WHERE id = 1")
        try conn.execute("DELETE FROM notes WHERE id = 2")
        try conn.checkIntegrity(searchTable: "notes_fts")
        #expect(
            try conn.rows("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'delta OR gamma' ORDER BY rowid")
                .map { try $0[0] as Int } == [1, 3])
    }

    @Test func aViewInAnotherCaseThatUsesADroppedColumnIsNamed() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE t (a TEXT, b TEXT);
                CREATE INDEX t_b ON t (b);
                CREATE VIEW v AS SELECT B FROM "T";
                """)
        #expect(throws: SchemaChangeError.brokenDependency(kind: "view", name: "v", reason: "no such column: B")) {
            try conn.alter(table: "t") { t in t.drop(column: "b") }
        }
        #expect(try strings(conn, "SELECT name FROM pragma_table_info('t')") == ["a", "b"])
    }

    // MARK: A table that refers to itself (point 14)

    @Test func aTableReferringToItselfIsNotRebuiltWhileForeignKeysAreEnforced() throws {
        for action in ["CASCADE", "SET NULL", "SET DEFAULT", "RESTRICT", "NO ACTION"] {
            let conn = try Connection.inMemory()
            try conn.execute(
                script: """
                    CREATE TABLE nodes (
                        id INTEGER PRIMARY KEY, name TEXT,
                        parent INTEGER DEFAULT 1 REFERENCES nodes(id) ON DELETE \(action) ON UPDATE \(action));
                    INSERT INTO nodes VALUES (1, 'root', NULL), (2, 'child', 1), (3, 'grandchild', 2);
                    """)
            let before = try strings(conn, "SELECT id || ':' || name || ':' || quote(parent) FROM nodes ORDER BY id")
            #expect(throws: SchemaChangeError.foreignKeysEnforced(table: "nodes"), "\(action)") {
                try conn.transaction { conn in
                    try conn.alter(table: "nodes") { t in t.change(column: "name", to: .text).notNull() }
                }
            }
            #expect(
                try strings(conn, "SELECT id || ':' || name || ':' || quote(parent) FROM nodes ORDER BY id") == before)
            // Outside a transaction, foreign keys are turned off for the rebuild: every row stays.
            try conn.alter(table: "nodes") { t in t.change(column: "name", to: .text).notNull() }
            #expect(
                try strings(conn, "SELECT id || ':' || name || ':' || quote(parent) FROM nodes ORDER BY id") == before)
        }
    }

    // MARK: Names written as strings (point 15)

    @Test func aColumnNamedByASingleQuotedStringKeepsItsValues() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE p (id INTEGER PRIMARY KEY);
                CREATE TABLE q ('a b' TEXT, 'it''s' INTEGER, c INTEGER, CONSTRAINT 'the key' PRIMARY KEY ('a b'),
                    UNIQUE ('it''s', c), FOREIGN KEY ('it''s') REFERENCES p (id));
                CREATE INDEX q_ab ON q ('a b');
                INSERT INTO p VALUES (1), (2);
                INSERT INTO q VALUES ('x', 1, 10), ('y', 2, 20);
                """)
        try conn.alter(table: "q") { t in t.change(column: "c", to: .integer).notNull() }
        #expect(try strings(conn, "SELECT name FROM pragma_table_info('q')") == ["a b", "it's", "c"])
        #expect(try strings(conn, "SELECT \"a b\" || \"it's\" || c FROM q ORDER BY rowid") == ["x110", "y220"])
        #expect(try strings(conn, "SELECT name FROM pragma_index_info('q_ab')") == ["a b"])
        try conn.alter(table: "q") { t in t.drop(constraint: "the key") }
        #expect(try strings(conn, "SELECT name FROM pragma_table_info('q') WHERE pk > 0").isEmpty)
        #expect(try strings(conn, "SELECT \"from\" FROM pragma_foreign_key_list('q')") == ["it's"])
    }
}
