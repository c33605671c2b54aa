import Foundation
import Testing

@testable import Bindery

/// Dates as SQLite's own date functions write and read them: Bindery's text is understood by
/// `datetime()`/`julianday()`, every form SQLite writes decodes, and the hand-written calendar
/// arithmetic agrees with SQLite's over years 1…9999.
@Suite struct SQLiteDateTests {
    struct Event: Record, Equatable {
        var id: Int64?
        var name: String
        var happenedAt: Date
    }

    struct Stamp: Decodable {
        var happenedAt: Date
        var expected: String?
    }

    static let sample = Date(timeIntervalSince1970: 1_700_000_000.123)

    /// `strftime` of the full precision SQLite keeps, the text SQLiteDate writes.
    static let fullFormat = "%Y-%m-%d %H:%M:%f"

    @Test func sqliteFunctionsReadBinderyDates() throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Event.self)
        try conn.insert(Event(id: nil, name: "sample", happenedAt: Self.sample))
        try conn.insert(Event(id: nil, name: "old", happenedAt: Date(timeIntervalSince1970: -2_208_988_800.25)))
        try conn.insert(Event(id: nil, name: "leap", happenedAt: Date(timeIntervalSince1970: 951_825_599.999)))
        let rows = try conn.rows(
            """
            SELECT name, datetime(happenedAt) AS datetime, date(happenedAt) AS date,
                strftime(\(Self.fullFormat), happenedAt) AS full, strftime('%s', happenedAt) AS seconds,
                julianday(happenedAt) AS julian
            FROM event ORDER BY id
            """)
        try #require(rows.count == 3)
        #expect(try rows[0]["datetime"] as String == "2023-11-14 22:13:20")
        #expect(try rows[0]["date"] as String == "2023-11-14")
        #expect(try rows[0]["full"] as String == "2023-11-14 22:13:20.123")
        #expect(try rows[0]["seconds"] as String == "1700000000")
        #expect(try rows[1]["datetime"] as String == "1899-12-31 23:59:59")
        #expect(try rows[1]["full"] as String == "1899-12-31 23:59:59.750")
        #expect(try rows[2]["full"] as String == "2000-02-29 11:59:59.999")
        let dates = [
            Self.sample, Date(timeIntervalSince1970: -2_208_988_800.25), Date(timeIntervalSince1970: 951_825_599.999),
        ]
        for (row, date) in zip(rows, dates) {
            let julian: Double = try row["julian"]
            #expect(abs(julian - (date.timeIntervalSince1970 / 86_400 + 2_440_587.5)) < 1e-6)
            #expect(abs(julian - SQLiteDate.julianDay(from: date)) < 1e-6)
        }
        #expect(
            try conn.fetchAll(
                String.self, sql: "SELECT name FROM event WHERE happenedAt > datetime('2000-02-29 12:00') ORDER BY id")
                == ["sample"])
    }

    @Test func datesWrittenBySQLiteDecode() throws {
        let conn = try Connection.inMemory()
        let before = Date().addingTimeInterval(-2)
        for expression in [
            "CURRENT_TIMESTAMP", "datetime('now')", "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
            "strftime('%Y-%m-%d %H:%M:%f', 'now')", "datetime('now', 'localtime', 'utc')",
        ] {
            let date = try #require(try conn.fetchOne(Date.self, sql: "SELECT \(raw: expression)"))
            #expect(date >= before && date <= Date().addingTimeInterval(2), "\(expression) gave \(date)")
        }
        let today = try #require(try conn.fetchOne(Date.self, sql: "SELECT date('now')"))
        let todayText = try #require(try conn.fetchOne(String.self, sql: "SELECT date('now')"))
        #expect(SQLiteDate.string(from: today) == todayText + " 00:00:00.000")
        #expect(Date().timeIntervalSince(today) >= -2 && Date().timeIntervalSince(today) < 86_402)
    }

    /// Every text form SQLite's functions accept decodes to the instant SQLite itself reads in it.
    @Test(arguments: [
        "2024-02-29T12:30:00+01:00", "2024-02-29 12:30", "2024-02-29T12:30:45.5", "2024-02-29",
        "2024-02-29 12:30:45", "2024-02-29 12:30:45.123", "2024-02-29T12:30:45.123456Z", "2024-02-29 12:30Z",
        "2024-02-29 12:30:00-05:30", "2024-02-29T23:59:59.999+14:00", "1969-12-31 23:59:59.999",
        "0001-01-01 00:00:00", "9999-12-31 23:59:59.999", "2024-02-29T12:30:00z", "12:30", "12:30:45.5",
        // White space and `T`s where SQLite allows them.
        "2024-01-01T", "2024-01-01 ", "2024-02-29 12:30 +01:00", "2024-02-29T12:30:00Z ", "2024-02-2912:30",
        "2024-02-29 \t T12:30:45.25 -02:00 ",
    ])
    func textFormsAgreeWithSQLite(_ text: String) throws {
        let conn = try Connection.inMemory()
        let stamp = try #require(
            try conn.fetchOne(
                Stamp.self, sql: "SELECT \(text) AS happenedAt, strftime(\(Self.fullFormat), \(text)) AS expected"))
        let expected = try #require(stamp.expected, "SQLite does not read \(text)")
        #expect(SQLiteDate.string(from: stamp.happenedAt) == expected)
        #expect(SQLiteDate.date(from: text) == stamp.happenedAt)
    }

    @Test func knownInstants() throws {
        #expect(SQLiteDate.date(from: "2024-02-29T12:30:00+01:00") == Date(timeIntervalSince1970: 1_709_206_200))
        #expect(SQLiteDate.date(from: "2024-02-29 12:30") == Date(timeIntervalSince1970: 1_709_209_800))
        #expect(SQLiteDate.date(from: "2024-02-29T12:30:45.5") == Date(timeIntervalSince1970: 1_709_209_845.5))
    }

    @Test func unixSecondsDecode() throws {
        let conn = try Connection.inMemory()
        #expect(try conn.fetchOne(Date.self, sql: "SELECT 1700000000") == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(
            try conn.fetchOne(Date.self, sql: "SELECT 1700000000.5") == Date(timeIntervalSince1970: 1_700_000_000.5))
        #expect(
            try conn.fetchOne(Date.self, sql: "SELECT unixepoch('2024-02-29 12:30')")
                == SQLiteDate.date(from: "2024-02-29 12:30"))
        let stamp = try #require(try conn.fetchOne(Stamp.self, sql: "SELECT -86400 AS happenedAt, NULL AS expected"))
        #expect(stamp.happenedAt == Date(timeIntervalSince1970: -86_400))
    }

    @Test(arguments: ["2024-13-01", "abc", "2024-01-01 25:00", "2024-00-10", "2024-01-32", "2024-01-01 12:60", ""])
    func malformedTextThrowsNamingTheColumn(_ text: String) throws {
        #expect(SQLiteDate.date(from: text) == nil)
        let conn = try Connection.inMemory()
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(Stamp.self, sql: "SELECT \(text) AS happenedAt, NULL AS expected")
        }
        guard case .dataCorrupted = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        let message = String(describing: error)
        #expect(message.contains("happenedAt"))
        #expect(message.contains("TEXT"))
        #expect(message.contains("Date"))
    }

    // MARK: SQLiteDate directly

    @Test func epoch() {
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.000")
        #expect(SQLiteDate.date(from: "1970-01-01 00:00:00.000") == Date(timeIntervalSince1970: 0))
        #expect(SQLiteDate.date(from: "1970-01-01") == Date(timeIntervalSince1970: 0))
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: -0.001)) == "1969-12-31 23:59:59.999")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 0.25)) == "1970-01-01 00:00:00.250")
    }

    @Test func negativeDates() {
        let newYear1900 = Date(timeIntervalSince1970: -2_208_988_800)
        #expect(SQLiteDate.string(from: newYear1900) == "1900-01-01 00:00:00.000")
        #expect(SQLiteDate.date(from: "1900-01-01 00:00:00.000") == newYear1900)
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: -2_208_988_800.5)) == "1899-12-31 23:59:59.500")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01 00:00:00.000")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: -62_167_219_200)) == "0000-01-01 00:00:00.000")
        #expect(SQLiteDate.date(from: "0000-01-01 00:00:00") == Date(timeIntervalSince1970: -62_167_219_200))
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: -62_167_219_200.001)) == nil)
    }

    @Test func leapDays() {
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29 00:00:00.000")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 1_709_164_800)) == "2024-02-29 00:00:00.000")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 1_709_251_200)) == "2024-03-01 00:00:00.000")
        // 1900 is not a leap year: February 28 is followed by March 1.
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: -2_203_977_600)) == "1900-02-28 00:00:00.000")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: -2_203_891_200)) == "1900-03-01 00:00:00.000")
        #expect(SQLiteDate.date(from: "2024-02-29") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(SQLiteDate.date(from: "2000-02-29") == Date(timeIntervalSince1970: 951_782_400))
    }

    @Test func year9999() {
        let last = Date(timeIntervalSince1970: 253_402_300_799.999)
        #expect(SQLiteDate.string(from: last) == "9999-12-31 23:59:59.999")
        #expect(SQLiteDate.date(from: "9999-12-31 23:59:59.999") == last)
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 253_402_300_800)) == nil)
        #expect(SQLiteDate.string(from: .distantFuture) == "4001-01-01 00:00:00.000")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 1e15)) == nil)
        #expect(SQLiteDate.string(from: .distantPast) == "0000-12-30 00:00:00.000")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: .infinity)) == nil)
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: .nan)) == nil)
    }

    @Test func millisecondRounding() {
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 0.0004)) == "1970-01-01 00:00:00.000")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 0.0006)) == "1970-01-01 00:00:00.001")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 59.9996)) == "1970-01-01 00:01:00.000")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: 86_399.9999)) == "1970-01-02 00:00:00.000")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: -0.0004)) == "1970-01-01 00:00:00.000")
        #expect(SQLiteDate.string(from: Date(timeIntervalSince1970: -0.0006)) == "1969-12-31 23:59:59.999")
        #expect(SQLiteDate.date(from: "1970-01-01 00:00:00.1236") == Date(timeIntervalSince1970: 0.124))
        #expect(SQLiteDate.date(from: "1970-01-01 00:00:00.1234") == Date(timeIntervalSince1970: 0.123))
        #expect(SQLiteDate.date(from: "1970-01-01 00:00:00.5") == Date(timeIntervalSince1970: 0.5))
    }

    /// A 64-bit linear congruential generator (Knuth's MMIX constants), for a repeatable sequence.
    struct LCG {
        var state: UInt64

        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    @Test func randomMillisecondDatesRoundTripAndAgreeWithSQLite() throws {
        let first: Int64 = -62_135_596_800_000  // 0001-01-01 00:00:00.000
        let last: Int64 = 253_402_300_799_999  // 9999-12-31 23:59:59.999
        let span = UInt64(last - first + 1)
        var random = LCG(state: 20_240_229)
        let conn = try Connection.inMemory()
        var checked = 0
        for _ in 0..<10_000 {
            let milliseconds = first + Int64((random.next() >> 11) % span)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            guard let text = SQLiteDate.string(from: date) else {
                Issue.record("no text for \(milliseconds) ms")
                continue
            }
            #expect(SQLiteDate.date(from: text) == date, "\(milliseconds) ms → \(text)")
            // SQLite reads the text as the same instant, to the millisecond.
            let sqliteMilliseconds = try conn.fetchOne(
                Int64.self,
                sql: "SELECT CAST(round((julianday(\(text)) - 2440587.5) * 86400000.0) AS INTEGER)")
            #expect(sqliteMilliseconds == milliseconds, "\(text)")
            checked += 1
        }
        #expect(checked == 10_000)
    }
}
