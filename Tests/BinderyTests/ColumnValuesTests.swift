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
}
