import Foundation
import Testing

@testable import Bindery

/// A field-wise merge (and a resolver) reads the conflicting rows' values into `SQLiteValue`s, whose
/// text is a `String`: TEXT that is not valid UTF-8 comes back with U+FFFD in place of the invalid
/// bytes. The merge wrote those back: a body one copy set to the bytes 62 FE ended as 62 EF BF BD on
/// every copy, with no error. Such a conflict now stops the pull with an error naming the column;
/// `lastWriterWins`, which lets SQLite write the row, keeps the bytes.
@Suite struct SyncMergeTextBytesTests {
    private static func fixture(_ policy: SyncPolicy) async throws -> SyncFixture {
        try await SyncFixture.make(
            extraSchema: "CREATE TABLE notes(id TEXT PRIMARY KEY, body TEXT, n INTEGER NOT NULL);",
            tables: [SyncTable(SyncTodo.self), SyncTable("notes", policy: policy)])
    }

    private static func notes(_ db: Database) async throws -> [String] {
        try await db.read { conn in try conn.fetchAll(String.self, sql: "SELECT hex(body) || ' ' || n FROM notes") }
    }

    /// a sets the body to bytes that are not UTF-8 while b changes `n`; a pushes first.
    private static func conflict(_ fixture: SyncFixture) async throws {
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.write { try $0.execute("INSERT INTO notes VALUES ('1', CAST(X'61FF' AS TEXT), 1)") }
        try await fixture.settle()
        try await a.database.write { try $0.execute("UPDATE notes SET body = CAST(X'62FE' AS TEXT)") }
        try await b.database.write { try $0.execute("UPDATE notes SET n = 2") }
        try await a.push()
    }

    @Test func aFieldWiseMergeOfTextThatIsNotUTF8StopsInsteadOfRepairingIt() async throws {
        let fixture = try await Self.fixture(.fieldWise)
        try await Self.conflict(fixture)
        let b = fixture.copies[1]
        // b's own change, applied again over a's, meets a's bytes: the pull stops and rolls back.
        let error = await #expect(throws: SyncError.self) { try await b.pull() }
        #expect(String(describing: error).contains("column body holds TEXT that is not valid UTF-8"))
        // Nothing of the repaired text was written: b keeps its own row, its change pending.
        #expect(try await Self.notes(b.database) == ["61FF 2"])
        #expect(try await Self.notes(fixture.copies[0].database) == ["62FE 1"])
    }

    @Test func lastWriterWinsKeepsTheBytes() async throws {
        let fixture = try await Self.fixture(.lastWriterWins)
        try await Self.conflict(fixture)
        try await fixture.settle()
        #expect(try await Self.notes(fixture.copies[0].database) == ["61FF 2"])
        #expect(try await Self.notes(fixture.copies[1].database) == ["61FF 2"])
    }
}
