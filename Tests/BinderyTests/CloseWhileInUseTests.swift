import Foundation
import Testing

@testable import Bindery

/// `Connection.close()` called while a statement is in use: from a `Decodable`'s `init(from:)`, an
/// `encode(to:)`, a custom date closure, a lazy sequence given to `insert(contentsOf:)`, or with a
/// cursor still open. The operation in progress throws `.misuse`, nothing crashes, nothing of it is
/// committed. The scenarios that crashed (SIGSEGV: the statement was finalized while being stepped)
/// run in exit tests, so that a crash fails one test rather than the run.
@Suite struct CloseWhileInUseTests {
    /// Holds the connection that user code closes; handed to that code through `userInfo` or a closure.
    final class Closer: @unchecked Sendable {
        // @unchecked: each box is used by one test, on one thread at a time.
        var connection: Connection?
        /// The row (or record) at which to close, counted from 1.
        var at: Int
        var seen = 0

        init(at: Int) {
            self.at = at
        }

        /// Counts one use and closes the connection at the chosen one.
        func tick() {
            seen += 1
            if seen == at {
                connection?.close()
            }
        }

        /// The `userInfo` key of the closer (`CodingUserInfoKey.init(rawValue:)` is failable).
        static let key = CodingUserInfoKey(rawValue: "bindery.closer")

        /// `userInfo` handing `closer` to user code.
        static func userInfo(_ closer: Closer) -> [CodingUserInfoKey: any Sendable] {
            key.map { [$0: closer] } ?? [:]
        }

        /// The closer handed to user code through `userInfo`, if any.
        static func from(_ userInfo: [CodingUserInfoKey: Any]) -> Closer? {
            key.flatMap { userInfo[$0] } as? Closer
        }
    }

    struct Item: Record {
        static let tableName = "items"
        var id: Int64?
        var n: Int

        init(id: Int64?, n: Int) {
            self.id = id
            self.n = n
        }

        enum CodingKeys: String, CodingKey { case id, n }

        init(from decoder: any Decoder) throws {
            Closer.from(decoder.userInfo)?.tick()
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            n = try container.decode(Int.self, forKey: .n)
        }

        func encode(to encoder: any Encoder) throws {
            Closer.from(encoder.userInfo)?.tick()
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(n, forKey: .n)
        }
    }

    struct Dated: Record {
        static let tableName = "dated"
        var id: Int64?
        var at: Date
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A file database with `items` holding `rows` rows, whose connection's user code gets `closer`.
    static func open(_ path: String, rows: Int, closer: Closer) throws -> Connection {
        let options = CodingOptions(userInfo: Closer.userInfo(closer))
        let conn = try Connection(path: path)
        conn.codingOptions = options
        try conn.execute(script: "CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        try conn.insert(contentsOf: (0..<rows).map { Item(id: nil, n: $0) })
        closer.connection = conn
        closer.seen = 0
        return conn
    }

    /// A fresh file path in a temporary directory.
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bindery-close-\(UUID().uuidString).sqlite").path
    }

    /// Removes the database file at `path` and its journals.
    static func removeDatabase(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// The rows of `items` in the file, read on a new connection.
    static func count(_ path: String) throws -> Int {
        let conn = try Connection(path: path)
        defer { conn.close() }
        return try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM items") ?? -1
    }

    /// Throws unless `body` throws a misuse error and the connection is closed afterwards.
    static func expectMisuse(_ conn: Connection, _ body: () throws -> Void) throws {
        do {
            try body()
            throw Failure(description: "the operation succeeded after its connection was closed")
        } catch let error as SQLiteError {
            guard error.code == .misuse, error.message.contains("closed") else {
                throw Failure(description: "unexpected error \(error)")
            }
        }
        guard conn.isClosed else { throw Failure(description: "the connection is not closed") }
        do {
            _ = try conn.rows("SELECT 1", arguments: [])
            throw Failure(description: "a statement ran on the closed connection")
        } catch let error as SQLiteError where error.code == .misuse {}
    }

    // MARK: Scenarios (each run in a child process, since they crashed)

    static func closeInInitFromDuringFetchAll() throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let closer = Closer(at: 2)
        let conn = try open(path, rows: 5, closer: closer)
        try expectMisuse(conn) { _ = try conn.fetchAll(Item.self, sql: "SELECT * FROM items ORDER BY id") }
        guard try count(path) == 5 else { throw Failure(description: "rows changed") }
    }

