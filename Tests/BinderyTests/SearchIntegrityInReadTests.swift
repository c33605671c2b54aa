import Foundation
import Testing

@testable import Bindery

/// `checkIntegrity(searchTable:)` inside a read: SQLite runs FTS5's integrity-check as a write, so a
/// read refuses it; the error says it needs a write (it said only "attempt to write a readonly
/// database"), and inside a write it runs.
@Suite struct SearchIntegrityInReadTests {
    static func makeSearchTable(_ db: Database) async throws {
        try await db.write { conn in
            try conn.execute(script: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            try conn.create(searchTable: "notes_fts", on: "notes", columns: ["body"])
            try conn.execute("INSERT INTO notes(body) VALUES (\("milk and bread"))")
        }
    }

    static func expectItNeedsAWrite(_ db: Database) async throws {
        do {
            try await db.read { conn in try conn.checkIntegrity(searchTable: "notes_fts") }
            Issue.record("checkIntegrity ran inside a read")
        } catch let error as SQLiteError {
            #expect(error.code == .readOnly)
            #expect(
                error.message.contains(
                    "checkIntegrity(searchTable: notes_fts) runs FTS5's integrity-check command, which SQLite counts "
                        + "as a write although it changes nothing: call it inside Database.write"))
        }
        try await db.write { conn in try conn.checkIntegrity(searchTable: "notes_fts") }
    }

    @Test func onAReaderConnection() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("search.sqlite").path
            let db = try Database(path: path, options: Database.Options(schemaTrust: .trustedSchema))
            try await Self.makeSearchTable(db)
            try await Self.expectItNeedsAWrite(db)
            try await db.close()
        }
    }

    @Test func onTheWriterInARead() async throws {
        let db = try Database.inMemory(options: Database.Options(schemaTrust: .trustedSchema))
        try await Self.makeSearchTable(db)
        try await Self.expectItNeedsAWrite(db)
    }
}
