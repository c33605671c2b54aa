import Foundation
import Testing

@testable import Bindery

/// The tables a write statement changes are learned from SQLite's authorizer while the statement is
/// prepared, and were given to the next statement that *started*: a bulk insert prepares its batch
/// statement, then reads the schema (`PRAGMA schema_version`, the table's columns) before running it,
/// and those reads took the batch's tables and dropped them. Writes to a `WITHOUT ROWID` table, which
/// the update hook never reports, then woke no observation: `insert(contentsOf:)` of 150 rows into
/// such a table (after one `insert`), or into a table whose trigger writes one, committed with no table
/// changed.
@Suite struct ObservedWritesPreparedEarlyTests {
    struct Tag: Record, Equatable {
        static let tableName = "tags"
        static let primaryKey = ["code"]
        var code: String
        var n: Int
    }

    struct Entry: Record, Equatable {
        static let tableName = "entries"
        var id: Int64?
        var n: Int
    }

    private static func tracked(_ schema: String) throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: schema)
        conn.startTrackingChanges()
        _ = conn.takeCommittedChanges()
        return conn
    }

    @Test func aBulkInsertIntoAWithoutRowidTableIsSeen() throws {
        let conn = try Self.tracked("CREATE TABLE tags(code TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;")
        try conn.insert(Tag(code: "first", n: 0))
        #expect(conn.takeCommittedChanges().contains("tags"))
        try conn.insert(contentsOf: (0..<150).map { Tag(code: "a\($0)", n: $0) })
        #expect(conn.takeCommittedChanges().contains("tags"))
        // Again, with the batch statement cached.
        try conn.insert(contentsOf: (0..<150).map { Tag(code: "b\($0)", n: $0) })
        #expect(conn.takeCommittedChanges().contains("tags"))
        #expect(try conn.count(Tag.self) == 301)
    }

    @Test func aBulkInsertWhoseTriggerWritesAWithoutRowidTableIsSeen() throws {
        let conn = try Self.tracked(
            """
            CREATE TABLE entries(id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
            CREATE TABLE log(k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;
            CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
                INSERT OR REPLACE INTO log VALUES ('e' || new.id, new.n);
            END;
            """)
        try conn.insert(Entry(id: nil, n: -1))
        #expect(conn.takeCommittedChanges().contains("log"))
        try conn.insert(contentsOf: (0..<150).map { Entry(id: nil, n: $0) })
        let changed = conn.takeCommittedChanges()
        #expect(changed.contains("entries"))
        #expect(changed.contains("log"))
    }

    /// A write statement prepared and left unrun (a batch a record of another shape ended) keeps its
    /// tables for when it runs later from the cache.
    @Test func aWriteStatementPreparedBeforeAnotherRunsKeepsItsTables() throws {
        let conn = try Self.tracked(
            """
            CREATE TABLE tags(code TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE other(id INTEGER PRIMARY KEY);
            """)
        let sql = "INSERT INTO tags VALUES (?, ?)"
        // Prepared (and cached) first, run after another write statement ran.
        try conn.withStatement(sql) { _ in }
        try conn.execute("INSERT INTO other VALUES (1)")
        #expect(conn.takeCommittedChanges().contains("other"))
        try conn.execute(sql, arguments: [.text("x"), .integer(1)])
        #expect(conn.takeCommittedChanges().contains("tags"))
    }

    /// What a user saw: on a database with readers (whose observations do not run on the writer, and so
    /// never made it prepare its statements again), an observation of a table that an insert trigger
    /// writes never woke after a bulk insert.
    @Test(.timeLimit(.minutes(1))) func anObservationWakesAfterABulkInsert() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let db = try Database(
                path: directory.appendingPathComponent("log.sqlite").path, options: Database.Options(readerCount: 2))
            try await db.write { conn in
                try conn.execute(
                    script: """
                        CREATE TABLE entries(id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
                        CREATE TABLE log(k TEXT PRIMARY KEY, v INTEGER) WITHOUT ROWID;
                        CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
                            INSERT OR REPLACE INTO log VALUES ('e' || new.id, new.n);
                        END;
                        """)
            }
            var values = db.observe { conn in try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM log") ?? -1 }
                .makeAsyncIterator()
            #expect(try await values.next() == 0)
            try await db.insert(Entry(id: nil, n: 0))
            #expect(try await values.next() == 1)
            try await db.insert(contentsOf: (1..<151).map { Entry(id: nil, n: $0) })
            // The next value, or nil when none came within two seconds (the iteration is then cancelled).
            let next = Task { try await values.next() }
            try await Task.sleep(nanoseconds: 2_000_000_000)
            next.cancel()
            #expect(try await next.value == 151)
            try await db.close()
        }
    }
}
