import Foundation
import Testing

@testable import Bindery

/// `Database.Options.checkpointing`: the checkpoints SQLite and Bindery run on their own, on by default
/// and all off when they are left to a replicator.
@Suite struct CheckpointingTests {
    /// A connection's checkpoint settings.
    struct Settings: Equatable, Sendable {
        var autocheckpoint: Int
        var busyTimeout: Int
        var skipsCheckpointOnClose: Bool
    }

    static func settings(of conn: Connection) throws -> Settings {
        Settings(
            autocheckpoint: try conn.fetchOne(Int.self, sql: "PRAGMA wal_autocheckpoint") ?? -1,
            busyTimeout: try conn.fetchOne(Int.self, sql: "PRAGMA busy_timeout") ?? -1,
            skipsCheckpointOnClose: conn.skipsCheckpointOnClose)
    }

    /// The settings of the writer, then of every reader of `db` (each one borrowed from the pool).
    static func settingsOfEveryConnection(_ db: Database, readerCount: Int) async throws -> [Settings] {
        var all = [try await db.writeWithoutTransaction { conn in try settings(of: conn) }]
        let pool = try #require(db.readers)
        var borrowed: [ReaderConnection] = []
        for _ in 0..<readerCount {
            borrowed.append(try await pool.acquire())
        }
        for reader in borrowed {
            all.append(try await reader.perform(gate: InterruptGate(), transaction: nil) { try settings(of: $0) })
            pool.release(reader)
        }
        return all
    }

    /// Writes `rows` rows of 2000 bytes in one transaction: about `rows / 2` pages.
    static func writeBlobs(_ db: Database, rows: Int) async throws {
        try await db.write { conn in
            try conn.execute(script: "CREATE TABLE IF NOT EXISTS blobs(id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
            try conn.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                INSERT INTO blobs(data) SELECT randomblob(2000) FROM n
                """)
        }
    }

    /// The frames in the `-wal` file of the database at `path`, read by a connection that opens it
    /// afresh (and recovers the WAL): the second figure of `PRAGMA wal_checkpoint(PASSIVE)`.
    static func framesInWAL(_ path: String) throws -> Int {
        let conn = try Connection(path: path)
        defer { conn.close() }
        let row = try #require(try conn.rows("PRAGMA wal_checkpoint(PASSIVE)", arguments: []).first)
        return try row[1]
    }

    @Test func theDefaultLeavesSQLitesCheckpointsOn() async throws {
        #expect(Database.Options().checkpointing == .automatic)
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("default.sqlite").path
            let db = try Database(path: path, options: Database.Options(readerCount: 2))
            let settings = try await Self.settingsOfEveryConnection(db, readerCount: 2)
            #expect(
                settings
                    == Array(
                        repeating: Settings(autocheckpoint: 1000, busyTimeout: 5000, skipsCheckpointOnClose: false),
                        count: 3))
            try await Self.writeBlobs(db, rows: 3000)
            try await Self.writeBlobs(db, rows: 3000)
            try await db.close()
            // Closing checkpointed the WAL and removed it.
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test func leftToReplicatorTurnsOffAutomaticCheckpointsOnEveryConnection() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("replicated.sqlite").path
            let options = Database.Options(readerCount: 3, busyTimeout: 2.5, checkpointing: .leftToReplicator)
            let db = try Database(path: path, options: options)
            let settings = try await Self.settingsOfEveryConnection(db, readerCount: 3)
            let expected = Settings(autocheckpoint: 0, busyTimeout: 2500, skipsCheckpointOnClose: true)
            #expect(settings == Array(repeating: expected, count: 4))
            let mode = try await db.read { conn in try conn.fetchOne(String.self, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
            try await db.close()
        }
    }

    @Test func leftToReplicatorKeepsEveryFrameInTheWALAfterClose() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("replicated.sqlite").path
            let db = try Database(path: path, options: Database.Options(checkpointing: .leftToReplicator))
            // Two transactions of some 1500 pages each: SQLite's automatic checkpoint would have run
            // after the first, and the second would have started the WAL over.
            try await Self.writeBlobs(db, rows: 3000)
            try await Self.writeBlobs(db, rows: 3000)
            // A reader read last: SQLite's own close would then checkpoint and delete the WAL.
            #expect(
                try await db.read { conn in try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM blobs") } == 6000)
            try await db.close()
            let wal = try FileManager.default.attributesOfItem(atPath: path + "-wal")
            let walSize = try #require(wal[.size] as? Int)
            #expect(walSize > 3000 * 4096)
            // No checkpoint copied the pages into the database file, not even at close.
            let file = try FileManager.default.attributesOfItem(atPath: path)
            #expect(try #require(file[.size] as? Int) < 64 * 4096)
            #expect(try Self.framesInWAL(path) > 3000)

            // The next opening recovers every row from the WAL.
            let reopened = try Database(path: path, options: Database.Options(checkpointing: .leftToReplicator))
            let count = try await reopened.read { conn in try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM blobs")
            }
            #expect(count == 6000)
            try await reopened.close()
        }
    }

    @Test func leftToReplicatorNeedsWALMode() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("rollback.sqlite").path
            let options = Database.Options(journalMode: .delete, checkpointing: .leftToReplicator)
            let error = try #require(throws: SQLiteError.self) { try Database(path: path, options: options) }
            #expect(error.code == .misuse)
            #expect(error.message.contains("needs WAL mode"))
        }
    }

    @Test func anInMemoryDatabaseIgnoresIt() async throws {
        let db = try Database.inMemory(options: Database.Options(checkpointing: .leftToReplicator))
        try await db.write { conn in try conn.execute(script: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
        #expect(try await db.read { conn in try conn.fetchOne(Int.self, sql: "SELECT x FROM t") } == 1)
        try await db.close()
    }
}
