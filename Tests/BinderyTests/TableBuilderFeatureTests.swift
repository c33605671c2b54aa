import Foundation
import Testing

@testable import Bindery

/// The builder features GRDB users reach for: `ON CONFLICT` clauses, `indexed()`, references to a
/// record type, columns and constraints written in SQL, views, `REINDEX` and collations from Swift.
@Suite struct TableBuilderFeatureTests {
    struct Author: Record {
        static let tableName = "authors"
        var id: Int64
        var name: String
    }

    struct Passport: Record {
        static let tableName = "passports"
        static let primaryKey = ["country", "number"]
        var country: String
        var number: Int
    }

    private func count(_ conn: Connection, _ sql: SQL) throws -> Int {
        try conn.fetchOne(Int.self, sql: sql) ?? -1
    }

    @Test func conflictClausesDecideWhatAStatementWithoutAPolicyDoes() throws {
        let conn = try Connection.inMemory()
        let sql = try conn.createTableSQL("tags") { t in
            t.column("id", .integer).primaryKey(onConflict: .replace)
            t.column("name", .text).notNull(onConflict: .replace).defaults(to: "untitled")
            t.column("code", .text).unique(onConflict: .ignore)
            t.column("a", .integer)
            t.column("b", .integer)
            t.unique(["a", "b"], onConflict: .fail)
        }
        #expect(sql.contains("\"id\" INTEGER PRIMARY KEY ON CONFLICT REPLACE"))
        #expect(sql.contains("UNIQUE (\"a\", \"b\") ON CONFLICT FAIL"))
        try conn.execute(script: sql)
        try conn.execute("INSERT INTO tags (id, name, code) VALUES (1, NULL, 'x')")
        #expect(try conn.fetchOne(String.self, sql: "SELECT name FROM tags WHERE id = 1") == "untitled")
        try conn.execute("INSERT INTO tags (id, name, code) VALUES (2, 'two', 'x')")  // ignored
        #expect(try count(conn, "SELECT count(*) FROM tags") == 1)
        try conn.execute("INSERT INTO tags (id, name, code) VALUES (1, 'one', 'y')")  // replaces row 1
        #expect(try conn.fetchOne(String.self, sql: "SELECT name FROM tags WHERE id = 1") == "one")
        try conn.execute("INSERT INTO tags (id, name, a, b) VALUES (3, 'c', 1, 1)")
        #expect(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO tags (id, name, a, b) VALUES (4, 'd', 1, 1)")
        }

