import Foundation
import Testing

@testable import Bindery

/// Single statements inside a transaction scope cannot end its transaction or release its savepoint:
/// the scope commits when its body returns, or not at all.
@Suite struct TransactionControlStatementTests {
    private struct Boom: Error {}

    @Test(arguments: ["COMMIT", "END", "commit transaction", "ROLLBACK", "/* c */ rollback", "END TRANSACTION"])
    func aStatementEndingTheTransactionInsideWriteIsRefusedBeforeItRuns(statement: String) async throws {
        try await TableTFile.with { path in
            let db = try Database(path: path)
            var refusal: SQLiteError?
            do {
                try await db.write { conn in
                    try conn.execute("INSERT INTO t(x) VALUES (1)")
                    try conn.execute(statement, arguments: [])
                    try conn.execute("INSERT INTO t(x) VALUES (2)")
                }
            } catch let error as SQLiteError {
                refusal = error
            }
            #expect(refusal?.code == .misuse)
            #expect(refusal?.sql == statement)
            #expect(try TableTFile.committed(path) == [])
            // The database goes on: the next write commits.
            try await db.write { try $0.execute("INSERT INTO t(x) VALUES (3)") }
            #expect(try TableTFile.committed(path) == [3])
            try await db.close()
        }
    }

    @Test func aCaughtRefusalStillCommitsTheWholeWriteAndOnlyIt() throws {
        try TableTFile.with { path in
            let conn = try Connection(path: path)
            try conn.transaction(.immediate) { conn in
                try conn.execute("INSERT INTO t(x) VALUES (1)")
                #expect(throws: SQLiteError.self) { try conn.execute("COMMIT", arguments: []) }
                #expect(conn.isInTransaction)
                #expect(try TableTFile.committed(path) == [])
                try conn.execute("INSERT INTO t(x) VALUES (2)")
            }
            #expect(try TableTFile.committed(path) == [1, 2])
        }
    }

    @Test func releasingTheScopesSavepointIsRefused() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(x INTEGER PRIMARY KEY)")
        var refusal: SQLiteError?
        do {
            try conn.transaction { conn in
                try conn.transaction { conn in
                    try conn.execute("INSERT INTO t(x) VALUES (1)")
                    do {
                        try conn.execute("RELEASE bindery_savepoint_2", arguments: [])
                    } catch let error as SQLiteError {
                        refusal = error
                    }
                    throw Boom()
                }
            }
        } catch is Boom {}
        #expect(refusal?.code == .misuse)
        #expect(refusal?.message.contains("not opened inside the scope") == true)
        #expect(try conn.fetchAll(Int.self, sql: "SELECT x FROM t") == [])
    }

    @Test func savepointsTheScopesStatementsOpenMayBeReleasedAndRolledBackTo() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(x INTEGER PRIMARY KEY)")
        try conn.transaction { conn in
            try conn.execute("SAVEPOINT a", arguments: [])
            try conn.execute("INSERT INTO t(x) VALUES (1)")
            try conn.execute("ROLLBACK TO a", arguments: [])
            try conn.execute("INSERT INTO t(x) VALUES (2)")
            try conn.execute("RELEASE SAVEPOINT \"A\"", arguments: [])
            // Released: a second release is refused before SQLite could release an outer savepoint.
            #expect(throws: SQLiteError.self) { try conn.execute("RELEASE a", arguments: []) }
        }
        #expect(try conn.fetchAll(Int.self, sql: "SELECT x FROM t") == [2])
    }

    @Test func aSavepointAScriptOpensMayBeReleasedByALaterStatementOfTheScope() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(x INTEGER PRIMARY KEY)")
        try conn.transaction { conn in
            try conn.execute(script: "SAVEPOINT s; INSERT INTO t(x) VALUES (1)")
            try conn.execute("RELEASE s", arguments: [])
            try conn.execute(script: "SAVEPOINT r; INSERT INTO t(x) VALUES (2); ROLLBACK TO r; RELEASE r")
        }
        #expect(try conn.fetchAll(Int.self, sql: "SELECT x FROM t") == [1])
        // A new scope does not inherit the names of the last one.
        try conn.transaction { conn in
            _ = #expect(throws: SQLiteError.self) { try conn.execute("RELEASE s", arguments: []) }
        }
    }

    @Test func outsideAScopeTransactionControlRunsAsWritten() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(x INTEGER PRIMARY KEY)")
        try conn.execute("BEGIN", arguments: [])
        try conn.execute("INSERT INTO t(x) VALUES (1)")
        try conn.execute("COMMIT", arguments: [])
        try conn.execute("BEGIN", arguments: [])
        try conn.execute("INSERT INTO t(x) VALUES (2)")
        try conn.execute("ROLLBACK", arguments: [])
        #expect(!conn.isInTransaction)
        #expect(try conn.fetchAll(Int.self, sql: "SELECT x FROM t") == [1])
        // A refused statement gives its statement back: the cache lends it again afterwards.
        try conn.transaction { conn in
            _ = #expect(throws: SQLiteError.self) { try conn.execute("COMMIT", arguments: []) }
        }
        try conn.execute("BEGIN", arguments: [])
        try conn.execute("COMMIT", arguments: [])
    }
}
