import Foundation
import Testing

@testable import Bindery

@Suite struct TableRebuildTests {
    /// A connection with `items` (an AUTOINCREMENT key), an index, a partial index, a trigger, a
    /// view, and a `log` table the trigger writes to.
    private func itemsDatabase(foreignKeys: Bool = true) throws -> Connection {
        var options = Connection.Options()
        options.foreignKeys = foreignKeys
        let conn = try Connection.inMemory(options: options)
        try conn.create(table: "items") { t in
            t.column("id", .integer).primaryKey(autoincrement: true)
            t.column("name", .text)
            t.column("note", .text)
            t.column("qty", .text)
        }
        try conn.create(table: "log") { t in t.column("itemID", .integer) }
        try conn.create(index: "items_name", on: "items", columns: ["name"])
        try conn.create(index: "items_qty", on: "items", columns: ["qty"], where: "qty IS NOT NULL")
        try conn.execute(
            script: """
                CREATE TRIGGER items_log AFTER INSERT ON items BEGIN INSERT INTO log VALUES (new.id); END;
                CREATE VIEW named_items AS SELECT id, name FROM items WHERE name IS NOT NULL;
                INSERT INTO items (name, note, qty) VALUES ('a', 'n1', '3'), ('b', X'00FF', '4'), ('c', 2.5, NULL),
                    ('d', NULL, '12'), ('e', 'x''y', '7');
                DELETE FROM items WHERE name = 'e';
                DELETE FROM log;
                """)
        return conn
    }

    private func checksum(_ conn: Connection, _ table: String, _ columns: String) throws -> String {
        try conn.rows(
            "SELECT group_concat(\(raw: columns), '|') FROM (SELECT * FROM \(identifier: table) ORDER BY rowid)"
        )
        .first.map { try $0[0] as String } ?? ""
    }

    private func schema(_ conn: Connection) throws -> [String] {
        try conn.rows("SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_schema ORDER BY name")
            .map { try $0[0] as String }
    }

