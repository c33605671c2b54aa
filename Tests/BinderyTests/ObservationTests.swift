import Foundation
import Testing

@testable import Bindery

/// Support for the observation tests: databases with a small schema, and a thread-safe counter.
enum ObservationTestSupport {
    /// Where a test database lives.
    enum Storage: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// A file in a fresh directory, in WAL mode with reader connections.
        case file
        /// A private in-memory database, where reads take turns with writes on one connection.
        case memory

        var testDescription: String { rawValue }
    }

    /// The tables every test database starts with: `enrollments` joins `students` and `courses`;
    /// `tags` is a `WITHOUT ROWID` table, which SQLite's update hook does not report.
    static let schema = """
        CREATE TABLE students(id INTEGER PRIMARY KEY, name TEXT NOT NULL, year INTEGER NOT NULL DEFAULT 2024);
        CREATE TABLE courses(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
        CREATE TABLE enrollments(student_id INTEGER NOT NULL, course_id INTEGER NOT NULL);
        CREATE TABLE tags(name TEXT PRIMARY KEY, uses INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
        CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """

    /// Runs `body` with a database of `storage` holding ``schema``, closed (and removed) afterwards.
    static func withDatabase<T>(
        _ storage: Storage, readerCount: Int = 4, _ body: (Database) async throws -> T
    ) async throws -> T {
        switch storage {
        case .memory:
            let db = try Database.inMemory()
            return try await run(db, body)
        case .file:
            return try await DatabaseTestSupport.withDirectory { directory in
                let path = directory.appendingPathComponent("db.sqlite").path
                let db = try Database(path: path, options: Database.Options(readerCount: readerCount))
                #expect(db.hasReaders == (readerCount > 0))
                return try await run(db, body)
            }
        }
    }

    private static func run<T>(_ db: Database, _ body: (Database) async throws -> T) async throws -> T {
        try await DatabaseTestSupport.closing(db) { db in
            try await db.writeWithoutTransaction { conn in try conn.execute(script: schema) }
            return try await body(db)
        }
    }

    /// Waits, without a deadline of its own, until the database has no live observation; the suites'
    /// time limits end a test that would wait forever.
    static func waitForNoObservation(in db: Database) async throws {
        while db.observationRegistry.count > 0 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    /// A counter that tasks on any thread can bump and read.
    final class Counter: @unchecked Sendable {
        // @unchecked Sendable is safe: `count` is read and written only while `lock` is held.
        private let lock = NSLock()
        private var count = 0

        var value: Int { lock.withLock { count } }

        @discardableResult
        func increment() -> Int {
            lock.withLock {
                count += 1
                return count
            }
        }
    }

    struct Boom: Error, Equatable {}
}

@Suite(.timeLimit(.minutes(1)))
struct ObservationTests {
    typealias Support = ObservationTestSupport
    typealias Storage = ObservationTestSupport.Storage

    private static func names(_ conn: Connection) throws -> [String] {
        try conn.fetchAll(String.self, sql: "SELECT name FROM students ORDER BY id")
    }

    private static func count(_ conn: Connection, _ table: String) throws -> Int {
        try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM \(identifier: table)") ?? -1
    }

    // MARK: Observing one table

