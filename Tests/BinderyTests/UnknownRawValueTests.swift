import Foundation
import Testing

@testable import Bindery

/// A raw value that no case of an enum matches gives a `DecodingError.dataCorrupted` that names the
/// column, the value and the type, through every decoding path; other errors pass through unchanged.
@Suite struct UnknownRawValueTests {
    enum LoanStatus: String, Codable, Sendable {
        case open, returned
    }

    enum Priority: Int, Codable, Sendable {
        case low = 1
        case high = 2
    }

    /// Refuses a raw value it knows, with its own message.
    enum Mode: String, Codable, Sendable {
        case current, retired

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let raw = try container.decode(String.self)
            guard let mode = Mode(rawValue: raw), mode != .retired else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "the mode is retired")
            }
            self = mode
        }
    }

    struct Loan: Codable, Sendable {
        var id: Int64
        var status: LoanStatus
    }

    struct MaybeLoan: Codable, Sendable {
        var status: LoanStatus?
    }

    struct Job: Codable, Sendable {
        var priority: Priority
    }

    struct Setting: Codable, Sendable {
        var mode: Mode
    }

    struct ReaderLoan: ColumnDecodable, Sendable {
        var status: LoanStatus

        init(columns: ColumnReader) throws {
            status = try columns.decode(LoanStatus.self, forKey: "status")
        }
    }

    static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE loans(id INTEGER PRIMARY KEY, status TEXT, priority INTEGER, mode TEXT);
                INSERT INTO loans VALUES (1, 'stolen', 7, 'retired');
                """)
        return conn
    }

    /// The context of the `DecodingError.dataCorrupted` that `body` throws, or nil (recorded).
    static func corruption(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) -> DecodingError.Context? {
        let error = #expect(throws: DecodingError.self, sourceLocation: sourceLocation) { try body() }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("not dataCorrupted: \(String(describing: error))", sourceLocation: sourceLocation)
            return nil
        }
        return context
    }

    static let stolen = "column \"status\" holds \"stolen\", which is no LoanStatus"

    @Test func aStringRawValueNamesColumnValueAndType() throws {
        let conn = try Self.connection()
        let context = Self.corruption { _ = try conn.fetchAll(Loan.self, sql: "SELECT id, status FROM loans") }
        #expect(context?.debugDescription == Self.stolen)
        #expect(context?.codingPath.last?.stringValue == "status")
        #expect(context?.underlyingError is DecodingError)
    }

    @Test func anIntRawValueNamesColumnValueAndType() throws {
        let conn = try Self.connection()
        let context = Self.corruption { _ = try conn.fetchAll(Job.self, sql: "SELECT priority FROM loans") }
        #expect(context?.debugDescription == "column \"priority\" holds 7, which is no Priority")
    }

    @Test func optionalsCursorsAndTheDatabaseSayTheSame() async throws {
        let conn = try Self.connection()
        let optional = Self.corruption { _ = try conn.fetchAll(MaybeLoan.self, sql: "SELECT status FROM loans") }
        #expect(optional?.debugDescription == Self.stolen)
        let cursor = Self.corruption { _ = try conn.fetchCursor(Loan.self, sql: "SELECT * FROM loans").next() }
        #expect(cursor?.debugDescription == Self.stolen)

        let db = try Database.inMemory()
        try await db.write { conn in
            try conn.execute(
                script:
                    "CREATE TABLE loans(id INTEGER PRIMARY KEY, status TEXT); INSERT INTO loans VALUES (1, 'stolen');")
        }
        let error = await #expect(throws: DecodingError.self) {
            try await db.fetchOne(Loan.self, sql: "SELECT * FROM loans")
        }
        #expect(String(describing: error).contains(Self.stolen))
        try await db.close()
    }

    @Test func aTopLevelEnumFromTheFirstColumn() throws {
        let conn = try Self.connection()
        let string = Self.corruption { _ = try conn.fetchAll(LoanStatus.self, sql: "SELECT status FROM loans") }
        #expect(string?.debugDescription == Self.stolen)
        let int = Self.corruption { _ = try conn.fetchAll(Priority.self, sql: "SELECT priority FROM loans") }
        #expect(int?.debugDescription == "column \"priority\" holds 7, which is no Priority")
    }

    @Test func columnReaderSaysTheSame() throws {
        let conn = try Self.connection()
        let context = Self.corruption { _ = try conn.fetchAll(ReaderLoan.self, sql: "SELECT status FROM loans") }
        #expect(context?.debugDescription == Self.stolen)
    }

    @Test func otherErrorsPassThroughUnchanged() throws {
        let conn = try Self.connection()
        // A value the type's own init(from:) refuses although a case matches: its own message stands.
        let own = Self.corruption { _ = try conn.fetchAll(Setting.self, sql: "SELECT mode FROM loans") }
        #expect(own?.debugDescription == "the mode is retired")
        // The wrong SQL type is a type mismatch, as before.
        let error = #expect(throws: DecodingError.self) {
            try conn.fetchAll(Loan.self, sql: "SELECT 1 AS id, 3 AS status")
        }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("not typeMismatch: \(String(describing: error))")
            return
        }
        #expect(context.debugDescription.contains("column \"status\" holds INTEGER 3"))
    }

    @Test func knownRawValuesStillDecode() throws {
        let conn = try Self.connection()
        try conn.execute("UPDATE loans SET status = 'returned', priority = 2")
        let loans = try conn.fetchAll(Loan.self, sql: "SELECT id, status FROM loans")
        #expect(loans.map(\.status) == [.returned])
        #expect(try conn.fetchAll(Priority.self, sql: "SELECT priority FROM loans") == [.high])
    }
}
