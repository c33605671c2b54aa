import CSQLite
import Foundation
import Testing

@testable import Bindery

/// The decoder finds a row's values with one SQLite call per row (``ColumnValues``): these queries give
/// SQLite's result rows different shapes, and every value must still come from its own column.
@Suite struct ColumnValuesTests {
    private struct Mixed: Decodable, Equatable {
        var id: Int
        var name: String?
        var score: Double?
        var flag: Bool
    }

    private struct Pair: Decodable, Equatable {
        var left: Int
        var right: String
    }

    private struct Single: Decodable, Equatable {
        var only: String
    }

    @Test func eachArmOfACompoundSelectIsReadFromItsOwnColumns() throws {
        let conn = try Connection.inMemory()
        // Each arm of a UNION ALL hands out its row from registers of its own.
        let rows = try conn.fetchAll(
            Mixed.self,
            sql: """
                SELECT 1 AS id, 'one' AS name, 1.5 AS score, 1 AS flag
                UNION ALL SELECT 2, NULL, NULL, 0
                UNION ALL SELECT 3 + 0, upper('three'), 3, 1
                """)
        #expect(
            rows == [
                Mixed(id: 1, name: "one", score: 1.5, flag: true),
                Mixed(id: 2, name: nil, score: nil, flag: false),
                Mixed(id: 3, name: "THREE", score: 3, flag: true),
            ])
    }

    @Test func sortedJoinedAndReorderedColumnsDecodeByName() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE a (id INTEGER PRIMARY KEY, right TEXT NOT NULL);
                CREATE TABLE b (a_id INTEGER NOT NULL, weight INTEGER NOT NULL);
                INSERT INTO a VALUES (1, 'x'), (2, 'y'), (3, 'z');
                INSERT INTO b VALUES (3, 10), (1, 30), (2, 20);
                """)
        // Columns in another order than the properties, from two tables, through a sorter.
        let rows = try conn.fetchAll(
            Pair.self, sql: "SELECT a.right, b.weight AS left FROM a JOIN b ON b.a_id = a.id ORDER BY b.weight DESC")
        #expect(rows == [Pair(left: 30, right: "x"), Pair(left: 20, right: "y"), Pair(left: 10, right: "z")])
        let grouped = try conn.fetchAll(
            Pair.self,
            sql: "SELECT group_concat(right, '') AS right, count(*) AS left FROM a GROUP BY id % 2 ORDER BY 1")
        #expect(grouped == [Pair(left: 2, right: "xz"), Pair(left: 1, right: "y")])
    }

    @Test func oneColumnAndSingleValueRowsDecode() throws {
        let conn = try Connection.inMemory()
        #expect(
            try conn.fetchAll(Single.self, sql: "SELECT 'a' AS only UNION ALL SELECT 'b'") == [
                Single(only: "a"), Single(only: "b"),
            ])
        #expect(try conn.fetchAll(Int.self, sql: "SELECT 7 UNION ALL SELECT 8") == [7, 8])
        #expect(try conn.fetchAll(Int?.self, sql: "SELECT NULL UNION ALL SELECT 8") == [nil, 8])
    }

    @Test func aCursorReadsEveryRowOfAStatementAfterItsSchemaChanged() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (left INTEGER, right TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b')")
        #expect(
            try conn.fetchAll(Pair.self, sql: "SELECT * FROM t") == [
                Pair(left: 1, right: "a"), Pair(left: 2, right: "b"),
            ])
        // The cached statement is re-prepared with the new columns; the values must follow.
        try conn.execute(
            script: """
                DROP TABLE t; CREATE TABLE t (extra BLOB, right TEXT, filler REAL, left INTEGER);
                INSERT INTO t VALUES (x'00', 'c', 0.5, 3), (NULL, 'd', NULL, 4);
                """)
        let cursor = try conn.fetchCursor(Pair.self, sql: "SELECT * FROM t")
        var read: [Pair] = []
        while let pair = try cursor.next() {
            read.append(pair)
        }
        #expect(read == [Pair(left: 3, right: "c"), Pair(left: 4, right: "d")])
    }

    // MARK: Every computed pointer, on every row

    /// Steps `sql` to its end, asking ``ColumnValues`` for every column of every row (in another order
    /// on every other row) and comparing each pointer with `sqlite3_column_value`'s; returns how many
    /// rows there were. `forgetByEndRow` forgets each row only when it ends, as the decoder does; otherwise before it
    /// starts too.
    @discardableResult
    private static func expectEveryPointer(
        _ conn: Connection, _ sql: String, forgetByEndRow: Bool = false, assumedStride: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        let statement = try Statement(database: conn.handle, status: conn.status, sql: sql, persistent: false)
        defer { statement.finalize() }
        let count = statement.columnCount
        var values =
            assumedStride.map { ColumnValues(handle: statement.handle, count: count, assumedStride: $0) }
            ?? ColumnValues(handle: statement.handle, count: count)
        var rows = 0
        var wrong: [String] = []
        while try statement.step() {
            if !forgetByEndRow { values.endRow() }
            let order: [Int32] = rows % 2 == 0 ? Array(0..<count) : (0..<count).reversed()
            for column in order where values.value(column) != sqlite3_column_value(statement.handle, column) {
                wrong.append("row \(rows), column \(column)")
            }
            values.endRow()
            rows += 1
        }
        #expect(wrong.isEmpty, "\(sql.prefix(80)): wrong values at \(wrong.prefix(5))", sourceLocation: sourceLocation)
        return rows
    }

    @Test func everyValuePointerIsRightInCompoundSelectsWindowsAndRecursiveQueries() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB);
                INSERT INTO t VALUES (1, 'a', 1.5, x'01'), (2, 'b', NULL, NULL), (3, 'c', 3.5, x'0203'),
                    (4, NULL, 4, x''), (5, 'e', -1, x'ff');
                CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB);
                INSERT INTO u VALUES (3, 'c', 3.5, x'0203'), (6, 'f', 6, NULL);
                CREATE VIEW v AS SELECT t.id, t.name, u.score AS other FROM t LEFT JOIN u USING (id);
                """)
        let queries: [(sql: String, rows: Int)] = [
            ("SELECT * FROM t UNION ALL SELECT * FROM u UNION ALL SELECT 9, upper('z'), 9.5, NULL", 8),
            ("SELECT * FROM t UNION SELECT * FROM u ORDER BY 1", 6),
            ("SELECT * FROM t EXCEPT SELECT * FROM u", 4),
            ("SELECT * FROM t INTERSECT SELECT * FROM u", 1),
            ("SELECT id, name, 1 FROM t UNION ALL SELECT id, name, 2 FROM u UNION SELECT 0, 'x', 3 ORDER BY 3, 1", 8),
            (
                """
                SELECT id, name, row_number() OVER w, sum(score) OVER w, lag(name) OVER w, first_value(data) OVER w
                FROM t WINDOW w AS (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
                """, 5
            ),
            ("SELECT id, rank() OVER (PARTITION BY id % 2 ORDER BY score), count(*) OVER () FROM t", 5),
            (
                """
                WITH RECURSIVE n(i, s, f) AS (SELECT 1, 'x', 1.0 UNION ALL SELECT i + 1, s || 'x', f * 2
                FROM n WHERE i < 50) SELECT * FROM n
                """, 50
            ),
            (
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION SELECT i + 1 FROM n WHERE i < 20) SELECT i, i * i, 'r' FROM n",
                20
            ),
            ("SELECT * FROM v", 5),
            ("SELECT id, (SELECT max(score) FROM u WHERE u.id >= t.id), name FROM t WHERE id IN (SELECT id FROM u)", 1),
            (
                "SELECT a.id, b.name, a.score FROM (SELECT * FROM t ORDER BY score DESC LIMIT 3) a JOIN t b USING (id)",
                3
            ),
            ("SELECT name, count(*), group_concat(id) FROM t GROUP BY name IS NULL ORDER BY 2", 2),
            (
                """
                SELECT key, value, type, atom, id, parent, fullkey, path FROM json_each('{"a":1,"b":[2,3],"c":null}')
                """, 3
            ),
            (
                """
                SELECT key, value, type, atom, id, parent, fullkey, path
                FROM json_tree('{"a":1,"b":[2,{"c":"d"}],"e":null}')
                """, 7
            ),
            ("SELECT t.id, j.value FROM t, json_each(json_array(t.id, t.name)) AS j", 10),
            ("EXPLAIN SELECT * FROM t WHERE id > 2", -1),
            ("EXPLAIN QUERY PLAN SELECT * FROM t JOIN u USING (id)", -1),
        ]
        for query in queries {
            let rows = try Self.expectEveryPointer(conn, query.sql)
            if query.rows >= 0 {
                #expect(rows == query.rows, "\(query.sql)")
            } else {
                #expect(rows > 0, "\(query.sql)")
            }
            // A stale first value would point into the previous row's registers: forgetting it when a
            // row ends must be enough.
            try Self.expectEveryPointer(conn, query.sql, forgetByEndRow: true)
        }
    }

    @Test func everyValuePointerIsRightInFullTextSearchAndReturning() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL DEFAULT 0.5, data BLOB);
                INSERT INTO t VALUES (1, 'a', 1.5, x'01'), (2, 'b', NULL, NULL), (3, 'c', 3.5, x'0203');
                """)
        if sqlite3_compileoption_used("ENABLE_FTS5") != 0 {
            try conn.execute(
                script: """
                    CREATE VIRTUAL TABLE docs USING fts5(title, body);
                    INSERT INTO docs VALUES ('one', 'the quick brown fox'), ('two', 'the lazy dog'),
                        ('three', 'quick quick fox jumps');
                    """)
            #expect(
                try Self.expectEveryPointer(
                    conn, "SELECT rowid, title, body, rank, bm25(docs) FROM docs WHERE docs MATCH 'quick' ORDER BY rank"
                )
                    == 2)
            #expect(
                try Self.expectEveryPointer(
                    conn, "SELECT highlight(docs, 1, '[', ']'), title, rank FROM docs('fox OR dog') ORDER BY rank") == 3
            )
            #expect(try Self.expectEveryPointer(conn, "SELECT * FROM docs") == 3)
        }
        #expect(
            try Self.expectEveryPointer(
                conn, "INSERT INTO t (name, data) VALUES ('d', x'04'), ('e', NULL) RETURNING *, id * 2, upper(name)")
                == 2)
        #expect(
            try Self.expectEveryPointer(conn, "UPDATE t SET score = coalesce(score, 0) + 1 RETURNING id, score, name")
                == 5)
        #expect(try Self.expectEveryPointer(conn, "DELETE FROM t WHERE id > 3 RETURNING *") == 2)
        #expect(
            try Self.expectEveryPointer(
                conn,
                "INSERT INTO t VALUES (1, 'z', 9, NULL) ON CONFLICT(id) DO UPDATE SET name = excluded.name RETURNING *")
                == 1)
    }

    /// A record whose rows come back through the record paths' `RETURNING *`.
    private struct Wide: Record, Equatable {
        static let tableName = "wide"
        var id: Int64?
        var a: String
        var b: Double?
        var c: Int
        var d: Data?
        var e: String?
        var f: Bool
        var g: Int64
    }

    @Test func recordPathsReadReturnedRowsFromTheirOwnColumns() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            """
            CREATE TABLE wide (id INTEGER PRIMARY KEY, a TEXT NOT NULL, b REAL, c INTEGER NOT NULL, d BLOB, e TEXT,
                f INTEGER NOT NULL, g INTEGER NOT NULL DEFAULT 7)
            """)
        let first = Wide(id: nil, a: "a", b: 1.5, c: 1, d: Data([1]), e: nil, f: true, g: 10)
        let stored = try conn.insert(first)
        #expect(stored == Wide(id: 1, a: "a", b: 1.5, c: 1, d: Data([1]), e: nil, f: true, g: 10))
        let many = (0..<40).map { index in
            Wide(
                id: nil, a: "r\(index)", b: index % 3 == 0 ? nil : Double(index), c: index,
                d: index % 2 == 0 ? nil : Data([UInt8(index)]), e: index % 5 == 0 ? "e\(index)" : nil,
                f: index % 2 == 0, g: Int64(index) * 1000)
        }
        let fetched = try conn.insertAndFetch(contentsOf: many)
        #expect(fetched.map(\.a) == many.map(\.a))
        #expect(fetched.map(\.b) == many.map(\.b))
        #expect(fetched.map(\.d) == many.map(\.d))
        #expect(fetched.map(\.e) == many.map(\.e))
        #expect(fetched.map(\.g) == many.map(\.g))
        #expect(fetched.map(\.id) == (2...41).map { Int64($0) })
        var changed = fetched[3]
        changed.e = "changed"
        changed.b = nil
        #expect(try conn.upsert(changed) == changed)
        #expect(
            try conn.fetchAll(Wide.self, orderBy: "id") == [stored] + fetched.prefix(3) + [changed]
                + fetched.dropFirst(4))
    }

    @Test func everyValuePointerIsRightInRowsOfAsManyColumnsAsSQLiteAllows() throws {
        let conn = try Connection.inMemory()
        // SQLITE_MAX_COLUMN is fixed when SQLite is built (2,000 by default); use all of them.
        let limit = sqlite3_limit(conn.handle, SQLITE_LIMIT_COLUMN, -1)
        #expect(limit >= 100)
        let columns = Int(limit)
        let expressions = (0..<columns).map { column in
            switch column % 4 {
            case 0: "\(column) AS c\(column)"
            case 1: "'t\(column)' AS c\(column)"
            case 2: "NULL AS c\(column)"
            default: "\(column).5 AS c\(column)"
            }
        }
        let select = "SELECT " + expressions.joined(separator: ", ")
        #expect(try Self.expectEveryPointer(conn, select + " UNION ALL " + select + " UNION ALL " + select) == 3)
        let names = (0..<columns).map { "c\($0)" }
        try conn.execute("CREATE TABLE many (\(names.joined(separator: ", ")))", arguments: [])
        try conn.execute("INSERT INTO many " + select, arguments: [])
        try conn.execute("INSERT INTO many SELECT * FROM many", arguments: [])
        #expect(try Self.expectEveryPointer(conn, "SELECT * FROM many") == 2)
        #expect(try Self.expectEveryPointer(conn, "SELECT * FROM many UNION SELECT * FROM many") == 1)
        // Decoding reads the last of them from its own column.
        let last = columns - 1
        let expected: SQLiteValue =
            switch last % 4 {
            case 0: .integer(Int64(last))
            case 1: .text("t\(last)")
            case 2: .null
            default: .real(Double(last) + 0.5)
            }
        #expect(
            try conn.fetchAll(SQLiteValue.self, sql: SQL(text: "SELECT c\(last) FROM many")) == [expected, expected])
        let row = try #require(try conn.rows("SELECT * FROM many LIMIT 1").first)
        #expect(try row["c\(last)"] as SQLiteValue == expected)
    }

    // MARK: The guard

    @Test func theGuardRefusesAWrongSpacingOrAWrongFirstValue() throws {
        let conn = try Connection.inMemory()
        let statement = try Statement(
            database: conn.handle, status: conn.status, sql: "SELECT 1, 'two', 3.0, NULL, x'05'", persistent: false)
        defer { statement.finalize() }
        #expect(try statement.step())
        let first = try #require(sqlite3_column_value(statement.handle, 0))
        let second = try #require(sqlite3_column_value(statement.handle, 1))
        let base = UnsafeMutableRawPointer(first)
        let stride = UnsafeMutableRawPointer(second) - base
        #expect(stride > 0)
        #expect(ColumnValues.lastColumnMatches(handle: statement.handle, count: 5, base: base, stride: stride))
        #expect(
            !ColumnValues.lastColumnMatches(handle: statement.handle, count: 5, base: base + stride, stride: stride))
        #expect(!ColumnValues.lastColumnMatches(handle: statement.handle, count: 5, base: base, stride: stride + 8))
        #expect(!ColumnValues.lastColumnMatches(handle: statement.handle, count: 5, base: base + 1, stride: stride))
    }

    @Test func aWrongSpacingFallsBackToSQLiteForEveryValue() throws {
        let conn = try Connection.inMemory()
        let sql = "SELECT 1, 'two', 3.0, NULL, x'05' UNION ALL SELECT 6, 'seven', 8.0, 9, NULL"
        let statement = try Statement(database: conn.handle, status: conn.status, sql: sql, persistent: false)
        defer { statement.finalize() }
        #expect(try statement.step())
        let first = try #require(sqlite3_column_value(statement.handle, 0))
        let second = try #require(sqlite3_column_value(statement.handle, 1))
        let stride = UnsafeMutableRawPointer(second) - UnsafeMutableRawPointer(first)
        statement.reset()
        // Spacings SQLite does not use: the guard must catch each, and every value still be right.
        for wrong in [stride + 8, stride * 2, stride - 8, 8] {
            #expect(try Self.expectEveryPointer(conn, sql, assumedStride: wrong) == 2)
        }
        var values = ColumnValues(handle: statement.handle, count: 5, assumedStride: stride * 2)
        #expect(try statement.step())
        values.endRow()
        #expect(values.value(2) == sqlite3_column_value(statement.handle, 2))
        #expect(!values.usesStride)
        var right = ColumnValues(handle: statement.handle, count: 5)
        right.endRow()
        #expect(right.value(2) == sqlite3_column_value(statement.handle, 2))
        #expect(right.usesStride)
    }
}
