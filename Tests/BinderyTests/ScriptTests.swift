import CSQLite
import Foundation
import Testing

@testable import Bindery

/// `execute(script:)`: statements run one by one, errors that name the failing statement, and a
/// transaction scope that a script cannot end or split.
@Suite struct ScriptTests {
    /// An error thrown by test bodies to make a transaction roll back.
    private struct Boom: Error {}

    // MARK: Helpers

    private func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(x INTEGER PRIMARY KEY)")
        return conn
    }

    private func values(_ conn: Connection) throws -> [Int] {
        try conn.fetchAll(Int.self, sql: "SELECT x FROM t ORDER BY x")
    }

    // MARK: A script cannot end a transaction scope

    @Test func rollbackInAScriptInsideWriteIsRefusedAndNothingIsCommitted() async throws {
        try await TableTFile.with { path in
            let db = try Database(path: path)
            do {
                try await db.write { conn in
                    try conn.execute(script: "INSERT INTO t VALUES (1); ROLLBACK; INSERT INTO t VALUES (2)")
                }
                Issue.record("the write returned")
            } catch let error as SQLiteError {
                #expect(error.code == .misuse)
                #expect(error.sql == "ROLLBACK")
                #expect(error.message.contains("transaction scope"))
            }
            #expect(try TableTFile.committed(path) == [])
            // The writer is usable afterwards.
            try await db.write { try $0.execute(script: "INSERT INTO t VALUES (3)") }
            #expect(try TableTFile.committed(path) == [3])
        }
    }

    @Test(arguments: [
        ("COMMIT", "COMMIT"), ("commit transaction", "commit transaction"), ("END", "END"),
        ("End Transaction", "End Transaction"), ("/* done */ COMMIT", "COMMIT"), ("-- done\n  END;", "END"),
    ])
    func transactionEndingStatementInAScriptIsRefusedBeforeItRuns(_ ending: String, named name: String) async throws {
        try TableTFile.with { path in
            let conn = try Connection(path: path)
            let error = thrownSQLiteError {
                try conn.transaction(.immediate) { conn in
                    try conn.execute(script: "INSERT INTO t VALUES (1);\n\(ending);\nINSERT INTO t VALUES (2);")
                }
            }
            #expect(error?.code == .misuse)
            #expect(error?.sql == name)
            #expect(try TableTFile.committed(path) == [])
            #expect(!conn.isInTransaction)
        }
    }

    @Test func commitInAScriptInsideWriteCommitsNothing() async throws {
        try await TableTFile.with { path in
            let db = try Database(path: path)
            await #expect(throws: SQLiteError.self) {
                try await db.write { conn in
                    try conn.execute("INSERT INTO t VALUES (1)")
                    try conn.execute(script: "INSERT INTO t VALUES (2); COMMIT; INSERT INTO t VALUES (3)")
                }
            }
            #expect(try TableTFile.committed(path) == [])
        }
    }

    @Test(arguments: [
        "RELEASE bindery_savepoint_2", "RELEASE SAVEPOINT \"BINDERY_SAVEPOINT_2\"", "release [bindery_savepoint_2]",
    ])
    func releasingTheScopesSavepointIsRefused(_ release: String) throws {
        let conn = try makeConnection()
        try conn.transaction { conn in
            try conn.execute("INSERT INTO t VALUES (1)")
            let error = thrownSQLiteError {
                try conn.transaction { conn in
                    try conn.execute(script: "INSERT INTO t VALUES (2); \(release); INSERT INTO t VALUES (3)")
                }
            }
            #expect(error?.code == .misuse)
            #expect(error?.sql == release)
        }
        // The inner scope threw: its savepoint rolled back, and the outer transaction committed alone.
        #expect(try values(conn) == [1])
    }

    @Test func releasingASavepointOpenedOutsideTheScriptIsRefused() throws {
        let conn = try makeConnection()
        // A transaction begun by a bare SAVEPOINT: the scope becomes a savepoint inside it, and releasing
        // the outer savepoint would commit the scope's work.
        try conn.execute("SAVEPOINT mine", arguments: [])
        let error = thrownSQLiteError {
            try conn.transaction { conn in
                try conn.execute(script: "INSERT INTO t VALUES (1); RELEASE mine; INSERT INTO t VALUES (2)")
            }
        }
        #expect(error?.code == .misuse)
        #expect(error?.sql == "RELEASE mine")
        #expect(conn.isInTransaction)
        try conn.execute("ROLLBACK", arguments: [])
        #expect(try values(conn) == [])
    }

    @Test func savepointsAScriptOpensItselfWork() throws {
        let conn = try makeConnection()
        try conn.transaction { conn in
            try conn.execute(
                script: """
                    SAVEPOINT a;
                    INSERT INTO t VALUES (1);
                    ROLLBACK TO a;
                    INSERT INTO t VALUES (2);
                    SAVEPOINT "B";
                    INSERT INTO t VALUES (3);
                    RELEASE b;
                    RELEASE SAVEPOINT a;
                    """)
            // A savepoint released above is no longer the script's to release.
            let error = thrownSQLiteError { try conn.execute(script: "RELEASE a") }
            #expect(error?.code == .misuse)
        }
        #expect(try values(conn) == [2, 3])
    }

    @Test func triggerBodiesWithSemicolonsAndEndRunInsideAScope() throws {
        let conn = try makeConnection()
        try conn.transaction { conn in
            try conn.execute(
                script: """
                    CREATE TABLE log(x INTEGER);
                    CREATE TRIGGER t_log AFTER INSERT ON t BEGIN
                        INSERT INTO log VALUES (new.x);
                        INSERT INTO log VALUES (new.x * 10);
                    END;
                    INSERT INTO t VALUES (4);
                    """)
        }
        #expect(try conn.fetchAll(Int.self, sql: "SELECT x FROM log ORDER BY x") == [4, 40])
    }

    @Test func everyStatementAfterSQLiteEndedTheTransactionIsRefusedByName() async throws {
        try TableTFile.with { path in
            let conn = try Connection(path: path)
            let error = thrownSQLiteError {
                try conn.transaction { conn in
                    try conn.execute("INSERT INTO t VALUES (1)")
                    // ON CONFLICT ROLLBACK ends the whole transaction; the body goes on regardless.
                    let conflict = thrownSQLiteError { try conn.execute("INSERT OR ROLLBACK INTO t VALUES (1)") }
                    #expect(conflict?.code == .constraint)
                    let refused = thrownSQLiteError {
                        try conn.execute(script: "  -- after\nINSERT INTO t VALUES (5); INSERT INTO t VALUES (6)")
                    }
                    #expect(refused?.code == .abort)
                    #expect(refused?.sql == "INSERT INTO t VALUES (5)")
                }
            }
            #expect(error?.code == .abort)
            #expect(try TableTFile.committed(path) == [])
        }
    }

    // MARK: Errors name the failing statement

    @Test func aFailingStatementIsNamedNotTheWholeScript() throws {
        let conn = try makeConnection()
        let missing = thrownSQLiteError {
            try conn.execute(script: "CREATE TABLE a(x);\nINSERT INTO nope VALUES (1);\nCREATE TABLE b(x);")
        }
        #expect(missing?.code == .error)
        #expect(missing?.sql == "INSERT INTO nope VALUES (1)")
        #expect(missing?.message == "no such table: nope")
        // Outside a scope, the statements before the failing one keep their effect; none after it ran.
        let tables = try conn.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema WHERE name IN ('a', 'b')")
        #expect(tables == ["a"])

        let syntax = thrownSQLiteError { try conn.execute(script: "SELECT 1; SELEC 2; SELECT 3") }
        #expect(syntax?.code == .error)
        #expect(syntax?.sql == "SELEC 2")
        #expect(syntax?.message == "near \"SELEC\": syntax error")

        try conn.execute(script: "INSERT INTO t VALUES (7)")
        let constraint = thrownSQLiteError { try conn.execute(script: "SELECT 1;\nINSERT INTO t VALUES (7);") }
        #expect(constraint?.code == .constraint)
        #expect(constraint?.extendedCode == SQLITE_CONSTRAINT | (6 << 8))  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(constraint?.sql == "INSERT INTO t VALUES (7)")
        #expect(constraint?.message == "UNIQUE constraint failed: t.x")
    }

    // MARK: Outside a scope, as before

    @Test func outsideAScopeAScriptMayHoldItsOwnTransaction() throws {
        let conn = try makeConnection()
        try conn.execute(script: "BEGIN; INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); COMMIT;")
        try conn.execute(script: "BEGIN IMMEDIATE; INSERT INTO t VALUES (3); ROLLBACK")
        try conn.execute(script: "SAVEPOINT s; INSERT INTO t VALUES (4); RELEASE s")
        #expect(try values(conn) == [1, 2, 4])
        #expect(!conn.isInTransaction)
    }

    @Test func outsideAScopeEachStatementCommitsOnItsOwn() async throws {
        try TableTFile.with { path in
            let conn = try Connection(path: path)
            let error = thrownSQLiteError {
                try conn.execute(script: "INSERT INTO t VALUES (1); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)")
            }
            #expect(error?.code == .constraint)
            #expect(try TableTFile.committed(path) == [1])
        }
    }

    @Test func scriptsOfCommentsAndWhiteSpaceDoNothing() throws {
        let conn = try makeConnection()
        for script in ["", "   \n\t", "-- nothing", "/* nothing */ ;; ", ";"] {
            try conn.execute(script: script)
            try conn.transaction { try $0.execute(script: script) }
        }
        #expect(try values(conn) == [])
    }

    @Test func aScriptWithANULIsRefusedBeforeAnythingRuns() throws {
        let conn = try makeConnection()
        let error = thrownSQLiteError {
            try conn.execute(script: "INSERT INTO t VALUES (1);\u{0}INSERT INTO t VALUES (2)")
        }
        #expect(error?.code == .misuse)
        #expect(try values(conn) == [])
    }

    @Test func scriptRowsAreStepped() throws {
        let conn = try makeConnection()
        // A query in a script runs to its end: here its rows come from a statement that writes.
        try conn.execute(script: "INSERT INTO t VALUES (1), (2) RETURNING x; SELECT * FROM t")
        #expect(try values(conn) == [1, 2])
    }

    // MARK: Migrations

    @Test func aMigrationScriptThatCommitsIsRefusedAndNothingIsApplied() throws {
        let conn = try makeConnection()
        var migrator = Migrator()
        migrator.register("fill") { conn in
            try conn.execute(script: "INSERT INTO t VALUES (1); COMMIT; INSERT INTO t VALUES (2)")
        }
        #expect(throws: MigrationError.self) { try migrator.migrate(conn) }
        #expect(try values(conn) == [])
        #expect(try migrator.appliedIdentifiers(in: conn) == [])

        var good = Migrator()
        good.register("fill") { conn in
            try conn.execute(script: "CREATE TABLE u(y); INSERT INTO t VALUES (1); INSERT INTO u VALUES (2)")
        }
        #expect(try good.migrate(conn) == ["fill"])
        #expect(try values(conn) == [1])
    }

    // MARK: Reading transaction control

    @Test func transactionControlIsReadFromTheLeadingWords() {
        func read(_ sql: String) -> TransactionControl { TransactionControl(sql: Array(sql.utf8)) }
        #expect(read("BEGIN IMMEDIATE") == .begin)
        #expect(read("/* x */ commit") == .commit)
        #expect(read("-- x\nEND TRANSACTION") == .commit)
        #expect(read("ROLLBACK") == .rollback)
        #expect(read("ROLLBACK TRANSACTION") == .rollback)
        #expect(read("ROLLBACK TRANSACTION TO SAVEPOINT \"A\"\"b\"") == .rollbackTo("a\"b"))
        #expect(read("rollback to x") == .rollbackTo("x"))
        #expect(read("SAVEPOINT 'Q'") == .savepoint("q"))
        #expect(read("RELEASE `É`") == .release("É"))
        #expect(read("RELEASE/**/SAVEPOINT[x y]") == .release("x y"))
        #expect(read("SELECT 'COMMIT'") == .none)
        #expect(read("\"commit\"") == .none)
        #expect(read("") == .none)
    }
}
