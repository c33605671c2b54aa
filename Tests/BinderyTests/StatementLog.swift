import CSQLite

@testable import Bindery

/// The statements a connection starts, for tests that count or read them.
enum StatementLog {
    /// The SQL of each statement `conn` starts during `body` (a trace callback, removed afterwards).
    static func statements(_ conn: Connection, _ body: () throws -> Void) throws -> [String] {
        final class Log { var sql: [String] = [] }
        let log = Log()
        sqlite3_trace_v2(
            conn.handle, UInt32(SQLITE_TRACE_STMT),
            { _, context, statement, _ in
                guard let context, let statement, let text = sqlite3_sql(OpaquePointer(statement)) else { return 0 }
                Unmanaged<Log>.fromOpaque(context).takeUnretainedValue().sql.append(String(cString: text))
                return 0
            }, Unmanaged.passUnretained(log).toOpaque())
        defer { sqlite3_trace_v2(conn.handle, 0, nil, nil) }
        try withExtendedLifetime(log) { try body() }
        return log.sql
    }
}
