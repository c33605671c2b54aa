import Foundation
import Testing

@testable import Bindery

/// A pull undoes this copy's unpushed changesets before it applies the hub's, then applies them again.
/// The undo must write back exactly the bytes the changeset recorded: TEXT that is not valid UTF-8
/// (written by SQL, or by another program) is TEXT to SQLite all the same, and a row the undo compares
/// or restores with other bytes is a row "changed without being recorded".
@Suite struct SyncUndoTextBytesTests {
    private static func fixture() async throws -> SyncFixture {
        try await SyncFixture.make(
            extraSchema: "CREATE TABLE notes(id TEXT PRIMARY KEY, body TEXT, n INTEGER NOT NULL);",
            tables: [SyncTable(SyncTodo.self), SyncTable("notes")])
    }

    /// Every note as `id hex(body) n`, by id.
    private static func notes(_ db: Database) async throws -> [String] {
        try await db.read { conn in
            try conn.fetchAll(String.self, sql: "SELECT id || ' ' || hex(body) || ' ' || n FROM notes ORDER BY id")
        }
    }

    @Test func aPendingInsertOfTextThatIsNotUTF8IsUndoneAndAppliedAgain() async throws {
        let fixture = try await Self.fixture()
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.write { conn in
            try conn.execute("INSERT INTO notes VALUES ('1', CAST(X'61FF62' AS TEXT), 1)")
        }
        try await b.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await b.push()
        // a undoes its insert (a delete that must find the row as recorded), applies b's, inserts again.
        #expect(try await a.pull() == 1)
        #expect(try await a.status().lastError == nil)
        #expect(try await Self.notes(a.database) == ["1 61FF62 1"])
        try await fixture.settle()
        #expect(try await Self.notes(b.database) == ["1 61FF62 1"])
        #expect(try await fixture.todos(0).map(\.title) == ["milk"])
    }

    @Test func aPendingUpdateOfAnotherColumnKeepsTheTextsBytes() async throws {
        let fixture = try await Self.fixture()
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.write { conn in
            try conn.execute("INSERT INTO notes VALUES ('1', CAST(X'C328' AS TEXT), 1)")
        }
        try await fixture.settle()
        try await a.database.write { conn in try conn.execute("UPDATE notes SET n = 2 WHERE id = '1'") }
        try await b.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await b.push()
        #expect(try await a.pull() == 1)
        #expect(try await a.status().lastError == nil)
        #expect(try await Self.notes(a.database) == ["1 C328 2"])
        try await fixture.settle()
        #expect(try await Self.notes(b.database) == ["1 C328 2"])
    }
}
