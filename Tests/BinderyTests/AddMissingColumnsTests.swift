import Foundation
import Testing

@testable import Bindery

@Suite struct AddMissingColumnsTests {
    private struct NoteV1: Record {
        static let tableName = "notes"
        var id: Int64?
        var title: String
    }

    /// Version 2 gains optional properties of several kinds.
    private struct NoteV2: Record {
        static let tableName = "notes"
        var id: Int64?
        var title: String
        var body: String?
        var rating: Int?
        var tags: [String]?
        var editedAt: Date?
    }

    /// Version 3 gains a property that is not optional.
    private struct NoteV3: Record {
        static let tableName = "notes"
        var id: Int64?
        var title: String
        var summary: String?
        var pages: Int
    }

    /// A version without `title`: nothing is dropped.
    private struct NoteWithoutTitle: Record {
        static let tableName = "notes"
        var id: Int64?
        var body: String?
    }

    private struct Keyed: Record {
        static let tableName = "keyed"
        static let primaryKey = ["region", "code"]
        var region: String
        var code: String?
    }

    private struct Missing: Record {
        static let tableName = "missing"
        var id: Int64?
    }

    private func columns(_ conn: Connection, _ table: String) throws -> [(name: String, type: String, notNull: Bool)] {
        try conn.rows("SELECT name, type, \"notnull\" FROM pragma_table_info(\(table))").map {
            (try $0[0], try $0[1], try $0[2])
        }
    }

    private func makeV1Table() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.createTable(for: NoteV1.self)
        _ = try conn.insert(NoteV1(id: nil, title: "first"))
        _ = try conn.insert(NoteV1(id: nil, title: "second"))
        return conn
    }

    @Test func growsTheTableWhenTheTypeGainsOptionalProperties() throws {
        let conn = try makeV1Table()
        let added = try conn.addMissingColumns(for: NoteV2.self)
        #expect(added == ["body", "rating", "tags", "editedAt"])
        let table = try columns(conn, "notes")
        #expect(table.map(\.name) == ["id", "title", "body", "rating", "tags", "editedAt"])
        #expect(table.map(\.type) == ["INTEGER", "TEXT", "TEXT", "INTEGER", "TEXT", "TEXT"])
        #expect(table.map(\.notNull) == [false, true, false, false, false, false])

        // Old rows decode with nil in the new columns.
        let old = try conn.fetchAll(NoteV2.self, orderBy: "id")
        #expect(old.map(\.title) == ["first", "second"])
        #expect(old.allSatisfy { $0.body == nil && $0.rating == nil && $0.tags == nil && $0.editedAt == nil })

        // New rows store every property.
        let saved = try conn.insert(
            NoteV2(
                id: nil, title: "third", body: "text", rating: 4, tags: ["a"], editedAt: Date(timeIntervalSince1970: 0))
        )
        let id = try #require(saved.id)
        let third = try #require(try conn.find(NoteV2.self, id: id))
        #expect(third.rating == 4 && third.tags == ["a"] && third.editedAt == Date(timeIntervalSince1970: 0))

        // The old type still reads the grown table.
        #expect(try conn.fetchAll(NoteV1.self).count == 3)
        // Nothing more is missing.
        #expect(try conn.addMissingColumns(for: NoteV2.self) == [])
    }

    @Test func aNonOptionalNewPropertyThrowsAndNothingIsAdded() throws {
        let conn = try makeV1Table()
        #expect {
            try conn.addMissingColumns(for: NoteV3.self)
        } throws: { error in
            guard case SchemaError.cannotAddColumn(let table, let column, let reason) = error else { return false }
            return table == "notes" && column == "pages" && reason.contains("not optional")
        }
        // Not even the optional `summary` was added: all or nothing.
        #expect(try columns(conn, "notes").map(\.name) == ["id", "title"])
    }

    @Test func theErrorDescriptionSaysWhatToDo() throws {
        let conn = try makeV1Table()
        do {
            try conn.addMissingColumns(for: NoteV3.self)
            Issue.record("expected an error")
        } catch let error as SchemaError {
            #expect(error.description.contains("cannot add column \"pages\" to \"notes\""))
            #expect(error.description.contains("make the property optional"))
        }
    }

    @Test func columnsAreNeverDroppedOrRenamed() throws {
        let conn = try makeV1Table()
        #expect(try conn.addMissingColumns(for: NoteWithoutTitle.self) == ["body"])
        #expect(try columns(conn, "notes").map(\.name) == ["id", "title", "body"])
        #expect(try conn.fetchAll(String.self, sql: "SELECT title FROM notes ORDER BY id") == ["first", "second"])
    }

    @Test func columnNamesMatchWithoutRegardToCase() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE notes(ID INTEGER PRIMARY KEY, Title TEXT NOT NULL)")
        #expect(try conn.addMissingColumns(for: NoteV1.self) == [])
        #expect(try conn.addMissingColumns(for: NoteWithoutTitle.self) == ["body"])
    }

    @Test func columnNamesFollowTheKeyStrategy() throws {
        let conn = try Connection.inMemory()
        var options = CodingOptions()
        options.keyStrategy = .snakeCase
        conn.codingOptions = options
        try conn.createTable(for: NoteV1.self)
        #expect(try conn.addMissingColumns(for: NoteV2.self) == ["body", "rating", "tags", "edited_at"])
        #expect(try conn.fetchAll(NoteV2.self).isEmpty)
    }

    @Test func aMissingPrimaryKeyColumnCannotBeAdded() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE keyed(region TEXT NOT NULL)")
        #expect {
            try conn.addMissingColumns(for: Keyed.self)
        } throws: { error in
            guard case SchemaError.cannotAddColumn(_, "code", let reason) = error else { return false }
            return reason.contains("primary key")
        }
    }

    @Test func aMissingTableThrows() throws {
        let conn = try Connection.inMemory()
        #expect {
            try conn.addMissingColumns(for: Missing.self)
        } throws: { error in
            guard let error = error as? SQLiteError else { return false }
            return error.message.contains("no such table: missing")
        }
    }

    @Test func growingInsideAMigration() throws {
        let conn = try makeV1Table()
        var migrator = Migrator()
        migrator.register("notes v2") { conn in
            try conn.addMissingColumns(for: NoteV2.self)
        }
        #expect(try migrator.migrate(conn) == ["notes v2"])
        #expect(try columns(conn, "notes").count == 6)
    }
}
