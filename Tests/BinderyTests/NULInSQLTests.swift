import Foundation
import Testing

@testable import Bindery

/// SQL text holding a NUL byte: SQLite reads SQL only up to its first NUL and would run the part before
/// it without a word (`DELETE FROM t` of `DELETE FROM t<NUL> WHERE x = 1`), so every way of running
/// SQL text refuses it with ``SQLiteError/Code/misuse`` before anything runs. NUL in bound values
/// is stored as it is.
@Suite struct NULInSQLTests {
    /// A connection whose table `t` holds 1, 2 and 3.
    private func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: "CREATE TABLE t(x INTEGER PRIMARY KEY, note TEXT); INSERT INTO t(x) VALUES (1), (2), (3)")
        return conn
    }

    private func values(_ conn: Connection) throws -> [Int] {
        try conn.fetchAll(Int.self, sql: "SELECT x FROM t ORDER BY x")
    }

    /// Whether `error` is the refusal of SQL text holding a NUL byte.
    private func isNULRefusal(_ error: SQLiteError?) -> Bool {
        error?.code == .misuse && error?.message.contains("contains a NUL byte") == true
    }

    @Test func statementTextWithANULIsRefusedBeforeAnythingRuns() throws {
        let conn = try makeConnection()
        let attempts: [(Connection) throws -> Void] = [
            { try $0.execute("DELETE FROM t\0 WHERE x = 1", arguments: []) },
            { try $0.execute("DELETE FROM t\0 WHERE x = :x", arguments: ["x": .integer(1)]) },
            { try $0.execute("DELETE FROM t\(raw: "\0 WHERE x = 1")") },
            { try $0.execute(SQL(text: "DELETE FROM t\0 WHERE x = 1")) },
            { try $0.execute("UPDATE t SET note = \("n")" + SQL(text: "\0 WHERE x = 1")) },
            { _ = try $0.rows("DELETE FROM t\0 WHERE x = 1 RETURNING x", arguments: []) },
            { _ = try $0.rowCursor("DELETE FROM t\0 WHERE x = 1 RETURNING x", arguments: []).next() },
            { _ = try $0.fetchAll(Int.self, sql: "DELETE FROM t\(raw: "\0 WHERE x = 1") RETURNING x") },
            { _ = try $0.fetchOne(Int.self, sql: "DELETE FROM t\(raw: "\0 WHERE x = 1") RETURNING x") },
            { _ = try $0.fetchCursor(Int.self, sql: "DELETE FROM t\(raw: "\0 WHERE x = 1") RETURNING x").next() },
        ]
        for (index, attempt) in attempts.enumerated() {
            let error = #expect(throws: SQLiteError.self, "attempt \(index)") { try attempt(conn) }
            #expect(isNULRefusal(error), "attempt \(index): \(String(describing: error))")
            #expect(error?.sql?.utf8.contains(0) == true, "attempt \(index): the error names the SQL")
        }
        #expect(try values(conn) == [1, 2, 3])
        #expect(try conn.fetchAll(String?.self, sql: "SELECT note FROM t").allSatisfy { $0 == nil })
    }

    @Test func aScriptWithANULIsRefusedBeforeAnyOfItsStatementsRuns() throws {
        let conn = try makeConnection()
        let scripts = [
            "DELETE FROM t\0 WHERE x = 1",
            "INSERT INTO t(x) VALUES (10); DELETE FROM t\0 WHERE x = 1; INSERT INTO t(x) VALUES (11)",
            "INSERT INTO t(x) VALUES (12);\0",
        ]
        for script in scripts {
            let error = #expect(throws: SQLiteError.self) { try conn.execute(script: script) }
            #expect(isNULRefusal(error), "\(String(describing: error))")
            #expect(error?.sql == script)
        }
        #expect(try values(conn) == [1, 2, 3])
        #expect(!conn.isInTransaction)
    }

    @Test func aNULInABoundValueIsStoredAsItIs() throws {
        let conn = try makeConnection()
        let text = "a\0b\0"
        try conn.execute("UPDATE t SET note = ? WHERE x = 1", arguments: [.text(text)])
        try conn.execute("UPDATE t SET note = \(text) WHERE x = \(2)")
        let notes = try conn.fetchAll(String?.self, sql: "SELECT note FROM t ORDER BY x")
        #expect(notes == [text, text, nil])
        #expect(try conn.fetchOne(Int.self, sql: "SELECT length(CAST(note AS BLOB)) FROM t WHERE x = 1") == 4)
    }
}
