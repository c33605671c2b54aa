import Foundation
import Testing

@testable import Bindery

/// A plain bulk insert's batches share one savepoint by up to ten, and run as `INSERT OR FAIL` where
/// the table's schema gives the same rows either way (`BulkInserter+Groups.swift`): a failure in any
/// batch of a group still names its record and stores nothing, and tables whose conflict clauses or
/// triggers an `OR FAIL` would overrule keep plain `INSERT` batches, also when another connection
/// changed the schema between two inserts.
@Suite struct BatchSavepointGroupTests {
    struct Entry: Record, Equatable {
        static let tableName = "entries"
        var id: Int64
        var code: String
    }

    static func entries(_ count: Int, from first: Int64 = 1) -> [Entry] {
        (0..<Int64(count)).map { Entry(id: first + $0, code: "c\(first + $0)") }
    }

    static func connection(_ schema: String = "") throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE entries (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE);" + schema)
        return conn
    }

    /// The multi-row INSERTs, SAVEPOINTs and RELEASEs that `body` started.
    static func batchStatements(_ conn: Connection, _ body: () throws -> Void) throws -> (
        inserts: [String], savepoints: Int, releases: Int
    ) {
        let log = try StatementLog.statements(conn, body)
        return (
            log.filter { $0.hasPrefix("INSERT") && $0.contains("), (") },
            log.filter { $0 == BulkInserter.openSavepoint }.count,
            log.filter { $0 == BulkInserter.releaseSavepoint }.count
        )
    }

    @Test func tenBatchesShareASavepointAndRunAsInsertOrFail() throws {
        let conn = try Self.connection()
        let seen = try Self.batchStatements(conn) {
            let inserted = try conn.insert(contentsOf: Self.entries(2_550))
            #expect(inserted == 2_550)
        }
        // 25 batches (the last 50 records one by one): three groups, of 10, 10 and 5 batches.
        #expect(seen.inserts.count == 25)
        #expect(seen.inserts.allSatisfy { $0.hasPrefix("INSERT OR FAIL INTO") })
        #expect(seen.savepoints == 3)
        #expect(seen.releases == 3)
        #expect(try conn.fetchAll(Entry.self, orderBy: "id") == Self.entries(2_550))
    }

    /// A failure in the tenth batch of the first group (record 950), in the first batch of the second
    /// (record 1,000) and in the last batch of the sequence (record 1,099): each named, nothing stored,
    /// a row of the caller's transaction kept.
    @Test(arguments: [950, 1_000, 1_099])
    func aFailureInAnyBatchOfAGroupIsNamed(_ failing: Int) throws {
        let conn = try Self.connection("INSERT INTO entries VALUES (900000, 'taken');")
        var records = Self.entries(1_100)
        records[failing].code = "taken"
        for policy in [ConflictPolicy.abort, .fail] {
            do {
                try conn.insert(contentsOf: records, onConflict: policy)
                Issue.record("the insert did not fail")
            } catch let error as SQLiteError {
                #expect(error.recordIndex == failing)
                #expect(error.code == .constraint)
                #expect(error.message.contains("entries.code"))
            }
            #expect(try conn.count(Entry.self) == 1)
            #expect(!conn.isInTransaction)
        }
        try conn.transaction { conn in
            try conn.insert(Entry(id: 900_001, code: "mine"))
            #expect(throws: SQLiteError.self) { try conn.insert(contentsOf: records) }
            #expect(try conn.count(Entry.self) == 2)
        }
        #expect(try conn.count(Entry.self) == 2)
        // The same records without the conflict, after the failures: stored whole.
        records[failing].code = "c\(failing + 1)"
        #expect(try conn.insert(contentsOf: records) == 1_100)
        #expect(try conn.count(Entry.self) == 1_102)
    }

    /// A column that ignores its conflicts: an `OR FAIL` batch would fail on a duplicate that the
    /// table's own `ON CONFLICT IGNORE` drops; the batches stay plain INSERTs and drop it, as one by one.
    @Test func aConflictClauseInTheSchemaKeepsPlainInserts() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: "CREATE TABLE entries (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE ON CONFLICT IGNORE)")
        var records = Self.entries(300)
        records[150].code = records[10].code
        let seen = try Self.batchStatements(conn) {
            let inserted = try conn.insert(contentsOf: records)
            #expect(inserted == 299)
        }
        #expect(!seen.inserts.isEmpty)
        #expect(seen.inserts.allSatisfy { $0.hasPrefix("INSERT INTO") })
        #expect(try conn.count(Entry.self) == 299)
        #expect(try conn.exists(Entry.self, id: 151) == false)
    }

    /// A trigger whose body ignores its own conflicts (`INSERT OR IGNORE`): the outer statement's `OR`
    /// clause would overrule it, so the batches stay plain INSERTs.
    static let ignoringTrigger = """
        CREATE TABLE seen (parity INTEGER PRIMARY KEY);
        CREATE TRIGGER note AFTER INSERT ON entries BEGIN
            INSERT OR IGNORE INTO seen VALUES (NEW.id % 2);
        END;
        """

    @Test func aTriggerKeepsPlainInserts() throws {
        let conn = try Self.connection(Self.ignoringTrigger)
        let seen = try Self.batchStatements(conn) {
            let inserted = try conn.insert(contentsOf: Self.entries(300))
            #expect(inserted == 300)
        }
        #expect(!seen.inserts.isEmpty)
        #expect(seen.inserts.allSatisfy { $0.hasPrefix("INSERT INTO") })
        #expect(try conn.fetchAll(Entry.self, orderBy: "id") == Self.entries(300))
    }

    /// The same trigger added by another connection between two inserts: the schema's version moved,
    /// so the second insert reads the schema again rather than keep `INSERT OR FAIL`.
    @Test func aTriggerAddedByAnotherConnectionIsSeen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        let conn = try Connection(path: path)
        try conn.execute(script: "CREATE TABLE entries (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE)")
        let first = try Self.batchStatements(conn) {
            let inserted = try conn.insert(contentsOf: Self.entries(300))
            #expect(inserted == 300)
        }
        #expect(first.inserts.allSatisfy { $0.hasPrefix("INSERT OR FAIL INTO") })

        let other = try Connection(path: path)
        try other.execute(script: Self.ignoringTrigger)
        other.close()

        let second = try Self.batchStatements(conn) {
            let inserted = try conn.insert(contentsOf: Self.entries(300, from: 1_001))
            #expect(inserted == 300)
        }
        #expect(!second.inserts.isEmpty)
        #expect(second.inserts.allSatisfy { $0.hasPrefix("INSERT INTO") })
        #expect(try conn.count(Entry.self) == 600)
        #expect(try Int(conn.rows("SELECT count(*) FROM seen", arguments: [])[0].values[0].description) == 2)
    }

    /// Failures SQLite reports otherwise than a conflict, inside `INSERT OR FAIL` batches: a foreign key
    /// (checked when the statement ends, which then rolls back on its own) and a STRICT table's type
    /// check (a row-level failure). Each names its record, and nothing of the call stays.
    @Test(arguments: ["foreign key", "strict"])
    func failuresOtherThanConflictsAreNamed(_ kind: String) throws {
        struct Child: Record {
            static let tableName = "children"
            var id: Int64
            var parent: String
        }
        let conn = try Connection.inMemory()
        if kind == "foreign key" {
            try conn.execute(
                script: "CREATE TABLE parents (code TEXT PRIMARY KEY); INSERT INTO parents VALUES ('p'); "
                    + "CREATE TABLE children (id INTEGER PRIMARY KEY, parent TEXT NOT NULL REFERENCES parents(code))")
        } else {
            try conn.execute(script: "CREATE TABLE children (id INTEGER PRIMARY KEY, parent INTEGER NOT NULL) STRICT")
        }
        let valid = kind == "foreign key" ? "p" : "7"
        var records = (0..<1_500).map { Child(id: Int64($0 + 1), parent: valid) }
        records[1_234].parent = "x"
        let seen = try Self.batchStatements(conn) {
            do {
                try conn.insert(contentsOf: records)
                Issue.record("the insert did not fail")
            } catch let error as SQLiteError {
                #expect(error.recordIndex == 1_234)
                #expect(error.code == .constraint)
            }
        }
        #expect(seen.inserts.allSatisfy { $0.hasPrefix("INSERT OR FAIL INTO") })
        #expect(try conn.rows("SELECT count(*) FROM children", arguments: [])[0].values[0] == .integer(0))
        records[1_234].parent = valid
        #expect(try conn.insert(contentsOf: records) == 1_500)
    }

    /// A trigger skipping rows (`RAISE(IGNORE)`) under batches that share savepoints: the count returned
    /// is of the rows stored, as one by one.
    @Test func rowsATriggerSkipsAreNotCounted() throws {
        let conn = try Self.connection(
            "CREATE TRIGGER skip BEFORE INSERT ON entries WHEN NEW.id % 7 = 0 BEGIN SELECT RAISE(IGNORE); END;")
        #expect(try conn.insert(contentsOf: Self.entries(2_100)) == 1_800)
        #expect(try conn.count(Entry.self) == 1_800)
        #expect(try conn.exists(Entry.self, id: 14) == false)
    }

    /// An upsert's batches share savepoints too, and stay upserts.
    @Test func upsertBatchesShareSavepoints() throws {
        let conn = try Self.connection()
        try conn.insert(contentsOf: Self.entries(500))
        let changed = Self.entries(2_000).map { Entry(id: $0.id, code: "u\($0.id)") }
        let seen = try Self.batchStatements(conn) { try conn.upsert(contentsOf: changed) }
        #expect(seen.inserts.count == 20)
        #expect(seen.inserts.allSatisfy { $0.hasPrefix("INSERT INTO") && $0.contains("ON CONFLICT") })
        #expect(seen.savepoints == 2)
        #expect(try conn.fetchAll(Entry.self, orderBy: "id") == changed)
    }
}