        let composite = try conn.createTableSQL("pairs") { t in
            t.column("a", .integer)
            t.column("b", .integer)
            t.primaryKey(["a", "b"], onConflict: .ignore)
        }
        #expect(composite.contains("PRIMARY KEY (\"a\", \"b\") ON CONFLICT IGNORE"))
    }

    @Test func indexedColumnsGetAnIndexWithTheTableOrWithTheColumn() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "authors") { t in t.column("id", .integer).primaryKey() }
        try conn.create(table: "books") { t in
            t.column("id", .integer).primaryKey()
            t.column("authorID", .integer).references("authors").indexed()
        }
        #expect(
            try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_index_info('books_on_authorID')") == [
                "authorID"
            ])
        try conn.alter(table: "books") { t in t.add(column: "shelf", .text).indexed() }
        #expect(
            try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_index_info('books_on_shelf')") == ["shelf"])
        // The table and its index come together or not at all.
        try conn.create(index: "more_on_x", on: "books", columns: ["id"])
        #expect(throws: SQLiteError.self) {
            try conn.create(table: "more") { t in t.column("x").indexed() }
        }
        #expect(try count(conn, "SELECT count(*) FROM sqlite_schema WHERE tbl_name = 'more'") == 0)
        #expect(
            try conn.createTableSQL("x", options: .ifNotExists) { t in t.column("a").indexed() }
                .hasSuffix(";\nCREATE INDEX IF NOT EXISTS \"x_on_a\" ON \"x\" (\"a\")"))
    }

    @Test func aColumnReferencesARecordTypesTableByItsKey() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "authors") { t in
            t.column("id", .integer).primaryKey()
            t.column("name", .text)
        }
        try conn.create(table: "passports") { t in
            t.column("country", .text)
            t.column("number", .integer)
            t.primaryKey(["country", "number"])
        }
        try conn.create(table: "books") { t in
            t.column("id", .integer).primaryKey()
            t.column("authorID", .integer).references(Author.self, onDelete: .cascade)
            t.column("country", .text)
            t.column("number", .integer)
            t.foreignKey(["country", "number"], references: Passport.self)
        }
        let keys = try conn.rows(
            "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list('books') ORDER BY id, seq"
        )
        .map { "\(try $0[0] as String).\(try $0[1] as String)->\(try $0[2] as String)" }
        #expect(Set(keys) == ["authors.authorID->id", "passports.country->country", "passports.number->number"])
        #expect(
            throws: SchemaChangeError.keyColumnCount(
                column: "passport", table: "passports", keyColumns: ["country", "number"])
        ) {
            try conn.create(table: "stamps") { t in t.column("passport", .integer).references(Passport.self) }
        }
        #expect(try count(conn, "SELECT count(*) FROM sqlite_schema WHERE name = 'stamps'") == 0)
    }

    @Test func columnsAndConstraintsWrittenInSQL() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "codes") { t in
            t.column("id", .integer).primaryKey()
            t.column(sql: "code TEXT NOT NULL CHECK (length(code) = \(3))")
            t.constraint(sql: "CHECK (code <> \("xxx"))")
        }
        try conn.execute("INSERT INTO codes (id, code) VALUES (1, 'abc')")
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO codes (id, code) VALUES (2, 'ab')") }
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO codes (id, code) VALUES (2, 'xxx')") }
        // Added by ALTER TABLE, and by a rebuild when another change needs one.
        try conn.alter(table: "codes") { t in t.add(columnSQL: "note TEXT DEFAULT \("it's")") }
        try conn.alter(table: "codes") { t in
            t.add(columnSQL: "\"rank\" INTEGER NOT NULL DEFAULT 0")
            t.constraint(sql: "CHECK (\"rank\" >= 0)")
        }
        #expect(try conn.fetchOne(String.self, sql: "SELECT note FROM codes") == "it's")
        #expect(throws: SQLiteError.self) { try conn.execute("UPDATE codes SET \"rank\" = -1") }
        #expect(throws: SchemaChangeError.duplicateColumn(table: "codes", column: "note")) {
            try conn.alter(table: "codes") {
                t in
                t.add(columnSQL: "note TEXT")
                t.check("1")
            }
        }
    }

    @Test func viewsAreCreatedWithLiteralValuesAndDropped() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
        try conn.execute(script: "INSERT INTO books VALUES (1, 'Emma', 1815), (2, 'Dune', 1965)")
        try conn.create(
            view: "modern", as: "SELECT id, title FROM books WHERE year > \(1900)", columns: ["key", "name"])
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM modern") == ["Dune"])
        #expect(
            try conn.fetchOne(String.self, sql: "SELECT sql FROM sqlite_schema WHERE name = 'modern'")?.contains("1900")
                == true)
        try conn.create(view: "modern", as: "SELECT 1", ifNotExists: true)
        #expect(throws: SQLiteError.self) { try conn.create(view: "modern", as: "SELECT 1") }
        // Text after the query is refused, not run.
        #expect(throws: SQLiteError.self) { try conn.create(view: "v2", as: "SELECT 1; DROP TABLE books") }
        #expect(try count(conn, "SELECT count(*) FROM books") == 2)
        try conn.create(view: "scratch", as: "SELECT title FROM books", temporary: true)
        #expect(try count(conn, "SELECT count(*) FROM temp.sqlite_schema WHERE name = 'scratch'") == 1)
        try conn.drop(view: "modern")
        try conn.drop(view: "modern", ifExists: true)
        #expect(throws: SQLiteError.self) { try conn.drop(view: "modern") }
        #expect(throws: SQLiteError.self) { try conn.drop(view: "books") }
        #expect(try count(conn, "SELECT count(*) FROM books") == 2)
    }

    @Test func reindexNamesWhatItRebuildsAndRefusesWhatIsNotThere() throws {
        let conn = try Connection.inMemory()
        // A table named like a collation: `REINDEX nocase` would rebuild the collation's indexes.
        try conn.execute(script: "CREATE TABLE nocase (a TEXT COLLATE NOCASE); CREATE INDEX byA ON nocase (a)")
        try conn.execute(script: "INSERT INTO nocase VALUES ('b'), ('A')")
        try conn.reindex()
        try conn.reindex(collation: "NOCASE")
        try conn.reindex(table: "nocase")
        try conn.reindex(index: "byA")
        #expect(throws: SchemaChangeError.noSuchObject(kind: "collation", name: "unknown")) {
            try conn.reindex(collation: "unknown")
        }
        #expect(throws: SchemaChangeError.noSuchObject(kind: "table", name: "byA")) { try conn.reindex(table: "byA") }
        #expect(throws: SchemaChangeError.noSuchObject(kind: "index", name: "nocase")) {
            try conn.reindex(index: "nocase")
        }
        #expect(try conn.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func collationsFromSwiftOrderColumnsIndexesAndQueries() throws {
        let conn = try Connection.inMemory(options: Connection.Options(collations: [.localizedStandard]))
        try conn.create(table: "files") { t in
            t.column("name", .text).notNull().collate(.localizedStandard).indexed()
        }
        try conn.execute(script: "INSERT INTO files VALUES ('file10'), ('file2'), ('File1')")
        #expect(
            try conn.fetchAll(String.self, sql: "SELECT name FROM files ORDER BY name") == ["File1", "file2", "file10"])
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM files WHERE name > 'file3'") == ["file10"])
        // Invalid UTF-8 reaches the comparison repaired, not as a crash.
        try conn.execute("INSERT INTO files VALUES (CAST(x'ff66696c6535' AS TEXT))")
        #expect(try conn.fetchAll(Int.self, sql: "SELECT length(name) FROM files ORDER BY name").count == 4)
        // Added later, replacing one of the same name; the indexes follow with reindex.
        try conn.add(collation: Collation("localizedStandard") { ($1 as String).compare($0) })
        try conn.reindex(collation: "localizedStandard")
        #expect(try conn.fetchOne(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(
            try conn.fetchAll(
                String.self, sql: "SELECT name FROM files WHERE name <> CAST(x'ff66696c6535' AS TEXT) ORDER BY name")
                == ["file2", "file10", "File1"])
        // A change keeps the collation.
        try conn.alter(table: "files") { t in t.change(column: "name", to: .text) }
        #expect(
            try conn.fetchOne(String.self, sql: "SELECT sql FROM sqlite_schema WHERE name = 'files'")?.contains(
                "COLLATE \"localizedStandard\"") == true)
        #expect(Collation.caseInsensitive == Collation("CASEINSENSITIVE") { _, _ in .orderedSame })
        // A connection that does not know it fails where the collation is needed.
        let other = try Connection.inMemory()
        try other.add(collation: .caseInsensitive)
        #expect(try other.fetchOne(Int.self, sql: "SELECT 'É' = 'é' COLLATE caseInsensitive") == 1)
        #expect(throws: SQLiteError.self) { try other.execute("SELECT 1 ORDER BY 'a' COLLATE localizedStandard") }
    }

    @Test func everyConnectionOfADatabaseKnowsItsCollations() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = try Database(
            path: directory.appendingPathComponent("c.db").path,
            options: Database.Options(readerCount: 2, collations: [.caseInsensitive]))
        try await db.write { conn in
            try conn.create(table: "names") { t in t.column("name", .text).collate(.caseInsensitive).unique() }
            try conn.execute("INSERT INTO names VALUES ('Élan')")
            #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO names VALUES ('élan')") }
        }
        let found = try await db.read { conn in
            try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM names WHERE name = 'ÉLAN'")
        }
        #expect(found == 1)
    }

    @Test func aReplacedColumnGetsItsIndexAndCollationNamesFoldOnlyASCII() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT)")
        try conn.alter(table: "t") { t in t.replace(column: "a", with: .text).notNull().indexed() }
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_index_info('t_on_a')") == ["a"])
        #expect(Collation("Straße") { _, _ in .orderedSame } != Collation("STRASSE") { _, _ in .orderedSame })
        #expect(Collation("ÉA") { _, _ in .orderedSame } != Collation("éa") { _, _ in .orderedSame })
        #expect(Collation("Natural") { _, _ in .orderedSame } == Collation("nATURAL") { _, _ in .orderedSame })
    }

    @Test func aRestoredCopyIsCheckedWithTheDatabasesCollations() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("copy.db").path
        let conn = try Connection(path: path, options: Connection.Options(collations: [.localizedStandard]))
        try conn.create(table: "files") { t in t.column("name", .text).collate(.localizedStandard).indexed() }
        try conn.execute("INSERT INTO files VALUES ('a10'), ('a2')")
        conn.close()
        #expect(throws: Database.RestoreError.self) { try Database.checkRestoredCopy(at: path, collations: []) }
        try Database.checkRestoredCopy(at: path, collations: [.localizedStandard])
    }
}