    @Test(arguments: Storage.allCases)
    func insertUpdateAndDeleteEachEmitOnceInOrder(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            let runs = Support.Counter()
            var values = db.observe { conn in
                runs.increment()
                return try Self.names(conn)
            }.makeAsyncIterator()
            #expect(try await values.next() == [])

            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Ana"))") }
            #expect(try await values.next() == ["Ana"])
            try await db.write { conn in try conn.execute("UPDATE students SET name = \("Bea")") }
            #expect(try await values.next() == ["Bea"])
            try await db.write { conn in try conn.execute("DELETE FROM students WHERE name = \("Bea")") }
            #expect(try await values.next() == [])
            #expect(runs.value == 4)

            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Cy"))") }
            #expect(try await values.next() == ["Cy"])
            #expect(runs.value == 5)
        }
    }

    @Test(arguments: Storage.allCases)
    func writesToOtherTablesEmitNothing(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            var counts = db.observe { conn in try Self.count(conn, "students") }.makeAsyncIterator()
            #expect(try await counts.next() == 0)

            try await db.write { conn in try conn.execute("INSERT INTO courses(title) VALUES (\("Math"))") }
            try await db.write { conn in try conn.execute("INSERT INTO tags(name) VALUES (\("new"))") }
            try await db.writeWithoutTransaction { conn in
                try conn.execute("INSERT INTO courses(title) VALUES (\("Art"))")
            }
            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Ana"))") }
            #expect(try await counts.next() == 1)
        }
    }

    @Test(arguments: Storage.allCases)
    func rolledBackWritesEmitNothing(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            var counts = db.observe { conn in try Self.count(conn, "students") }.makeAsyncIterator()
            #expect(try await counts.next() == 0)

            await #expect(throws: Support.Boom.self) {
                try await db.write { conn in
                    try conn.execute("INSERT INTO students(name) VALUES (\("Ghost"))")
                    throw Support.Boom()
                }
            }
            try await db.writeWithoutTransaction { conn in
                try conn.execute(script: "BEGIN; INSERT INTO students(name) VALUES ('Ghost'); ROLLBACK")
            }
            // A constraint error in the middle of a transaction rolls everything back too.
            await #expect(throws: SQLiteError.self) {
                try await db.write { conn in
                    try conn.execute("INSERT INTO students(name) VALUES (\("Ghost"))")
                    try conn.execute("INSERT INTO students(id, name) VALUES (1, \("Twin"))")
                    try conn.execute("INSERT INTO students(id, name) VALUES (1, \("Twin"))")
                }
            }
            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Ana"))") }
            #expect(try await counts.next() == 1)
        }
    }

    @Test(arguments: Storage.allCases)
    func aJoinEmitsWhenEitherTableChanges(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            try await db.write { conn in
                try conn.execute(
                    script: """
                        INSERT INTO students(id, name) VALUES (1, 'Ana');
                        INSERT INTO courses(id, title) VALUES (1, 'Math');
                        INSERT INTO enrollments VALUES (1, 1);
                        """)
            }
            var pairs = db.observe { conn in
                try conn.rows(
                    """
                    SELECT s.name, c.title FROM enrollments e
                    JOIN students s ON s.id = e.student_id JOIN courses c ON c.id = e.course_id
                    """, arguments: []
                ).map { row in "\(try row[0] as String)/\(try row[1] as String)" }
            }.makeAsyncIterator()
            #expect(try await pairs.next() == ["Ana/Math"])

            try await db.write { conn in try conn.execute("UPDATE students SET name = \("Bea")") }
            #expect(try await pairs.next() == ["Bea/Math"])
            try await db.write { conn in try conn.execute("UPDATE courses SET title = \("Art")") }
            #expect(try await pairs.next() == ["Bea/Art"])
            try await db.write { conn in try conn.execute("INSERT INTO tags(name) VALUES (\("unrelated"))") }
            try await db.write { conn in try conn.execute("DELETE FROM enrollments WHERE 1") }
            #expect(try await pairs.next() == [])
        }
    }

    @Test(arguments: Storage.allCases)
    func viewsAreObservedThroughTheirTables(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            try await db.writeWithoutTransaction { conn in
                try conn.execute(script: "CREATE VIEW recent AS SELECT name FROM students WHERE year >= 2020")
            }
            var names = db.observe { conn in
                try conn.fetchAll(String.self, sql: "SELECT name FROM recent ORDER BY name")
            }.makeAsyncIterator()
            #expect(try await names.next() == [])
            try await db.write { conn in try conn.execute("INSERT INTO courses(title) VALUES (\("Math"))") }
            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Ana"))") }
            #expect(try await names.next() == ["Ana"])
        }
    }

    @Test(arguments: Storage.allCases)
    func deleteWithoutWhereIsObserved(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            try await db.write { conn in
                try conn.execute(script: "INSERT INTO students(name) VALUES ('Ana'), ('Bea'), ('Cy')")
            }
            var counts = db.observe { conn in try Self.count(conn, "students") }.makeAsyncIterator()
            #expect(try await counts.next() == 3)
            try await db.write { conn in try conn.execute(script: "DELETE FROM students") }
            #expect(try await counts.next() == 0)
            // Run through the statement cache as well: the second time, the statement is not prepared.
            for name in ["Dan", "Eve"] {
                try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\(name))") }
                #expect(try await counts.next() == 1)
                try await db.write { conn in try conn.execute("DELETE FROM students") }
                #expect(try await counts.next() == 0)
            }
        }
    }

    @Test(arguments: Storage.allCases)
    func withoutRowidTablesAreObserved(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            var tags = db.observe { conn in
                try conn.fetchAll(String.self, sql: "SELECT name || ':' || uses FROM tags ORDER BY name")
            }.makeAsyncIterator()
            #expect(try await tags.next() == [])
            // Each statement twice, so that the second run comes from the statement cache.
            for round in 1...2 {
                try await db.write { conn in try conn.execute("INSERT INTO tags(name) VALUES (\("swift"))") }
                #expect(try await tags.next() == ["swift:0"])
                try await db.write { conn in try conn.execute("UPDATE tags SET uses = uses + \(round)") }
                #expect(try await tags.next() == ["swift:\(round)"])
                try await db.write { conn in try conn.execute("DELETE FROM tags WHERE name = \("swift")") }
                #expect(try await tags.next() == [])
            }
        }
    }

    // MARK: Regions

    @Test(arguments: Storage.allCases)
    func theRegionFollowsWhatTheQueryReadLastTime(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            try await db.write { conn in try conn.execute(script: "INSERT INTO settings VALUES ('source', 'students')")
            }
            var counts = db.observe { conn in
                let source = try conn.fetchOne(String.self, sql: "SELECT value FROM settings WHERE key = 'source'")
                return try Self.count(conn, source ?? "students")
            }.makeAsyncIterator()
            #expect(try await counts.next() == 0)

            try await db.write { conn in try conn.execute("INSERT INTO courses(title) VALUES (\("Math"))") }
            try await db.write { conn in try conn.execute("UPDATE settings SET value = \("courses")") }
            #expect(try await counts.next() == 1)
            // Now the query reads `courses`, no longer `students`.
            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Ana"))") }
            try await db.write { conn in try conn.execute("INSERT INTO courses(title) VALUES (\("Art"))") }
            #expect(try await counts.next() == 2)
        }
    }

    // MARK: Ending

    @Test(arguments: Storage.allCases)
    func cancellingTheConsumerStopsTheQueryRuns(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            let runs = Support.Counter()
            let (started, startedContinuation) = AsyncStream.makeStream(of: Int.self)
            let consumer = Task {
                for try await count in db.observe({ conn in
                    runs.increment()
                    return try Self.count(conn, "students")
                }) {
                    startedContinuation.yield(count)
                }
            }
            var firstValues = started.makeAsyncIterator()
            #expect(await firstValues.next() == 0)
            consumer.cancel()
            _ = await consumer.result
            try await Support.waitForNoObservation(in: db)
            let runsWhenCancelled = runs.value

            for name in ["Ana", "Bea", "Cy"] {
                try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\(name))") }
            }
            // Another observation of the same table sees the writes; the cancelled one ran no more.
            var witness = db.observe { conn in try Self.count(conn, "students") }.makeAsyncIterator()
            #expect(try await witness.next() == 3)
            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Dan"))") }
            #expect(try await witness.next() == 4)
            #expect(runs.value == runsWhenCancelled)
        }
    }

    @Test(arguments: Storage.allCases)
    func breakingOutOfTheLoopReleasesTheObservation(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            let runs = Support.Counter()
            for try await count in db.observe({ conn in
                runs.increment()
                return try Self.count(conn, "students")
            }) {
                #expect(count == 0)
                break
            }
            try await Support.waitForNoObservation(in: db)
            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Ana"))") }
            var witness = db.observe { conn in try Self.count(conn, "students") }.makeAsyncIterator()
            #expect(try await witness.next() == 1)
            #expect(runs.value == 1)
        }
    }

    @Test(arguments: Storage.allCases)
    func anErrorThrownByTheQueryEndsTheStream(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            let runs = Support.Counter()
            var counts = db.observe { conn in
                if runs.increment() == 2 {
                    throw Support.Boom()
                }
                return try Self.count(conn, "students")
            }.makeAsyncIterator()
            #expect(try await counts.next() == 0)
            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Ana"))") }
            await #expect(throws: Support.Boom.self) {
                _ = try await counts.next()
            }
            #expect(try await counts.next() == nil)
            try await Support.waitForNoObservation(in: db)
            #expect(runs.value == 2)
        }
    }

    @Test(arguments: Storage.allCases)
    func aFailingFirstRunEndsTheStreamWithSQLitesError(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db async throws in
            var values = db.observe { conn in try Self.count(conn, "missing") }.makeAsyncIterator()
            let error = await #expect(throws: SQLiteError.self) {
                _ = try await values.next()
            }
            #expect(error?.message.contains("missing") == true)
            #expect(try await values.next() == nil)
        }
    }

    // MARK: Duplicates and external changes

    @Test(arguments: Storage.allCases)
    func removeDuplicatesSkipsEqualResults(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db in
            let recent = db.observe { conn in
                try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM students WHERE year >= 2020") ?? 0
            }
            var all = recent.makeAsyncIterator()
            var distinct = recent.removeDuplicates().makeAsyncIterator()
            #expect(try await all.next() == 0)
            #expect(try await distinct.next() == 0)

            try await db.write { conn in try conn.execute("INSERT INTO students(name, year) VALUES ('Old', 1990)") }
            #expect(try await all.next() == 0)
            try await db.write { conn in try conn.execute("INSERT INTO students(name, year) VALUES ('New', 2024)") }
            #expect(try await all.next() == 1)
            #expect(try await distinct.next() == 1)
        }
    }

    @Test func removeDuplicatesByAPredicate() async throws {
        try await Support.withDatabase(.memory) { db in
            var names = db.observe { conn in try Self.names(conn) }
                .removeDuplicates { $0.count == $1.count }
                .makeAsyncIterator()
            #expect(try await names.next() == [])
            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Ana"))") }
            #expect(try await names.next() == ["Ana"])
            try await db.write { conn in try conn.execute("UPDATE students SET name = \("Bea")") }
            try await db.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Cy"))") }
            #expect(try await names.next() == ["Bea", "Cy"])
        }
    }

    @Test(arguments: Storage.allCases)
    func notifyExternalChangeRunsEveryObservationAgain(storage: Storage) async throws {
        try await Support.withDatabase(storage) { db async throws in
            let runs = Support.Counter()
            var counts = db.observe { conn in
                runs.increment()
                return try Self.count(conn, "students")
            }.makeAsyncIterator()
            var courses = db.observe { conn in try Self.count(conn, "courses") }.makeAsyncIterator()
            #expect(try await counts.next() == 0)
            #expect(try await courses.next() == 0)
            db.notifyExternalChange()
            #expect(try await counts.next() == 0)
            #expect(try await courses.next() == 0)
            #expect(runs.value == 2)
        }
    }

    @Test func changesThroughAnotherDatabaseNeedNotifyExternalChange() async throws {
        try await Support.withDatabase(.file) { db in
            let other = try Database(path: db.path)
            var counts = db.observe { conn in try Self.count(conn, "students") }.makeAsyncIterator()
            #expect(try await counts.next() == 0)
            try await other.write { conn in try conn.execute("INSERT INTO students(name) VALUES (\("Ana"))") }
            db.notifyExternalChange()
            #expect(try await counts.next() == 1)
            try await other.close()
        }
    }

    // MARK: Databases without readers

    @Test func readerlessFileDatabasesObserveOnTheWriter() async throws {
        try await Support.withDatabase(.file, readerCount: 0) { db in
            var counts = db.observe { conn in try Self.count(conn, "students") }.makeAsyncIterator()
            #expect(try await counts.next() == 0)
            try await db.write { conn in try conn.execute("INSERT INTO courses(title) VALUES (\("Math"))") }
            try await db.insert(Student(id: nil, name: "Ana"))
            #expect(try await counts.next() == 1)
        }
    }

    private struct Student: Record {
        static let tableName = "students"
        var id: Int64?
        var name: String
    }
}

