import Foundation
import Testing

@testable import Bindery

/// `update(contentsOf:)` through multi-row upserts: the rows as the records one by one leave them, a
/// key no row has found wherever it is in a batch (no row inserted), and no batch where the upsert and
/// the UPDATE could differ.
@Suite struct BulkUpdateBatchTests {
    typealias Item = BatchInsertTests.Item

    /// A row of `plain`, whose integer key is the rowid.
    struct Plain: Record, Equatable {
        static let tableName = "plain"
        var id: Int64
        var name: String
        var score: Int?
    }

    /// A row of `coded`, keyed by its text code (a UNIQUE column; the rowid is SQLite's).
    struct Coded: Record, Equatable {
        static let tableName = "coded"
        static let primaryKey = ["code"]
        var code: String
        var qty: Int
    }

    static func connection(_ extra: String = "") throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE plain (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER);
                CREATE TABLE coded (code TEXT NOT NULL UNIQUE, qty INTEGER NOT NULL);
                CREATE TABLE log (what TEXT);
                """ + extra)
        try conn.insert(contentsOf: (0..<300).map { Plain(id: Int64($0) * 3, name: "p\($0)", score: $0) })
        try conn.insert(contentsOf: (0..<300).map { Coded(code: "c\($0)", qty: $0) })
        return conn
    }

    static func plain(_ conn: Connection) throws -> [Plain] {
        try conn.fetchAll(Plain.self, orderBy: "id")
    }

    static func edits() -> [Plain] {
        (0..<300).map { n in Plain(id: Int64(n) * 3, name: "e\(n)", score: (100..<130).contains(n) ? nil : n * 7) }
    }

    /// `records` updated one by one in one transaction, on a connection made like `conn`'s.
    static func reference(_ records: [Plain], extra: String = "") throws -> [Plain] {
        let conn = try connection(extra)
        try conn.transaction { conn in
            for record in records { try conn.update(record) }
        }
        return try plain(conn)
    }

    @Test func batchesWriteWhatUpdatesOneByOneWrite() throws {
        let conn = try Self.connection()
        let mark = conn.recordContext.batchedRecordCount
        try conn.update(contentsOf: Self.edits())
        #expect(try Self.plain(conn) == Self.reference(Self.edits()))
        // The run of nil scores changes the shape twice: at least the first batch and those after it ran.
        #expect(conn.recordContext.batchedRecordCount - mark >= 100)
    }

    @Test func aKeyWithoutARowIsNotFoundWhereverItIsInABatch() throws {
        for position in [0, 57, 99, 150, 299] {
            let conn = try Self.connection()
            try conn.execute("INSERT INTO plain (id, name) VALUES (100000, 'marker')")
            let lastRowID = conn.lastInsertRowID
            let before = try Self.plain(conn)
            var records = Self.edits()
            records[position].id = 1  // no row: the keys are multiples of 3
            #expect(throws: RecordError.notFound(table: "plain", key: ["id": .integer(1)])) {
                try conn.update(contentsOf: records)
            }
            #expect(try Self.plain(conn) == before)
            #expect(conn.lastInsertRowID == lastRowID)
            #expect(!conn.isInTransaction)
        }
    }

    @Test func theLastInsertedRowidIsLeftAsItWas() throws {
        let conn = try Self.connection()
        try conn.execute("INSERT INTO plain (id, name) VALUES (123456, 'marker')")
        let mark = conn.recordContext.batchedRecordCount
        try conn.update(contentsOf: Self.edits())
        #expect(conn.recordContext.batchedRecordCount > mark)
        #expect(conn.lastInsertRowID == 123_456)
    }

    /// The lowest rowid is the value a batch watches for: a record with that key is updated one by one,
    /// so that a missing one is found and an existing one is updated.
    @Test func theLowestRowidIsNeverLeftToABatch() throws {
        let conn = try Self.connection()
        var records = Self.edits()
        records[50].id = Int64.min
        #expect(throws: RecordError.notFound(table: "plain", key: ["id": .integer(Int64.min)])) {
            try conn.update(contentsOf: records)
        }
        #expect(try conn.count(Plain.self) == 300)
        try conn.insert(Plain(id: Int64.min, name: "lowest", score: 1))
        records[50].name = "updated"
        try conn.update(contentsOf: records)
        #expect(try conn.find(Plain.self, id: Int64.min) == records[50])
        #expect(try conn.count(Plain.self) == 301)
    }

    /// The same key twice in one batch: the later record wins, as one by one.
    @Test func aKeyTwiceInABatchEndsAsTheLaterRecord() throws {
        var records = Self.edits()
        records[40] = Plain(id: 30, name: "twice", score: 40)  // record 10 has id 30 too
        let conn = try Self.connection()
        try conn.update(contentsOf: records)
        #expect(try Self.plain(conn) == Self.reference(records))
        #expect(try conn.find(Plain.self, id: 30)?.name == "twice")
    }

    /// A key that is not the rowid: a missing one would be inserted with a rowid of SQLite's, which the
    /// batch sees.
    @Test func aTextKeyWithoutARowIsNotFound() throws {
        let conn = try Self.connection()
        let mark = conn.recordContext.batchedRecordCount
        var records = (0..<300).map { Coded(code: "c\($0)", qty: $0 + 1) }
        try conn.update(contentsOf: records)
        #expect(conn.recordContext.batchedRecordCount - mark == 300)
        #expect(try conn.fetchAll(Coded.self, orderBy: "rowid") == records)
        records[120].code = "nowhere"
        #expect(throws: RecordError.notFound(table: "coded", key: ["code": .text("nowhere")])) {
            try conn.update(contentsOf: records.map { Coded(code: $0.code, qty: 0) })
        }
        #expect(try conn.count(Coded.self) == 300)
        #expect(try conn.fetchAll(Coded.self, orderBy: "rowid").allSatisfy { $0.qty > 0 })
    }

    /// An INSERT trigger would fire for an upsert: a table with one is updated one record at a time.
    @Test func aTableWithATriggerIsUpdatedOneByOne() throws {
        let triggers = """
            CREATE TRIGGER plain_inserting BEFORE INSERT ON plain BEGIN INSERT INTO log VALUES ('insert'); END;
            CREATE TRIGGER plain_updated AFTER UPDATE ON plain BEGIN INSERT INTO log VALUES ('update'); END;
            """
        let conn = try Self.connection(triggers)
        try conn.execute("DELETE FROM log")
        let mark = conn.recordContext.batchedRecordCount
        try conn.update(contentsOf: Self.edits())
        #expect(conn.recordContext.batchedRecordCount == mark)
        #expect(try Self.plain(conn) == Self.reference(Self.edits(), extra: triggers))
        let log = try conn.rows("SELECT what, count(*) FROM log GROUP BY what", arguments: []).map(\.values)
        #expect(log == [[.text("update"), .integer(300)]])
    }

    /// A constraint's own conflict clause could resolve the upsert's INSERT otherwise: no batch.
    @Test func aTableWithAConflictClauseIsUpdatedOneByOne() throws {
        let replacing =
            "CREATE TABLE replacing (id INTEGER PRIMARY KEY, name TEXT UNIQUE ON CONFLICT REPLACE, score INTEGER);"
        let conn = try Self.connection(replacing)
        try conn.execute("INSERT INTO replacing SELECT id, name, score FROM plain")
        struct Replacing: Record, Equatable {
            static let tableName = "replacing"
            var id: Int64
            var name: String
            var score: Int?
        }
        // Record 20 takes record 10's name: the UPDATE replaces (deletes) row 10.
        var records = (0..<300).map { Replacing(id: Int64($0) * 3, name: "r\($0)", score: $0) }
        records[20].name = "r10"
        let mark = conn.recordContext.batchedRecordCount
        try conn.update(contentsOf: records)
        #expect(conn.recordContext.batchedRecordCount == mark)
        let stored = try conn.fetchAll(Replacing.self, orderBy: "id")
        #expect(stored.count == 299)
        #expect(stored.first { $0.id == 30 } == nil)
        #expect(stored.first { $0.id == 60 }?.name == "r10")
    }

    /// What the upsert checks and the UPDATE does not (a NOT NULL column the record leaves out, a key
    /// that is no UNIQUE constraint) only sends the records one by one.
    @Test func whatOnlyTheUpsertRefusesGoesOneByOne() throws {
        let conn = try Self.connection()
        // `extra` is NOT NULL without a default and no record sets it: the upsert's INSERT of each row
        // fails that check, which the UPDATE of an existing row does not make.
        try conn.execute(
            script: """
                CREATE TABLE strict_plain (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER, extra TEXT NOT NULL);
                INSERT INTO strict_plain SELECT id, name, score, 'x' FROM plain;
                """)
        struct StrictPlain: Record, Equatable {
            static let tableName = "strict_plain"
            var id: Int64
            var name: String
            var score: Int?
        }
        let records = (0..<300).map { StrictPlain(id: Int64($0) * 3, name: "s\($0)", score: $0 + 1) }
        let mark = conn.recordContext.batchedRecordCount
        try conn.update(contentsOf: records)
        #expect(conn.recordContext.batchedRecordCount == mark)
        #expect(try conn.fetchAll(StrictPlain.self, orderBy: "id") == records)
        let extras = try conn.rows("SELECT DISTINCT extra FROM strict_plain", arguments: []).map(\.values)
        #expect(extras == [[.text("x")]])

        // Keyed by `name`, which is not unique: the upsert cannot be prepared, and the UPDATE sets
        // every row with the name.
        struct ByName: Record {
            static let tableName = "plain"
            static let primaryKey = ["name"]
            var name: String
            var score: Int?
        }
        try conn.execute("UPDATE plain SET name = 'same' WHERE id < 30")
        try conn.update(
            contentsOf: [ByName(name: "same", score: -5)] + (100..<250).map { ByName(name: "p\($0)", score: -$0) })
        #expect(try conn.count(Plain.self, where: "score = -5") == 10)
        #expect(try conn.find(Plain.self, id: 300)?.score == -100)
    }

    /// A change recorder (the sync layer's capture) sees each batched row as an update, and nothing of
    /// a batch rolled back: its changeset makes a copy equal to the source.
    @Test func aChangeRecorderSeesWhatTheBatchesChanged() throws {
        struct Synced: Record, Equatable {
            static let tableName = "synced"
            var id: String
            var qty: Int
        }
        let schema = "CREATE TABLE synced (id TEXT PRIMARY KEY, qty INTEGER NOT NULL);"
        let rows = (0..<300).map { Synced(id: "s\($0)", qty: $0) }
        let source = try Self.connection(schema)
        let copy = try Self.connection(schema)
        try source.insert(contentsOf: rows)
        try copy.insert(contentsOf: rows)
        let recorder = try source.openChangeRecorder(tables: ["synced"])
        let edits = rows.map { Synced(id: $0.id, qty: $0.qty * 2 + 1) }
        let mark = source.recordContext.batchedRecordCount
        let bytes = try source.transaction { conn in
            var missing = edits
            missing[150].id = "nowhere"
            #expect(throws: RecordError.self) { try conn.update(contentsOf: missing) }
            try conn.update(contentsOf: edits)
            return try ChangeRecorderTests.changeset(recorder, on: conn)
        }
        #expect(source.recordContext.batchedRecordCount - mark >= 300)
        try copy.transaction { conn in
            try conn.applyChangeset(bytes) { conflict in
                Issue.record("conflict \(conflict)")
                return .abort
            }
        }
        #expect(try copy.fetchAll(Synced.self, orderBy: "id") == source.fetchAll(Synced.self, orderBy: "id"))
        #expect(try source.fetchAll(Synced.self, orderBy: "rowid") == edits)
    }

    /// A unique index whose collation is not its column's matches keys the UPDATE's `WHERE` does not:
    /// no batch, and a key that differs only in case is not found, as one by one.
    @Test func aUniqueIndexWithItsOwnCollationIsUpdatedOneByOne() throws {
        struct User: Record, Equatable {
            static let tableName = "users"
            static let primaryKey = ["email"]
            var email: String
            var n: Int
        }
        let conn = try Self.connection(
            "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, n INTEGER); "
                + "CREATE UNIQUE INDEX users_email ON users (email COLLATE NOCASE);")
        let users = (0..<200).map { User(email: "user\($0)@x.com", n: $0) }
        try conn.insert(contentsOf: users)
        var edits = users.map { User(email: $0.email, n: -$0.n) }
        edits[120].email = "USER120@x.com"
        let mark = conn.recordContext.batchedRecordCount
        #expect(throws: RecordError.notFound(table: "users", key: ["email": .text("USER120@x.com")])) {
            try conn.update(contentsOf: edits)
        }
        #expect(conn.recordContext.batchedRecordCount == mark)
        #expect(try conn.fetchAll(User.self, orderBy: "id") == users)
    }

    /// The upsert's INSERT would move an AUTOINCREMENT table's sequence on: no batch.
    @Test func anAutoincrementTableKeepsItsSequence() throws {
        struct Counter: Record, Equatable {
            static let tableName = "counters"
            static let primaryKey = ["code"]
            var code: String
            var n: Int
        }
        let conn = try Self.connection(
            "CREATE TABLE counters (id INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT UNIQUE, n INTEGER);")
        try conn.insert(contentsOf: (0..<200).map { Counter(code: "k\($0)", n: $0) })
        let sequence = "SELECT seq FROM sqlite_sequence WHERE name = 'counters'"
        let before = try conn.rows(sequence, arguments: []).map(\.values)
        let edits = (0..<200).map { Counter(code: "k\($0)", n: $0 * 2) }
        try conn.update(contentsOf: edits)
        #expect(try conn.rows(sequence, arguments: []).map(\.values) == before)
        #expect(try conn.fetchAll(Counter.self, orderBy: "id") == edits)
    }

    /// A conflict clause in lower case is found whatever `LIKE` does on the connection: the upsert's
    /// INSERT would hit this NOT NULL and roll the whole transaction back, where the UPDATE succeeds.
    @Test func aConflictClauseIsFoundInAnyCase() throws {
        let conn = try Self.connection(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, name TEXT, "
                + "extra TEXT not null on conflict rollback DEFAULT NULL); PRAGMA case_sensitive_like = ON;")
        struct Note: Record, Equatable {
            static let tableName = "notes"
            var id: Int64
            var name: String
        }
        try conn.execute("INSERT INTO notes SELECT id, name, 'x' FROM plain")
        let edits = (0..<300).map { Note(id: Int64($0) * 3, name: "n\($0)") }
        try conn.transaction { conn in
            try conn.update(contentsOf: edits)
        }
        #expect(try conn.fetchAll(Note.self, orderBy: "id") == edits)
    }

    /// An integer key for a REAL column: the INSERT would store it as the nearest REAL and find the row
    /// of another key, which the UPDATE's comparison does not.
    @Test func aRealKeyColumnIsUpdatedOneByOne() throws {
        struct Reading: Record, Equatable {
            static let tableName = "readings"
            static let primaryKey = ["k"]
            var k: Int64
            var n: Int
        }
        let conn = try Self.connection("CREATE TABLE readings (k REAL UNIQUE, n INTEGER);")
        let base: Int64 = 9_007_199_254_740_992
        try conn.insert(contentsOf: (0..<150).map { Reading(k: base + Int64($0) * 2, n: $0) })
        var edits = (0..<150).map { Reading(k: base + Int64($0) * 2, n: -$0) }
        edits[0].k = base + 1  // 2^53 + 1 is no REAL: stored, it would be 2^53
        #expect(throws: RecordError.notFound(table: "readings", key: ["k": .integer(base + 1)])) {
            try conn.update(contentsOf: edits)
        }
        #expect(try conn.count(Reading.self, where: "n < 0") == 0)
    }

    /// An observation of the table sees a batched update as any other write, once.
    @Test(arguments: ObservationTestSupport.Storage.allCases)
    func anObservationSeesABatchedUpdate(storage: ObservationTestSupport.Storage) async throws {
        struct Student: Record {
            static let tableName = "students"
            var id: Int64
            var name: String
            var year: Int
        }
        try await ObservationTestSupport.withDatabase(storage) { db in
            let students = (0..<250).map { Student(id: Int64($0), name: "s\($0)", year: 2024) }
            try await db.write { conn in try conn.insert(contentsOf: students) }
            var years = db.observe { conn in
                try conn.fetchAll(Int.self, sql: "SELECT DISTINCT year FROM students ORDER BY year")
            }.makeAsyncIterator()
            #expect(try await years.next() == [2024])
            let batched = try await db.write { conn in
                let mark = conn.recordContext.batchedRecordCount
                try conn.update(contentsOf: students.map { Student(id: $0.id, name: $0.name, year: 2025) })
                return conn.recordContext.batchedRecordCount - mark
            }
            #expect(batched == 200)
            #expect(try await years.next() == [2025])
        }
    }
}