    @Test func aChangedDefinitionKeepsEveryRowIndexTriggerAndView() throws {
        let conn = try itemsDatabase()
        let columns = "quote(rowid) || quote(id) || quote(name) || quote(note) || quote(qty)"
        let before = try checksum(conn, "items", columns)
        try conn.alter(table: "items") { t in
            t.change(column: "note", to: .blob)
            t.change(column: "name", to: .text).notNull().check("length(name) < \(10)")
        }
        #expect(try checksum(conn, "items", columns) == before)
        let sql = try conn.rows("SELECT sql FROM sqlite_schema WHERE name = 'items'").first.map { try $0[0] as String }
        #expect(sql?.contains("\"note\" BLOB") == true)
        #expect(sql?.contains("\"name\" TEXT NOT NULL CHECK (length(name) < 10)") == true)
        #expect(sql?.hasPrefix("CREATE TABLE \"items\"") == true)
        let names = try conn.rows("SELECT type, name FROM sqlite_schema WHERE tbl_name IN ('items', 'named_items')")
            .map { "\(try $0[0] as String) \(try $0[1] as String)" }
        #expect(
            Set(names) == [
                "table items", "index items_name", "index items_qty", "trigger items_log", "view named_items",
            ])
        #expect(try conn.rows("SELECT count(*) FROM named_items").first.map { try $0[0] as Int } == 4)
        // The trigger works, the AUTOINCREMENT sequence did not go back, the new CHECK holds.
        try conn.execute("INSERT INTO items (name) VALUES ('f')")
        #expect(try conn.rows("SELECT itemID FROM log").map { try $0[0] as Int } == [6])
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO items (name) VALUES ('much too long')") }
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO items (name) VALUES (NULL)") }
        #expect(try conn.rows("PRAGMA integrity_check").first.map { try $0[0] as String } == "ok")
    }

    @Test func aTypeChangeConvertsByTheNewAffinity() throws {
        let conn = try itemsDatabase()
        try conn.alter(table: "items") { t in t.change(column: "qty", to: .integer) }
        #expect(
            try conn.rows("SELECT typeof(qty) FROM items ORDER BY id").map { try $0[0] as String }
                == ["integer", "integer", "null", "integer"])
    }

    @Test func rowsBreakingTheNewDefinitionAreNamedAndNothingChanges() throws {
        let conn = try itemsDatabase()
        try conn.execute("INSERT INTO items (name, qty) VALUES (NULL, '1')")
        let columns = "quote(rowid) || quote(id) || quote(name) || quote(note) || quote(qty)"
        let before = (try checksum(conn, "items", columns), try schema(conn))
        do {
            try conn.alter(table: "items") { t in
                t.add(column: "shelf", .text)
                t.change(column: "name", to: .text).notNull()
            }
            Issue.record("the rebuild should have failed")
        } catch SchemaChangeError.rowsBreakConstraints(let table, let rows) {
            #expect(table == "items")
            #expect(
                rows == [RejectedRow(key: "rowid = 6", reason: "NOT NULL constraint failed: items.name")])
        }
        #expect(try checksum(conn, "items", columns) == before.0)
        #expect(try schema(conn) == before.1)
    }

    @Test func withoutRowIDRowsAreNamedByTheirKey() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "courses", options: [.withoutRowID]) { t in
            t.column("code", .text).notNull()
            t.column("year", .integer).notNull()
            t.column("seats", .integer)
            t.primaryKey(["code", "year"])
        }
        try conn.execute(script: "INSERT INTO courses VALUES ('FR', 2020, 10), ('DE', 2021, -1), ('IT', 2022, 5)")
        #expect(
            throws: SchemaChangeError.rowsBreakConstraints(
                table: "courses",
                rows: [RejectedRow(key: "code = 'DE', year = 2021", reason: "CHECK constraint failed: seats >= 0")])
        ) {
            try conn.alter(table: "courses") { t in t.change(column: "seats", to: .integer).check("seats >= 0") }
        }
        try conn.alter(table: "courses") { t in t.order(columns: ["seats"]) }
        #expect(try conn.rows("SELECT * FROM courses ORDER BY code").map { try $0[0] as Int } == [-1, 10, 5])
        #expect(
            try conn.rows("SELECT sql FROM sqlite_schema").first.map { try $0[0] as String }?
                .hasSuffix("WITHOUT ROWID") == true)
    }

    @Test func droppingAnIndexedColumnRebuildsAndABrokenViewIsNamed() throws {
        let conn = try itemsDatabase()
        try conn.alter(table: "items") { t in t.drop(column: "qty") }
        #expect(
            try conn.rows("SELECT name FROM sqlite_schema WHERE type = 'index'").map { try $0[0] as String }
                == ["items_name"])
        #expect(
            throws: SchemaChangeError.brokenDependency(
                kind: "view", name: "named_items", reason: "no such column: name")
        ) {
            try conn.alter(table: "items") { t in t.drop(column: "name") }
        }
        #expect(
            try conn.rows("SELECT name FROM pragma_table_info('items')").map { try $0[0] as String }
                == ["id", "name", "note"])
    }

    /// `authors` and `books`, whose rows refer to the authors with `ON DELETE CASCADE`.
    private func libraryDatabase() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.create(table: "authors") { t in
            t.column("id", .integer).primaryKey()
            t.column("name", .text)
        }
        try conn.create(table: "books") { t in
            t.column("id", .integer).primaryKey()
            t.column("authorID", .integer).references("authors", onDelete: .cascade)
        }
        try conn.execute(
            script: "INSERT INTO authors VALUES (1, 'Ann'), (2, 'Bob'); INSERT INTO books VALUES (1, 1), (2, 2)")
        return conn
    }

    @Test func rebuildingAParentKeepsTheReferencesToIt() throws {
        let conn = try libraryDatabase()
        var migrator = Migrator()
        migrator.register("authors.name NOT NULL") { conn in
            try conn.alter(table: "authors") { t in t.change(column: "name", to: .text).notNull() }
        }
        try migrator.migrate(conn)
        // No cascade ran while the old table was dropped, and books still refers to authors.
        #expect(try conn.rows("SELECT count(*) FROM books").first.map { try $0[0] as Int } == 2)
        #expect(
            try conn.rows("SELECT \"table\" FROM pragma_foreign_key_list('books')").first.map { try $0[0] as String }
                == "authors")
        try conn.execute("DELETE FROM authors WHERE id = 1")
        #expect(try conn.rows("SELECT id FROM books").map { try $0[0] as Int } == [2])
        // Outside a transaction, alter turns foreign keys off for its own.
        try conn.alter(table: "authors") { t in t.change(column: "name", to: .blob) }
        #expect(try conn.rows("SELECT count(*) FROM books").first.map { try $0[0] as Int } == 1)
        #expect(try conn.rows("PRAGMA foreign_keys").first.map { try $0[0] as Bool } == true)
        // Inside a transaction with foreign keys on, SQLite cannot turn them off: refused.
        #expect(throws: SchemaChangeError.foreignKeysEnforced(table: "authors")) {
            try conn.transaction { conn in
                try conn.alter(table: "authors") { t in t.change(column: "name", to: .text) }
            }
        }
    }

    @Test func aForeignKeyTheRowsBreakFailsTheRebuild() throws {
        let conn = try libraryDatabase()
        try conn.execute(script: "PRAGMA foreign_keys = OFF; INSERT INTO books VALUES (3, 9); PRAGMA foreign_keys = ON")
        #expect(
            throws: SchemaChangeError.foreignKeyViolations([
                ForeignKeyViolation(table: "books", rowid: 3, parent: "authors")
            ])
        ) {
            try conn.alter(table: "books") { t in
                t.change(column: "authorID", to: .integer).notNull().references("authors", onDelete: .cascade)
            }
        }
        #expect(
            try conn.rows("SELECT sql FROM sqlite_schema WHERE name = 'books'").first.map { try $0[0] as String }?
                .contains("NOT NULL") == false)
    }

    @Test func rowIDsOfATableWithoutAnIntegerKeyAreKept() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "tags") { t in t.column("name", .text) }
        try conn.create(table: "dense") { t in t.column("name", .text) }
        try conn.execute(
            script: """
                INSERT INTO tags (rowid, name) VALUES (1, 'a'), (5, 'b'), (9, 'c');
                INSERT INTO dense (name) VALUES ('a'), ('b'), ('c');
                """)
        for table in ["tags", "dense"] {
            let before = try conn.rows("SELECT rowid || name FROM \(identifier: table) ORDER BY rowid").map {
                try $0[0] as String
            }
            try conn.alter(table: table) { t in t.change(column: "name", to: .text).notNull() }
            #expect(
                try conn.rows("SELECT rowid || name FROM \(identifier: table) ORDER BY rowid").map {
                    try $0[0] as String
                }
                    == before)
        }
    }

    @Test func aDuplicateBreakingANewUniqueIsNamed() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "users") { t in t.column("email", .text) }
        try conn.execute(script: "INSERT INTO users VALUES ('a@x'), ('b@x'), ('a@x')")
        #expect(
            throws: SchemaChangeError.rowsBreakConstraints(
                table: "users",
                rows: [RejectedRow(key: "rowid = 3", reason: "UNIQUE constraint failed: users.email")])
        ) {
            try conn.alter(table: "users") { t in t.change(column: "email", to: .text).unique() }
        }
    }

    @Test func namesWithQuotesAndSpacesSurviveARebuild() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "odd \"table\" [x]") { t in
            t.column("a \"col\"", .text)
            t.column("b", .integer)
        }
        try conn.create(index: "odd \"index\"", on: "odd \"table\" [x]", columns: ["a \"col\""])
        try conn.execute("INSERT INTO \(identifier: "odd \"table\" [x]") VALUES ('it''s', 1)")
        try conn.alter(table: "odd \"table\" [x]") { t in
            t.change(column: "b", to: .text).notNull()
            t.rename(column: "a \"col\"", to: "c'ol")
        }
        let row = try #require(
            try conn.rows("SELECT \"c'ol\", typeof(b) FROM \(identifier: "odd \"table\" [x]")").first)
        #expect(try row[0] as String == "it's")
        #expect(try row[1] as String == "text")
        #expect(
            try conn.rows("SELECT name FROM pragma_index_info('odd \"index\"')").map { try $0[0] as String } == ["c'ol"]
        )
    }
}
