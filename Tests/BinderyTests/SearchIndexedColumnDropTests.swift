import Foundation
import Testing

@testable import Bindery

/// Dropping a column that a search table reads. A search table not kept in step (`keptInStep: false`)
/// over external content let the drop through: the table builder's check of views and triggers found
/// nothing, and the search table was left reading a column that no longer exists (its rebuild, snippets
/// and highlights failed from then on). A search table kept in step refused it, but the error named
/// one of its triggers or its keyed view (`notes_fts_bi`, `notes_fts_source`), not the search table.
@Suite struct SearchIndexedColumnDropTests {
    static let integerKey =
        "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, extra TEXT);"
    static let textKey =
        "CREATE TABLE notes(code TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, extra TEXT);"

    static func connection(_ schema: String) throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(script: schema)
        return conn
    }

    static let refusal = SearchTableError.indexedColumnDropped(searchTable: "notes_fts", table: "notes", column: "body")

    @Test func aSearchTableNotKeptInStepKeepsTheColumnItReads() throws {
        let conn = try Self.connection(Self.integerKey)
        try conn.execute(script: "INSERT INTO notes VALUES (1, 'alpha', 'bravo', NULL);")
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"], keptInStep: false)
        try conn.rebuild(searchTable: "notes_fts")
        #expect(throws: Self.refusal) {
            try conn.alter(table: "notes") { t in t.drop(column: "body") }
        }
        #expect(try conn.rows("SELECT body FROM notes").map(\.values) == [[.text("bravo")]])
        try conn.rebuild(searchTable: "notes_fts")
        try conn.alter(table: "notes") { t in t.drop(column: "extra") }
        #expect(try conn.rows("SELECT name FROM pragma_table_info('notes')").count == 3)
    }

    @Test(arguments: [integerKey, textKey])
    func aSearchTableKeptInStepIsNamed(schema: String) throws {
        let conn = try Self.connection(schema)
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"])
        #expect(throws: Self.refusal) {
            try conn.alter(table: "notes") { t in t.drop(column: "BODY".lowercased()) }
        }
        // A rebuild that drops the column is refused the same way.
        #expect(throws: Self.refusal) {
            try conn.alter(table: "notes") { t in
                t.drop(column: "body")
                t.change(column: "extra", to: .blob)
            }
        }
        try conn.alter(table: "notes") { t in t.drop(column: "extra") }
    }

    @Test func aContentlessSearchTableKeptInStepIsNamedAndOneWrittenByTheAppIsNot() throws {
        let conn = try Self.connection(Self.integerKey)
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"], content: .contentless)
        #expect(throws: Self.refusal) {
            try conn.alter(table: "notes") { t in t.drop(column: "body") }
        }
        let other = try Self.connection(Self.integerKey)
        try other.create(
            searchTable: "notes_fts", on: "notes", columns: ["title", "body"], content: .contentless, keptInStep: false)
        try other.alter(table: "notes") { t in t.drop(column: "body") }
    }

    struct Note: Record {
        static let tableName = "notes"
        var id: Int64?
        var title: String
        var extra: String?
    }

    @Test func aTableSyncDroppingColumnsNamesTheSearchTable() async throws {
        let db = try Database.inMemory(options: .init(schemaTrust: .trustedSchema))
        try await db.write { conn in
            try conn.execute(script: Self.integerKey)
            try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"])
        }
        var migrator = Migrator()
        migrator.syncTable(for: Note.self, droppingColumns: true)
        do {
            try await migrator.migrate(db)
            Issue.record("the migration dropped the column")
        } catch MigrationError.failed(_, let underlying) {
            #expect(underlying as? SearchTableError == Self.refusal)
        }
    }
}
