import CSQLite
import Foundation
import Testing

@testable import Bindery

/// Files from elsewhere: on every connection, a schema that is not trusted (views and triggers call
/// only innocuous functions), defensive mode (no SQL corrupts the schema) and no extension loading,
/// unless `trustsSchema` turns them back on.
@Suite struct SchemaTrustTests {
    /// Counts the calls of the test function `side_effect(x)`, which returns `x`.
    private final class CallCounter {
        var calls = 0
    }

    // MARK: Helpers

    /// Registers `side_effect(x)` on `conn`: an application function with a side effect, not marked
    /// innocuous, as an app might define to write a log or send a message.
    private func registerSideEffect(on conn: Connection, counting counter: CallCounter) throws {
        let code = sqlite3_create_function_v2(
            conn.handle, "side_effect", 1, SQLITE_UTF8, Unmanaged.passUnretained(counter).toOpaque(),
            { context, _, arguments in
                guard let context, let data = sqlite3_user_data(context) else { return }
                Unmanaged<CallCounter>.fromOpaque(data).takeUnretainedValue().calls += 1
                sqlite3_result_value(context, arguments?[0])
            }, nil, nil, nil)
        #expect(code == SQLITE_OK)
    }

    /// Writes a crafted file at `path`: a view and a trigger that call `side_effect`.
    private func craftFile(at path: String) throws {
        let conn = try Connection(path: path, options: Connection.Options(trustsSchema: true))
        defer { conn.close() }
        try registerSideEffect(on: conn, counting: CallCounter())
        try conn.execute(
            script: """
                CREATE TABLE t(x INTEGER);
                CREATE TABLE log(x INTEGER);
                INSERT INTO t VALUES (1), (2);
                CREATE VIEW calls AS SELECT side_effect(x) AS y FROM t;
                CREATE TRIGGER t_insert AFTER INSERT ON t BEGIN
                    INSERT INTO log VALUES (side_effect(new.x));
                END;
                """)
    }

    private func withDirectory(_ body: (URL) async throws -> Void) async throws {
        try await ReliabilityTestSupport.withDirectory(body)
    }

    /// The setting of the on/off option `option` on `conn`.
    private func setting(_ option: Int32, on conn: Connection) -> Int32 {
        var value: Int32 = -1
        _ = bindery_db_config_flag(conn.handle, option, -1, &value)
        return value
    }

    // MARK: Views and triggers

    @Test func aCraftedViewAndTriggerCannotCallAFunctionWithSideEffects() async throws {
        try await withDirectory { directory in
            let path = directory.appendingPathComponent("crafted.sqlite").path
            try craftFile(at: path)
            let conn = try Connection(path: path)
            let counter = CallCounter()
            try registerSideEffect(on: conn, counting: counter)

            let view = thrownSQLiteError { _ = try conn.rows("SELECT y FROM calls", arguments: []) }
            #expect(view?.code == .error)
            #expect(view?.message.hasPrefix("unsafe use of side_effect()") == true)
            #expect(view?.message.contains("trustsSchema: true") == true)

            let trigger = thrownSQLiteError { try conn.execute("INSERT INTO t VALUES (3)", arguments: []) }
            #expect(trigger?.code == .error)
            #expect(trigger?.message.hasPrefix("unsafe use of side_effect()") == true)

            let script = thrownSQLiteError { try conn.execute(script: "SELECT 1; INSERT INTO t VALUES (4)") }
            #expect(script?.message.hasPrefix("unsafe use of side_effect()") == true)
            #expect(script?.sql == "INSERT INTO t VALUES (4)")

            // Nothing ran: no call, no row.
            #expect(counter.calls == 0)
            #expect(try conn.fetchAll(Int.self, sql: "SELECT x FROM t ORDER BY x") == [1, 2])
            #expect(try conn.fetchAll(Int.self, sql: "SELECT x FROM log") == [])
            // The app's own SQL may still call its function.
            #expect(try conn.fetchOne(Int.self, sql: "SELECT side_effect(5)") == 5)
            #expect(counter.calls == 1)
        }
    }

    @Test func withTrustsSchemaTheViewAndTriggerRun() async throws {
        try await withDirectory { directory in
            let path = directory.appendingPathComponent("crafted.sqlite").path
            try craftFile(at: path)
            let conn = try Connection(path: path, options: Connection.Options(trustsSchema: true))
            let counter = CallCounter()
            try registerSideEffect(on: conn, counting: counter)
            #expect(try conn.fetchAll(Int.self, sql: "SELECT y FROM calls ORDER BY y") == [1, 2])
            try conn.execute("INSERT INTO t VALUES (3)", arguments: [])
            #expect(try conn.fetchAll(Int.self, sql: "SELECT x FROM log") == [3])
            #expect(counter.calls == 3)
        }
    }

    // MARK: Defensive mode

