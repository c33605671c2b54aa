import CSQLite
import Foundation
import Testing

@testable import Bindery

@Suite struct StatementCacheTests {
    // MARK: Helpers

    /// An in-memory connection with `t(x)` holding 1 … `rowCount`.
    private func makeConnection(rowCount: Int = 5, capacity: Int = 128) throws -> Connection {
        let conn = try Connection.inMemory(options: Connection.Options(statementCacheCapacity: capacity))
        try conn.execute(
            script: """
                CREATE TABLE t(x INTEGER);
                WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < \(rowCount))
                INSERT INTO t(x) SELECT n FROM c;
                """)
        return conn
    }

    /// How many statements `body` prepared.
    private func prepares(_ conn: Connection, _ body: () throws -> Void) rethrows -> Int {
        let before = conn.prepareCount
        try body()
        return conn.prepareCount - before
    }

    private func ints(_ rows: [Row]) throws -> [Int] {
        try rows.map { try $0[0] as Int }
    }

    // MARK: Reuse

    @Test func statementRunTenThousandTimesIsPreparedOnce() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE log(n INTEGER, label TEXT)")
        let inserts = try prepares(conn) {
            for n in 0..<10_000 {
                try conn.execute("INSERT INTO log(n, label) VALUES (?, ?)", arguments: [.integer(Int64(n)), "row"])
            }
        }
        #expect(inserts == 1)

        var total = 0
        let selects = try prepares(conn) {
            for n in 0..<10_000 {
                let rows = try conn.rows("SELECT n FROM log WHERE n = ?", arguments: [.integer(Int64(n))])
                total += try ints(rows).reduce(0, +)
            }
        }
        #expect(selects == 1)
        #expect(total == (0..<10_000).reduce(0, +))