/// The SQLite layer under observations: the tables a statement reads, and the tables committed writes
/// changed, on a plain ``Connection``.
@Suite struct ObservationHookTests {
    private func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: ObservationTestSupport.schema)
        return conn
    }

    @Test func recordingReadsNamesTheTablesOfJoinsViewsAndCounts() throws {
        let conn = try connection()
        try conn.execute(script: "CREATE VIEW named AS SELECT name FROM students")
        let (_, join) = try conn.recordingReads { conn in
            try conn.rows("SELECT * FROM enrollments JOIN courses ON courses.id = course_id", arguments: [])
        }
        #expect(join.tables == ["enrollments", "courses"])
        let (_, view) = try conn.recordingReads { conn in try conn.rows("SELECT * FROM named", arguments: []) }
        #expect(view.contains("students"))
        let (_, count) = try conn.recordingReads { conn in
            try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM Students")
        }
        #expect(count.tables == ["students"])
    }

    @Test func recordingReadsSeesStatementsPreparedBeforeIt() throws {
        let conn = try connection()
        let sql = "SELECT count(*) FROM courses"
        _ = try conn.rows(sql, arguments: [])
        let prepared = conn.prepareCount
        let (_, region) = try conn.recordingReads { conn in try conn.rows(sql, arguments: []) }
        #expect(region.tables == ["courses"])
        // The statement stayed in the cache; SQLite prepared it again inside.
        #expect(conn.prepareCount == prepared)
        let (_, again) = try conn.recordingReads { conn in try conn.rows(sql, arguments: []) }
        #expect(again.tables == ["courses"])
    }

    @Test func recordingStopsAfterTheBodyEvenWhenItThrows() throws {
        let conn = try connection()
        #expect(throws: ObservationTestSupport.Boom.self) {
            _ = try conn.recordingReads { conn -> Int in
                _ = try conn.rows("SELECT * FROM students", arguments: [])
                throw ObservationTestSupport.Boom()
            }
        }
        let (_, region) = try conn.recordingReads { conn in try conn.rows("SELECT * FROM tags", arguments: []) }
        #expect(region.tables == ["tags"])
    }

    @Test func onlyCommittedChangesAreTaken() throws {
        let conn = try connection()
        conn.startTrackingChanges()
        try conn.transaction(.immediate) { conn in
            try conn.execute(script: "INSERT INTO students(name) VALUES ('Ana'); INSERT INTO tags(name) VALUES ('a')")
        }
        #expect(conn.takeCommittedChanges().tables == ["students", "tags"])
        #expect(conn.takeCommittedChanges().isEmpty)

        #expect(throws: ObservationTestSupport.Boom.self) {
            try conn.transaction(.immediate) { conn in
                try conn.execute(script: "INSERT INTO courses(title) VALUES ('Math')")
                throw ObservationTestSupport.Boom()
            }
        }
        #expect(conn.takeCommittedChanges().isEmpty)

        // Autocommit statements commit one by one.
        try conn.execute(script: "UPDATE tags SET uses = 2; DELETE FROM courses; SELECT * FROM students")
        #expect(conn.takeCommittedChanges().tables == ["tags", "courses"])
    }

    @Test func deleteWithoutWhereDeletesRowByRowAndIsSeen() throws {
        let conn = try connection()
        conn.startTrackingChanges()
        try conn.execute(script: "INSERT INTO students(name) VALUES ('Ana'), ('Bea')")
        _ = conn.takeCommittedChanges()
        try conn.execute(script: "DELETE FROM students")
        #expect(conn.changes == 2)
        #expect(conn.takeCommittedChanges().tables == ["students"])
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM students") == 0)
    }

    @Test func schemaChangesStillWorkAndCount() throws {
        let conn = try connection()
        conn.startTrackingChanges()
        try conn.execute(
            script: """
                CREATE TABLE extra(id INTEGER PRIMARY KEY);
                CREATE INDEX extra_id ON extra(id);
                CREATE TRIGGER extra_trigger AFTER INSERT ON extra BEGIN SELECT 1; END;
                ALTER TABLE courses ADD COLUMN room TEXT;
                DROP TRIGGER extra_trigger;
                DROP INDEX extra_id;
                DROP TABLE extra;
                """)
        let changes = conn.takeCommittedChanges()
        #expect(changes.contains("extra"))
        #expect(changes.contains("courses"))
        #expect(changes.contains("sqlite_schema"))
        let remaining = try conn.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema WHERE name LIKE 'extra%'")
        #expect(remaining.isEmpty)
    }

    @Test func triggersReportTheTablesTheyChange() throws {
        let conn = try connection()
        try conn.execute(
            script: """
                CREATE TRIGGER count_uses AFTER INSERT ON enrollments BEGIN
                    INSERT INTO tags(name, uses) VALUES ('enrolled', 1)
                        ON CONFLICT(name) DO UPDATE SET uses = uses + 1;
                END;
                """)
        conn.startTrackingChanges()
        for _ in 0..<2 {
            try conn.execute("INSERT INTO enrollments VALUES (1, 1)", arguments: [])
            #expect(conn.takeCommittedChanges().tables == ["enrollments", "tags"])
        }
    }

    /// A statement run again and again adds its tables once per transaction; after a rollback the
    /// next run counts them again (`tags` is `WITHOUT ROWID`: only the statement's tables report it).
    @Test func aStatementRunAgainAfterARollbackCountsAgain() throws {
        let conn = try connection()
        conn.startTrackingChanges()
        let insert = "INSERT INTO tags(name) VALUES (?)"
        try conn.execute(script: "BEGIN")
        try conn.execute(insert, arguments: [.text("a")])
        try conn.execute(insert, arguments: [.text("b")])
        try conn.execute(script: "ROLLBACK")
        #expect(conn.takeCommittedChanges().isEmpty)
        try conn.execute(insert, arguments: [.text("a")])
        #expect(conn.takeCommittedChanges().tables == ["tags"])
    }

    @Test func aCommitThatFailsWithBusyCountsOnlyOnceItSucceeds() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-hooks-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        // A rollback journal (SQLite's default for a new file): COMMIT needs every reader gone.
        let writer = try Connection(path: path, options: .init(busyTimeout: 0))
        let reader = try Connection(path: path, options: .init(busyTimeout: 0))
        try writer.execute(script: ObservationTestSupport.schema)
        writer.startTrackingChanges()
        _ = writer.takeCommittedChanges()

        for outcome in ["commit", "rollback"] {
            try reader.execute(script: "BEGIN; SELECT count(*) FROM courses")
            try writer.execute(script: "BEGIN IMMEDIATE; INSERT INTO students(name) VALUES ('Ana')")
            let error = #expect(throws: SQLiteError.self) {
                try writer.execute(script: "COMMIT")
            }
            #expect(error?.code == .busy)
            #expect(writer.isInTransaction)
            #expect(writer.takeCommittedChanges().isEmpty)
            try reader.execute(script: "COMMIT")
            try writer.execute(script: outcome == "commit" ? "COMMIT" : "ROLLBACK")
            #expect(writer.takeCommittedChanges().tables == (outcome == "commit" ? ["students"] : []))
        }
    }

    @Test func closingWithTrackingOnAndATransactionOpenIsSafe() throws {
        let conn = try connection()
        conn.startTrackingChanges()
        _ = try conn.recordingReads { conn in try conn.rows("SELECT * FROM students", arguments: []) }
        try conn.execute(script: "BEGIN; INSERT INTO students(name) VALUES ('Ana')")
        conn.close()
        #expect(conn.takeCommittedChanges().isEmpty)
        #expect(throws: SQLiteError.self) {
            _ = try conn.recordingReads { _ in 1 }
        }
    }

    @Test func aQueryThatClosesItsConnectionDoesNotCrash() throws {
        let conn = try connection()
        #expect(throws: SQLiteError.self) {
            _ = try conn.recordingReads { conn in conn.close() }
        }
    }
}
