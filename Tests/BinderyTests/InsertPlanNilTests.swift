import CSQLite
import Foundation
import Testing

@testable import Bindery

/// A nil property of a record `insert` stored as given is decoded as nil from the values bound, with
/// no second statement to read the row back, and a `SQLiteValue?` property comes back nil, not
/// `.some(.null)` (`SQLiteValue` is itself `ExpressibleByNilLiteral`, so a `cond ? nil : value` whose
/// type is inferred as `SQLiteValue` gives `.null`, wrapped).
@Suite struct InsertPlanNilTests {
    struct Note: Record, Equatable {
        static let tableName = "note"
        var id: Int64?
        var title: String
        var rating: Int?
        var body: String?
        var extra: SQLiteValue?
    }

    /// The SQL of each statement a connection starts, recorded by a trace callback.
    final class StatementLog {
        var sql: [String] = []

        /// Records the statements `conn` runs during `body`.
        static func recording<R>(_ conn: Connection, _ body: () throws -> R) rethrows -> (R, [String]) {
            let log = StatementLog()
            let context = Unmanaged.passUnretained(log).toOpaque()
            sqlite3_trace_v2(
                conn.handle, UInt32(SQLITE_TRACE_STMT),
                { _, context, statement, _ in
                    guard let context, let statement, let text = sqlite3_sql(OpaquePointer(statement)) else {
                        return 0
                    }
                    Unmanaged<StatementLog>.fromOpaque(context).takeUnretainedValue().sql.append(String(cString: text))
                    return 0
                }, context)
            defer { sqlite3_trace_v2(conn.handle, 0, nil, nil) }
            let result = try withExtendedLifetime(log) { try body() }
            return (result, log.sql)
        }
    }

    static let schema =
        "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT NOT NULL, rating INTEGER, body TEXT, extra)"

    @Test func nilPropertiesNeedNoReadBack() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        try conn.transaction(.immediate) { conn in
            // The first insert of the shape prepares its statements and reads the table's schema.
            try conn.insert(Note(id: nil, title: "first", rating: nil, body: nil, extra: nil))
            let (saved, statements) = try StatementLog.recording(conn) {
                try conn.insert(Note(id: nil, title: "second", rating: nil, body: nil, extra: nil))
            }
            #expect(saved == Note(id: 2, title: "second", rating: nil, body: nil, extra: nil))
            #expect(statements.count == 1, "\(statements)")
            #expect(statements.allSatisfy { $0.hasPrefix("INSERT") }, "\(statements)")
        }
    }

    @Test func anOptionalSQLiteValueDecodesNil() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        let saved = try conn.insert(Note(id: nil, title: "t", rating: 3, body: "b", extra: nil))
        #expect(saved.extra == nil)
        #expect(saved == Note(id: 1, title: "t", rating: 3, body: "b", extra: nil))
        #expect(try conn.find(Note.self, id: 1) == saved)
        let withValue = try conn.insert(Note(id: nil, title: "u", rating: nil, body: nil, extra: .integer(7)))
        #expect(withValue.extra == .integer(7))
    }
}