    static func closeInInitFromOnTheLastRow() throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let closer = Closer(at: 3)
        let conn = try open(path, rows: 3, closer: closer)
        try expectMisuse(conn) { _ = try conn.fetchAll(Item.self, sql: "SELECT * FROM items ORDER BY id") }
        let again = try open(path, rows: 0, closer: Closer(at: 1))
        try expectMisuse(again) { _ = try again.fetchOne(Item.self, sql: "SELECT * FROM items") }
    }

    static func closeInEncodeDuringInsert() throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let closer = Closer(at: 1)
        let conn = try open(path, rows: 2, closer: closer)
        try expectMisuse(conn) { try conn.insert(Item(id: nil, n: 99)) }
        guard try count(path) == 2 else { throw Failure(description: "a row was committed") }
    }

    static func closeInEncodeDuringBulkInsert() throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let closer = Closer(at: 3)
        let conn = try open(path, rows: 2, closer: closer)
        try expectMisuse(conn) { try conn.insert(contentsOf: (0..<10).map { Item(id: nil, n: 100 + $0) }) }
        guard try count(path) == 2 else { throw Failure(description: "part of the bulk insert was committed") }
    }

    static func closeInDecodeOfInsertReturning() throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        // insert() encodes the record (1), then reads the stored row back through init(from:) (2),
        // which closes.
        let conn = try open(path, rows: 2, closer: Closer(at: 2))
        try expectMisuse(conn) { try conn.insert(Item(id: nil, n: 99)) }
        guard try count(path) == 2 else { throw Failure(description: "a row was committed") }
    }

    static func closeInLazySequenceDuringBulkInsert() throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let conn = try open(path, rows: 2, closer: Closer(at: 0))
        let records = (0..<10).lazy.map { index -> Item in
            if index == 4 { conn.close() }
            return Item(id: nil, n: index)
        }
        try expectMisuse(conn) { try conn.insert(contentsOf: records) }
        guard try count(path) == 2 else { throw Failure(description: "part of the bulk insert was committed") }
    }

    static func closeInCustomDateClosures() throws {
        let path = temporaryPath()
        defer { removeDatabase(path) }
        let closer = Closer(at: 100)
        let strategy = CodingOptions.DateStrategy.custom(
            encode: { date in
                closer.tick()
                return .real(date.timeIntervalSince1970)
            },
            decode: { value in
                closer.tick()
                guard case .real(let seconds) = value else { return Date(timeIntervalSince1970: 0) }
                return Date(timeIntervalSince1970: seconds)
            })
        let conn = try Connection(path: path)
        conn.codingOptions = CodingOptions(dateStrategy: strategy)
        closer.connection = conn
        try conn.createTable(for: Dated.self)
        closer.at = 2
        try expectMisuse(conn) {
            try conn.insert(contentsOf: (0..<5).map { Dated(id: nil, at: Date(timeIntervalSince1970: Double($0))) })
        }
        let reopened = try Connection(path: path)
        reopened.codingOptions = CodingOptions(dateStrategy: strategy)
        closer.connection = reopened
        closer.at = 100
        guard try reopened.count(Dated.self) == 0 else { throw Failure(description: "dates were committed") }
        try reopened.insert(contentsOf: (0..<5).map { Dated(id: nil, at: Date(timeIntervalSince1970: Double($0))) })
        closer.seen = 0
        closer.at = 2
        try expectMisuse(reopened) { _ = try reopened.fetchAll(Dated.self, sql: "SELECT * FROM dated ORDER BY id") }
    }

    @Test func closeInInitFromDuringFetchAllThrowsMisuse() async {
        await #expect(processExitsWith: .success) { try CloseWhileInUseTests.closeInInitFromDuringFetchAll() }
    }

    @Test func closeInInitFromOnTheLastRowThrowsMisuse() async {
        await #expect(processExitsWith: .success) { try CloseWhileInUseTests.closeInInitFromOnTheLastRow() }
    }

    @Test func closeInEncodeDuringInsertCommitsNothing() throws {
        // This one never crashed (the statement is prepared after the encoding): no child process.
        try Self.closeInEncodeDuringInsert()
    }

    @Test func closeInEncodeDuringBulkInsertCommitsNothing() async {
        await #expect(processExitsWith: .success) { try CloseWhileInUseTests.closeInEncodeDuringBulkInsert() }
    }

    @Test func closeInDecodeOfInsertReturningCommitsNothing() async {
        await #expect(processExitsWith: .success) { try CloseWhileInUseTests.closeInDecodeOfInsertReturning() }
    }

    @Test func closeInLazySequenceDuringBulkInsertCommitsNothing() async {
        await #expect(processExitsWith: .success) { try CloseWhileInUseTests.closeInLazySequenceDuringBulkInsert() }
    }

    @Test func closeInCustomDateClosuresThrowsMisuse() async {
        await #expect(processExitsWith: .success) { try CloseWhileInUseTests.closeInCustomDateClosures() }
    }

    // MARK: Cursors

    @Test func aRowCursorOpenWhenTheConnectionClosesThrowsMisuse() throws {
        let path = Self.temporaryPath()
        defer { Self.removeDatabase(path) }
        let conn = try Self.open(path, rows: 3, closer: Closer(at: 0))
        let cursor = try conn.rowCursor("SELECT n FROM items ORDER BY id", arguments: [])
        let first = try #require(try cursor.next())
        #expect(try first[0] as Int == 0)
        conn.close()
        let error = try #require(throws: SQLiteError.self) { try cursor.next() }
        #expect(error.code == .misuse)
        #expect(try cursor.next() == nil)
    }

    @Test func aRecordCursorOpenWhenTheConnectionClosesThrowsMisuse() throws {
        let path = Self.temporaryPath()
        defer { Self.removeDatabase(path) }
        let conn = try Self.open(path, rows: 3, closer: Closer(at: 0))
        let cursor = try conn.fetchCursor(Item.self, sql: "SELECT * FROM items ORDER BY id")
        #expect(try cursor.next()?.n == 0)
        let unread = try conn.fetchCursor(Item.self, sql: "SELECT * FROM items ORDER BY id DESC")
        conn.close()
        let error = try #require(throws: SQLiteError.self) { try cursor.next() }
        #expect(error.code == .misuse)
        #expect(try cursor.next() == nil)
        #expect(throws: SQLiteError.self) { try unread.next() }
        #expect(try Self.count(path) == 3)
    }

    // MARK: Backups

    /// A backup whose progress closure closes the source connection: the backup body is in an exit
    /// test, since stepping a closed source would be a use of a connection SQLite has let go of.
    static func closeInBackupProgress() throws {
        let path = temporaryPath()
        let copy = temporaryPath()
        defer {
            removeDatabase(path)
            removeDatabase(copy)
        }
        let conn = try Connection(path: path)
        try conn.execute(script: "CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        try conn.insert(contentsOf: (0..<20_000).map { Item(id: nil, n: $0) })
        var calls = 0
        do {
            try conn.backup(to: copy, pagesPerStep: 1) { _, _ in
                calls += 1
                conn.close()
            }
            exit(3)  // the backup went on from a closed connection
        } catch let error as SQLiteError where error.code == .misuse {
            // The copy a failed backup made is removed.
            guard calls == 1, !FileManager.default.fileExists(atPath: copy) else { exit(4) }
        }
    }

    @Test func closeInBackupProgressStopsTheBackup() async {
        await #expect(processExitsWith: .success) { try CloseWhileInUseTests.closeInBackupProgress() }
    }

    @Test func aStatementOfAClosedConnectionNeverSteps() throws {
        let conn = try Connection.inMemory()
        let statement = try conn.checkOutStatement("SELECT 1")
        conn.close()
        #expect(!statement.isFinalized, "a statement in use is finalized only when it comes back")
        let error = try #require(throws: SQLiteError.self) { try statement.step() }
        #expect(error.code == .misuse)
        conn.release(statement)
        #expect(statement.isFinalized)
        let again = try #require(throws: SQLiteError.self) { try statement.step() }
        #expect(again.code == .misuse)
        #expect(again.message.contains("finalized"))
    }
}