        let named = try prepares(conn) {
            for n in 0..<1_000 {
                try conn.execute(
                    "UPDATE log SET label = :label WHERE n = :n", arguments: ["n": .integer(Int64(n)), "label": "x"])
            }
        }
        #expect(named == 1)
    }

    @Test func capacityComesFromTheOptions() throws {
        let small = try Connection.inMemory(options: Connection.Options(statementCacheCapacity: 2))
        #expect(small.statementCache.capacity == 2)
        let standard = try Connection.inMemory()
        #expect(standard.statementCache.capacity == Connection.Options().statementCacheCapacity)
    }

    @Test func statementIsResetAndItsBindingsClearedAfterUse() throws {
        let conn = try makeConnection()
        let sql = "SELECT x, ? FROM t"
        _ = try conn.rows(sql, arguments: ["secret"])
        let statement = try conn.checkOutStatement(sql)
        defer { conn.release(statement) }
        #expect(sqlite3_stmt_busy(statement.handle) == 0)
        let expanded = try #require(sqlite3_expanded_sql(statement.handle))
        defer { sqlite3_free(expanded) }
        #expect(String(cString: expanded) == "SELECT x, NULL FROM t")
    }

    @Test func aBlobBoundIsClearedAfterUseAndIntegersLeftBoundAreNeverReused() throws {
        let conn = try makeConnection()
        let sql = "SELECT x, ? FROM t"
        _ = try conn.rows(sql, arguments: [.blob(Data(repeating: 7, count: 1 << 20))])
        do {
            let statement = try conn.checkOutStatement(sql)
            defer { conn.release(statement) }
            let expanded = try #require(sqlite3_expanded_sql(statement.handle))
            defer { sqlite3_free(expanded) }
            #expect(String(cString: expanded) == "SELECT x, NULL FROM t")
        }
        // An INTEGER stays bound (clearing it would cost every record call), but a later use must bind
        // every parameter again: one that gives fewer arguments is refused before it runs.
        _ = try conn.rows(sql, arguments: [42])
        #expect(throws: SQLiteError.self) { try conn.rows(sql, arguments: []) }
        #expect(
            try conn.rows(sql, arguments: [.null]).map { try $0[1] as SQLiteValue } == Array(repeating: .null, count: 5)
        )
    }

    @Test func statementThatFailedIsResetAndReusable() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE u(v TEXT UNIQUE)")
        let sql = "INSERT INTO u(v) VALUES (?)"
        try conn.execute(sql, arguments: ["a"])
        #expect(throws: SQLiteError.self) { try conn.execute(sql, arguments: ["a"]) }
        let again = try prepares(conn) { try conn.execute(sql, arguments: ["b"]) }
        #expect(again == 0)
        let statement = try conn.checkOutStatement(sql)
        defer { conn.release(statement) }
        #expect(sqlite3_stmt_busy(statement.handle) == 0)
    }

    // MARK: Eviction

    @Test func leastRecentlyUsedStatementIsEvicted() throws {
        let conn = try makeConnection(capacity: 2)
        let first = "SELECT x FROM t WHERE x = 1"
        let second = "SELECT x FROM t WHERE x = 2"
        let third = "SELECT x FROM t WHERE x = 3"
        func run(_ sql: String) throws -> Int {
            try prepares(conn) { _ = try conn.rows(sql, arguments: []) }
        }
        #expect(try run(first) == 1)
        #expect(try run(second) == 1)
        #expect(try run(first) == 0)
        #expect(try run(third) == 1, "evicts `second`, the least recently used")
        #expect(conn.statementCache.count == 2)
        #expect(try run(first) == 0, "`first` was used recently and stays")
        #expect(try run(second) == 1, "`second` was evicted and is prepared again; evicts `third`")
        #expect(try run(first) == 0)
        #expect(try run(third) == 1, "`third` was evicted")
        #expect(try run(first) == 0)
        #expect(try run(second) == 1)
        #expect(conn.statementCache.count == 2)
    }

    @Test func statementInUseIsNeverEvicted() throws {
        let conn = try makeConnection(rowCount: 5, capacity: 1)
        let cursor = try conn.rowCursor("SELECT x FROM t ORDER BY x", arguments: [])
        #expect(try cursor.next().map { try $0[0] as Int } == 1)
        // The cache is full with the cursor's statement; other statements still run.
        for n in 1...5 {
            #expect(try ints(conn.rows("SELECT x * ? FROM t WHERE x = 1", arguments: [.integer(Int64(n))])) == [n])
            _ = try conn.rows("SELECT count(*) FROM t WHERE x > ?", arguments: [.integer(Int64(n))])
        }
        let rest = try cursor.collect()
        #expect(try ints(rest) == [2, 3, 4, 5])
    }

    @Test func cacheNeverGrowsPastItsCapacityWhenEveryStatementIsLent() throws {
        let conn = try makeConnection(rowCount: 3, capacity: 2)
        var triples: [[Int]] = []
        let first = try conn.rowCursor("SELECT x FROM t ORDER BY x", arguments: [])
        while let a = try first.next() {
            let second = try conn.rowCursor("SELECT x * 10 FROM t ORDER BY x", arguments: [])
            while let b = try second.next() {
                #expect(conn.statementCache.count <= 2)
                // Both cached statements are lent: the third is prepared uncached, every time.
                let third = try conn.rowCursor("SELECT x * 100 FROM t ORDER BY x", arguments: [])
                #expect(conn.statementCache.count <= 2)
                while let c = try third.next() {
                    triples.append([try a[0], try b[0], try c[0]])
                }
            }
        }
        #expect(conn.statementCache.count == 2)
        #expect(triples.count == 27)
        #expect(triples.first == [1, 10, 100])
        #expect(triples.last == [3, 30, 300])
        #expect(Set(triples.map { $0[2] }) == [100, 200, 300])
        // Once the cursors are done, the cached statements are used again.
        let again = try prepares(conn) {
            _ = try conn.rows("SELECT x FROM t ORDER BY x", arguments: [])
            _ = try conn.rows("SELECT x * 10 FROM t ORDER BY x", arguments: [])
        }
        #expect(again == 0)
    }

    // MARK: Nested use

    @Test func sameSQLUsedWhileACursorHoldsItGetsAFreshStatement() throws {
        let conn = try makeConnection(rowCount: 4)
        let sql = "SELECT x FROM t WHERE x >= ? ORDER BY x"
        _ = try conn.rows(sql, arguments: [1])  // cached now

        let cursor = try conn.rowCursor(sql, arguments: [2])
        #expect(try cursor.next().map { try $0[0] as Int } == 2)

        var inner: [Int] = []
        let nested = try prepares(conn) {
            inner = try ints(conn.rows(sql, arguments: [1]))
        }
        #expect(nested == 1, "the cached statement is busy, so a fresh one is prepared")
        #expect(inner == [1, 2, 3, 4])
        // The cursor carries on where it was, with its own binding.
        #expect(try ints(cursor.collect()) == [3, 4])

        // Once the cursor is done, the cached statement is used again.
        let after = try prepares(conn) { _ = try conn.rows(sql, arguments: [1]) }
        #expect(after == 0)
        #expect(conn.statementCache.count == 1)
    }

    @Test func twoCursorsOverTheSameSQLInterleave() throws {
        let conn = try makeConnection(rowCount: 3)
        let sql = "SELECT x FROM t ORDER BY x"
        let outer = try conn.rowCursor(sql, arguments: [])
        var pairs: [[Int]] = []
        while let row = try outer.next() {
            let x: Int = try row[0]
            let inner = try conn.rowCursor(sql, arguments: [])
            while let other = try inner.next() {
                pairs.append([x, try other[0]])
            }
        }
        #expect(pairs.count == 9)
        #expect(pairs.first == [1, 1])
        #expect(pairs.last == [3, 3])
    }

    // MARK: Clearing

    @Test func clearStatementCacheForgetsEveryStatement() throws {
        let conn = try makeConnection()
        let sql = "SELECT x FROM t ORDER BY x"
        _ = try conn.rows(sql, arguments: [])
        _ = try conn.rows("SELECT count(*) FROM t", arguments: [])
        #expect(conn.statementCache.count == 2)
        conn.clearStatementCache()
        #expect(conn.statementCache.count == 0)
        #expect(try prepares(conn) { _ = try conn.rows(sql, arguments: []) } == 1)
        #expect(try prepares(conn) { _ = try conn.rows(sql, arguments: []) } == 0)
    }

    @Test func theStatementLentLastIsFoundAgainOnlyWhileTheCacheHoldsIt() throws {
        let conn = try makeConnection(rowCount: 3, capacity: 1)
        let first = "SELECT x FROM t ORDER BY x"
        let second = "SELECT x * 10 FROM t ORDER BY x"
        var values: [Int] = []
        #expect(try prepares(conn) { values = try ints(conn.rows(first, arguments: [])) } == 1)
        #expect(try prepares(conn) { values = try ints(conn.rows(first, arguments: [])) } == 0)
        #expect(values == [1, 2, 3])
        // Cleared: the statement lent last was finalized and must not be lent again.
        conn.clearStatementCache()
        #expect(try prepares(conn) { values = try ints(conn.rows(first, arguments: [])) } == 1)
        #expect(values == [1, 2, 3])
        // Evicted by another statement (capacity 1), then asked for again.
        #expect(try prepares(conn) { values = try ints(conn.rows(second, arguments: [])) } == 1)
        #expect(values == [10, 20, 30])
        #expect(try prepares(conn) { values = try ints(conn.rows(first, arguments: [])) } == 1)
        #expect(values == [1, 2, 3])
        #expect(try prepares(conn) { values = try ints(conn.rows(first, arguments: [])) } == 0)
        // Lent out to a cursor: the same SQL gets a fresh statement, and the cursor keeps its own.
        let cursor = try conn.rowCursor(first, arguments: [])
        #expect(try cursor.next().map { try $0[0] as Int } == 1)
        #expect(try prepares(conn) { values = try ints(conn.rows(first, arguments: [])) } == 1)
        #expect(values == [1, 2, 3])
        #expect(try ints(cursor.collect()) == [2, 3])
        #expect(try prepares(conn) { values = try ints(conn.rows(first, arguments: [])) } == 0)
    }

    @Test func clearingWhileACursorHoldsAStatementIsSafe() throws {
        let conn = try makeConnection(rowCount: 3)
        let sql = "SELECT x FROM t ORDER BY x"
        let cursor = try conn.rowCursor(sql, arguments: [])
        #expect(try cursor.next().map { try $0[0] as Int } == 1)
        conn.clearStatementCache()
        #expect(try ints(cursor.collect()) == [2, 3])
        // The statement the cursor held was finalized when it came back, not cached again.
        #expect(conn.statementCache.count == 0)
        var again: [Int] = []
        #expect(try prepares(conn) { again = try ints(conn.rows(sql, arguments: [])) } == 1)
        #expect(again == [1, 2, 3])
    }

    // MARK: Schema changes

    // BUG (Statement.swift, `columnCount` stored at prepare time; Connection.collectRows and RowCursor read
    // the column names before the first step): SQLite re-prepares an expired statement inside
    // sqlite3_step, so a cached `SELECT *` returns the new column's value but the Row is built with the old
    // column list. This test fails until the column count and names are read after the first step.
    @Test func cachedSelectStarSeesAColumnAddedLater() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: "CREATE TABLE people(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO people(name) VALUES ('Ana')")
        let sql = "SELECT * FROM people"
        let before = try #require(try conn.rows(sql, arguments: []).first)
        #expect(before.columnNames == ["id", "name"])

        try conn.execute(script: "ALTER TABLE people ADD COLUMN city TEXT DEFAULT 'Oslo'")
        let after = try #require(try conn.rows(sql, arguments: []).first)
        #expect(after.columnNames == ["id", "name", "city"])
        #expect(after.count == 3)
        #expect(try after["city"] as String? == "Oslo")

        let cursor = try conn.rowCursor(sql, arguments: [])
        let fromCursor = try #require(try cursor.next())
        #expect(fromCursor.columnNames == ["id", "name", "city"])
        #expect(try fromCursor["city"] as String == "Oslo")
    }

    // BUG: the same stale column list as above; here it is worse, because the value of the new first
    // column `b` comes back under the old name `a`.
    @Test func cachedStatementsFollowATableThatWasDroppedAndRecreated() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE box(a INTEGER)")
        let insert = "INSERT INTO box(a) VALUES (?)"
        let select = "SELECT * FROM box"
        try conn.execute(insert, arguments: [1])
        #expect(try conn.rows(select, arguments: []).first?.columnNames == ["a"])

        try conn.execute(script: "DROP TABLE box; CREATE TABLE box(b TEXT, a INTEGER)")
        try conn.execute(insert, arguments: [2])
        let row = try #require(try conn.rows(select, arguments: []).first)
        #expect(row.columnNames == ["b", "a"])
        #expect(try row["a"] as Int == 2)
        #expect(try row["b"] as String? == nil)
    }

    // BUG: the same stale column list as in cachedSelectStarSeesAColumnAddedLater.
    @Test func schemaChangedByAnotherConnectionIsSeen() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-cache-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("schema.sqlite").path

        let reader = try Connection(path: path)
        try reader.execute(script: "CREATE TABLE t(a); INSERT INTO t VALUES (1);")
        let sql = "SELECT * FROM t ORDER BY a"
        #expect(try reader.rows(sql, arguments: []).first?.count == 1)

        let writer = try Connection(path: path)
        try writer.execute(script: "ALTER TABLE t ADD COLUMN b DEFAULT 'new'")

        let row = try #require(try reader.rows(sql, arguments: []).first)
        #expect(row.columnNames == ["a", "b"])
        #expect(try row["b"] as String == "new")
    }

    @Test func listsOfManyLengthsShareFewStatements() throws {
        let conn = try makeConnection(rowCount: 300)
        let first = try prepares(conn) {
            for count in 1...300 {
                let found = try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM t WHERE x IN \(list: 1...count)")
                #expect(found == count)
            }
        }
        // 1, 2, 4 … 256, 512 placeholders: ten statements, where one for each length would be 300.
        #expect(first == 10)
        let again = try prepares(conn) {
            for count in 1...300 {
                _ = try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM t WHERE x NOT IN \(list: 1...count)")
                _ = try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM t WHERE x IN \(list: 1...count)")
            }
        }
        #expect(again == 10, "the NOT IN statements only; the IN ones are cached")
    }
}
