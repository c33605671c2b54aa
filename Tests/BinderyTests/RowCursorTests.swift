import Foundation
import Testing

@testable import Bindery

@Suite struct RowCursorTests {
    // MARK: Helpers

    /// An in-memory connection with `t(x, label)` holding 1 … `rowCount`.
    private func makeConnection(rowCount: Int = 5) throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE t(x INTEGER, label TEXT);
                WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < \(rowCount))
                INSERT INTO t(x, label) SELECT n, 'row ' || n FROM c;
                """)
        return conn
    }

    // MARK: Iteration

    @Test func stepsThroughEveryRowThenReturnsNil() throws {
        let conn = try makeConnection(rowCount: 3)
        let cursor = try conn.rowCursor("SELECT x, label AS Label FROM t ORDER BY x", arguments: [])
        var seen: [String] = []
        while let row = try cursor.next() {
            #expect(row.columnNames == ["x", "Label"])
            seen.append("\(try row[0] as Int):\(try row["label"] as String)")
        }
        #expect(seen == ["1:row 1", "2:row 2", "3:row 3"])
        #expect(try cursor.next() == nil)
        #expect(try cursor.next() == nil)
    }

    @Test func bindsArguments() throws {
        let conn = try makeConnection(rowCount: 10)
        let cursor = try conn.rowCursor("SELECT x FROM t WHERE x > ? AND x <= ? ORDER BY x", arguments: [6, 9])
        #expect(try cursor.collect().map { try $0[0] as Int } == [7, 8, 9])
    }

    @Test func emptyResult() throws {
        let conn = try makeConnection()
        let cursor = try conn.rowCursor("SELECT x FROM t WHERE x < 0", arguments: [])
        #expect(try cursor.next() == nil)
        #expect(try cursor.collect().isEmpty)
    }

    @Test func forEachAndCollectReadTheRemainingRows() throws {
        let conn = try makeConnection(rowCount: 5)
        let cursor = try conn.rowCursor("SELECT x FROM t ORDER BY x", arguments: [])
        #expect(try cursor.next().map { try $0[0] as Int } == 1)
        var sum = 0
        try cursor.forEach { row in sum += try row[0] as Int }
        #expect(sum == 2 + 3 + 4 + 5)
        #expect(try cursor.collect().isEmpty)
    }

    // MARK: Giving the statement back

    @Test func abandonedCursorGivesItsStatementBack() throws {
        let conn = try makeConnection(rowCount: 5)
        let sql = "SELECT x FROM t ORDER BY x"
        do {
            let cursor = try conn.rowCursor(sql, arguments: [])
            #expect(try cursor.next().map { try $0[0] as Int } == 1)
            // While the cursor is open, its statement is running and the table cannot be dropped.
            let locked = try #require(throws: SQLiteError.self) { try conn.execute(script: "DROP TABLE t") }
            #expect(locked.code == .locked)
        }
        // Dropped part-way through: the statement was reset and went back to the cache.
        let before = conn.prepareCount
        let again = try conn.rowCursor(sql, arguments: [])
        #expect(try again.next().map { try $0[0] as Int } == 1)
        #expect(conn.prepareCount == before)
        #expect(try again.collect().count == 4)
        try conn.execute(script: "DROP TABLE t")
    }

    @Test func cursorThatFailsToBindGivesItsStatementBack() throws {
        let conn = try makeConnection()
        let sql = "SELECT x FROM t WHERE x = ?"
        _ = try conn.rows(sql, arguments: [1])
        let error = try #require(throws: SQLiteError.self) {
            try conn.rowCursor(sql, arguments: [1, 2])
        }
        #expect(error.code == .range)
        let before = conn.prepareCount
        #expect(try conn.rows(sql, arguments: [2]).count == 1)
        #expect(conn.prepareCount == before, "the cached statement was given back, not left busy")
    }

    @Test func errorWhileSteppingEndsTheCursor() throws {
        let conn = try makeConnection(rowCount: 5)
        // abs() of the smallest integer overflows: the third row fails (no ORDER BY, so rows are computed
        // one step at a time).
        let cursor = try conn.rowCursor(
            "SELECT CASE WHEN x = 3 THEN abs(-9223372036854775807 - 1) ELSE x END FROM t", arguments: [])
        #expect(try cursor.next() != nil)
        #expect(try cursor.next() != nil)
        let error = try #require(throws: SQLiteError.self) { try cursor.next() }
        #expect(error.message.contains("integer overflow"))
        #expect(try cursor.next() == nil)
        // The statement was reset: nothing is left running on the table.
        try conn.execute(script: "DROP TABLE t")
    }

    @Test func cursorAfterCloseThrowsMisuse() throws {
        let conn = try makeConnection()
        let cursor = try conn.rowCursor("SELECT x, label FROM t", arguments: [])
        conn.close()
        let error = try #require(throws: SQLiteError.self) { try cursor.next() }
        #expect(error.code == .misuse)
    }

    // MARK: Constant memory

    @Test func millionRowScanKeepsMemoryFlat() async {
        // In a process of its own: resident memory is then the scan's alone, not that of the suites
        // running beside it in the test process (which made the limit flaky under load: +31 MB seen
        // while the sync suites ran). A cursor that kept as little as 32 bytes per row would grow by
        // 29 MB over the 900,000 rows after the first 100,000. The child exits with 1 for a wrong
        // answer, 2 for memory that grew.
        await #expect(processExitsWith: .success) {
            try RowCursorTests.scanAMillionRowsInFlatMemory()
        }
    }

    /// Reads a million rows through a cursor, checking every row, and exits the process with 1 when a
    /// row read wrong and 2 when resident memory grew by 24 MB after the first 100,000 rows (or by 96 MB
    /// over the whole scan). Run in a process of its own.
    static func scanAMillionRowsInFlatMemory() throws {
        let limit = 24 * 1024 * 1024
        let conn = try Connection.inMemory()
        let cursor = try conn.rowCursor(
            """
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000000)
            SELECT x, 'some text ' || x FROM c
            """,
            arguments: [])
        let start = ReplicaReviewTests.residentBytes()
        var afterFirst100k: Int?
        var highest = 0
        var count = 0
        var sum: Int64 = 0
        var lastText = ""
        while let row = try cursor.next() {
            count += 1
            sum += try row[0] as Int64
            if count.isMultiple(of: 100_000) {
                let resident = ReplicaReviewTests.residentBytes()
                if count == 100_000 {
                    afterFirst100k = resident
                }
                highest = max(highest, resident)
            }
            if count == 1 || count == 1_000_000 {
                lastText = try row[1]
            }
        }
        let end = ReplicaReviewTests.residentBytes()
        guard count == 1_000_000, sum == 1_000_000 * 1_000_001 / 2, lastText == "some text 1000000" else { exit(1) }
        // 0 where there is no `/proc` to read: nothing to compare.
        guard start > 0, let baseline = afterFirst100k, end > 0 else { return }
        guard max(highest, end) - baseline < limit, end - start < 4 * limit else { exit(2) }
    }
}
