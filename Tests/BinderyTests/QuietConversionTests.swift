import Foundation
import Testing

@testable import Bindery

/// The conversions a decoded value goes through, pinned as the Storage Formats article states them:
/// none of them changes a value without an error, except where the article says so.
@Suite struct QuietConversionTests {
    struct Text: Record, Equatable {
        static let tableName = "t"
        var id: Int64?
        var name: String
    }

    struct OptionalText: Record, Equatable {
        static let tableName = "t"
        var id: Int64?
        var name: String?
    }

    struct AnyValue: Record, Equatable {
        static let tableName = "t"
        var id: Int64?
        var name: SQLiteValue
    }

    struct Bytes: Decodable, Equatable {
        var bytes: Data
    }

    /// A connection whose table `t` holds, in row 1, TEXT whose bytes are not valid UTF-8.
    func invalidText() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); "
                + "INSERT INTO t VALUES (1, CAST(X'41FF42' AS TEXT))")
        return conn
    }

    /// The error names the column, and no record comes back with U+FFFD in place of the bytes.
    func expectInvalidText<T: Decodable>(_ type: T.Type, _ read: () throws -> T?) {
        do {
            let value = try read()
            Issue.record("read \(String(describing: value)), expected an error")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("column \"name\""), "\(context.debugDescription)")
            #expect(context.debugDescription.contains("not valid UTF-8"), "\(context.debugDescription)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func invalidUTF8Throws() throws {
        let conn = try invalidText()
        expectInvalidText(Text.self) { try conn.find(Text.self, id: 1) }
        expectInvalidText(OptionalText.self) { try conn.find(OptionalText.self, id: 1) }
        expectInvalidText(AnyValue.self) { try conn.find(AnyValue.self, id: 1) }
        expectInvalidText([Text].self) { try conn.fetchAll(Text.self, sql: "SELECT * FROM t") }
        expectInvalidText(String.self) { try conn.fetchOne(String.self, sql: "SELECT name FROM t") }
        // The bytes as they are, read as a BLOB.
        let bytes = try conn.fetchOne(Bytes.self, sql: "SELECT CAST(name AS BLOB) AS bytes FROM t")
        #expect(bytes == Bytes(bytes: Data([0x41, 0xFF, 0x42])))
        // Nothing was written back: the stored bytes are the same.
        #expect(try conn.fetchAll(String.self, sql: "SELECT hex(name) FROM t") == ["41FF42"])
    }

    @Test func validUTF8ReadsAsItIs() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        let saved = try conn.insert(Text(id: nil, name: "é\u{0}😀"))
        #expect(try conn.find(Text.self, id: 1) == saved)
        #expect(try conn.find(AnyValue.self, id: 1)?.name == .text("é\u{0}😀"))
    }

    struct Day: Decodable {
        var day: Date
    }

    @Test(arguments: ["2024-02-30", "2023-02-29", "2024-04-31", "2024-06-31 10:00:00", "2024-00-10", "2024-13-01"])
    func aDayTheMonthDoesNotHaveThrows(text: String) throws {
        let conn = try Connection.inMemory()
        #expect(SQLiteDate.date(from: text) == nil)
        #expect(throws: DecodingError.self) {
            try conn.fetchOne(Day.self, sql: "SELECT \(text) AS day")
        }
    }

    @Test func theLastDayOfEachMonthReads() throws {
        let days = [
            "2024-01-31", "2024-02-29", "2023-02-28", "2000-02-29", "2024-03-31", "2024-04-30", "2024-05-31",
            "2024-06-30", "2024-07-31", "2024-08-31", "2024-09-30", "2024-10-31", "2024-11-30", "2024-12-31",
        ]
        for text in days {
            let date = try #require(SQLiteDate.date(from: text), "\(text)")
            #expect(SQLiteDate.string(from: date)?.hasPrefix(text) == true)
        }
        #expect(SQLiteDate.date(from: "1900-02-29") == nil)
        // Year 300 is not a leap year either (proleptic Gregorian, as SQLite counts): its February 29 is
        // refused, and its March 1 is the Julian day SQLite gives it.
        #expect(SQLiteDate.date(from: "0300-02-29") == nil)
        let march = try #require(SQLiteDate.date(from: "0300-03-01"))
        #expect(SQLiteDate.julianDay(from: march) == 1_830_691.5)
        #expect(SQLiteDate.string(from: march)?.hasPrefix("0300-03-01") == true)
    }

    struct Number<T: Decodable & Sendable>: Decodable {
        var n: T
    }

    /// A whole REAL reads as an integer; a REAL with a fraction does not.
    @Test func aWholeRealReadsAsAnInteger() throws {
        let conn = try Connection.inMemory()
        #expect(try conn.fetchOne(Number<Int>.self, sql: "SELECT 3.0 AS n")?.n == 3)
        #expect(throws: DecodingError.self) {
            try conn.fetchOne(Number<Int>.self, sql: "SELECT 3.5 AS n")
        }
    }

    /// An INTEGER read as a `Double` is rounded to the nearest `Double` above 2^53.
    @Test func aLargeIntegerReadsAsTheNearestDouble() throws {
        let conn = try Connection.inMemory()
        let read = try conn.fetchOne(Number<Double>.self, sql: "SELECT 9007199254740993 AS n")
        #expect(read?.n == 9_007_199_254_740_992)
        #expect(try conn.fetchOne(Number<Int64>.self, sql: "SELECT 9007199254740993 AS n")?.n == 9_007_199_254_740_993)
    }
}