    @Test func writableSchemaCannotEditTheSchema() async throws {
        try await withDirectory { directory in
            let path = directory.appendingPathComponent("crafted.sqlite").path
            try craftFile(at: path)
            let edit = "UPDATE sqlite_schema SET sql = 'CREATE VIEW calls AS SELECT 7 AS y' WHERE name = 'calls'"
            let schemaSQL: SQL = "SELECT sql FROM sqlite_schema WHERE name = 'calls'"

            let conn = try Connection(path: path)
            let error = thrownSQLiteError { try conn.execute(script: "PRAGMA writable_schema = ON; \(edit)") }
            #expect(error?.code == .error)
            #expect(error?.message.contains("may not be modified") == true)
            #expect(error?.sql == edit)
            #expect(try conn.fetchOne(String.self, sql: schemaSQL)?.contains("side_effect") == true)
            conn.close()

            let trusting = try Connection(path: path, options: Connection.Options(trustsSchema: true))
            try trusting.execute(script: "PRAGMA writable_schema = ON; \(edit); PRAGMA writable_schema = OFF")
            #expect(try trusting.fetchOne(String.self, sql: schemaSQL) == "CREATE VIEW calls AS SELECT 7 AS y")
        }
    }

    // MARK: Settings on every connection

    @Test func everyConnectionIsDefensiveWithAnUntrustedSchemaAndNoExtensionLoading() throws {
        for conn in [try Connection.inMemory(), try Connection.inMemory(options: .init(readOnly: true))] {
            #expect(setting(SQLITE_DBCONFIG_DEFENSIVE, on: conn) == 1)
            #expect(setting(SQLITE_DBCONFIG_TRUSTED_SCHEMA, on: conn) == 0)
            #expect(setting(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, on: conn) == 0)
            #expect(try conn.fetchOne(Int.self, sql: "PRAGMA trusted_schema") == 0)
            let load = thrownSQLiteError { _ = try conn.rows("SELECT load_extension('nothing')", arguments: []) }
            #expect(load?.code == .error)
        }
        let trusting = try Connection.inMemory(options: .init(trustsSchema: true))
        #expect(trusting.options.schemaTrust == .full)
        #expect(setting(SQLITE_DBCONFIG_DEFENSIVE, on: trusting) == 0)
        #expect(setting(SQLITE_DBCONFIG_TRUSTED_SCHEMA, on: trusting) == 1)
        #expect(setting(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, on: trusting) == 1)
    }

    /// `.trustedSchema` lifts only `trusted_schema`: defensive mode and the ban on extensions stay.
    @Test func aTrustedSchemaKeepsTheOtherDefenses() throws {
        let conn = try Connection.inMemory(options: .init(schemaTrust: .trustedSchema))
        #expect(setting(SQLITE_DBCONFIG_DEFENSIVE, on: conn) == 1)
        #expect(setting(SQLITE_DBCONFIG_TRUSTED_SCHEMA, on: conn) == 1)
        #expect(setting(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, on: conn) == 0)
        #expect(!conn.options.trustsSchema)
        try conn.execute(script: "CREATE VIEW calls AS SELECT 1 AS x")
        let edit = "UPDATE sqlite_schema SET sql = 'CREATE VIEW calls AS SELECT 7 AS y' WHERE name = 'calls'"
        let error = thrownSQLiteError { try conn.execute(script: "PRAGMA writable_schema = ON; \(edit)") }
        #expect(error?.message.contains("may not be modified") == true)
        // trustsSchema is the shorthand for .full, both ways.
        var options = Connection.Options(schemaTrust: .trustedSchema)
        options.trustsSchema = true
        #expect(options.schemaTrust == .full)
        options.trustsSchema = false
        #expect(options.schemaTrust == .untrusted)
        #expect(Connection.Options(trustsSchema: true, schemaTrust: .trustedSchema).schemaTrust == .full)
    }

    @Test func databaseOptionsReachTheWriterAndTheReaders() async throws {
        try await withDirectory { directory in
            let path = directory.appendingPathComponent("db.sqlite").path
            for trusts in [false, true] {
                let db = try Database(path: path, options: Database.Options(trustsSchema: trusts))
                let expected = trusts ? 1 : 0
                #expect(try await db.write { try $0.fetchOne(Int.self, sql: "PRAGMA trusted_schema") } == expected)
                #expect(try await db.read { try $0.fetchOne(Int.self, sql: "PRAGMA trusted_schema") } == expected)
                #expect(try await db.read { $0.options.trustsSchema } == trusts)
                try await db.close()
            }
            for trust in SchemaTrust.allCases {
                let db = try Database(path: path, options: Database.Options(schemaTrust: trust))
                #expect(try await db.write { $0.options.schemaTrust } == trust)
                #expect(try await db.read { $0.options.schemaTrust } == trust)
                let trusted = trust == .untrusted ? 0 : 1
                #expect(try await db.read { try $0.fetchOne(Int.self, sql: "PRAGMA trusted_schema") } == trusted)
                try await db.close()
            }
        }
    }
}
