import Foundation
import Testing

@testable import Bindery

/// Dates inside JSON columns (`[Date]`, a nested struct's `Date`, `[String: Date]`) are written as date
/// columns are, per the date strategy, and read by the same rules; a number is read only under a
/// strategy that names its unit.
@Suite struct JSONDateTests {
    struct Visit: Codable, Sendable, Equatable {
        var at: Date
        var until: Date?
    }

    struct Diary: Codable, Sendable, Equatable {
        var id: Int64
        var days: [Date]
        var visit: Visit
        var byName: [String: Date]
        var maybe: [Date?]
    }

    struct Days: Codable, Sendable, Equatable {
        var days: [Date]
    }

    struct Trip: Codable, Sendable, Equatable {
        var visit: Visit
    }

    /// 2024-03-01 12:30:45.125 UTC: exact in binary, so text and numbers round-trip it exactly.
    static let noon = Date(timeIntervalSince1970: 1_709_296_245.125)
    static let epoch = Date(timeIntervalSince1970: 0)

    static let diary = Diary(
        id: 1, days: [noon, epoch], visit: Visit(at: noon, until: nil), byName: ["start": epoch],
        maybe: [nil, noon])

    static func connection(_ strategy: CodingOptions.DateStrategy = .sqliteText) throws -> Connection {
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(dateStrategy: strategy)
        try conn.execute(
            script: "CREATE TABLE diaries(id INTEGER PRIMARY KEY, days TEXT, visit TEXT, byName TEXT, maybe TEXT)")
        return conn
    }

    /// The stored text of `column` for the diary with id 1.
    static func stored(_ conn: Connection, _ column: String) throws -> String? {
        try conn.fetchOne(String.self, sql: "SELECT \(identifier: column) FROM diaries WHERE id = 1")
    }

    /// Stores `json` as the `days` of a diary with id 1 and reads it back as `Days`.
    static func days(_ json: String, _ strategy: CodingOptions.DateStrategy = .sqliteText) throws -> [Date] {
        let conn = try connection(strategy)
        try conn.execute("INSERT INTO diaries(id, days) VALUES (1, \(json))")
        return try #require(try conn.fetchOne(Days.self, sql: "SELECT days FROM diaries")).days
    }

    @Test func theDefaultWritesTheTextOfDateColumnsAndReadsItBack() throws {
        let conn = try Self.connection()
        try conn.execute(
            "INSERT INTO diaries VALUES (1, \(Self.diary.days), \(Self.diary.visit), \(Self.diary.byName), \(Self.diary.maybe))"
        )
        #expect(try Self.stored(conn, "days") == #"["2024-03-01 12:30:45.125","1970-01-01 00:00:00.000"]"#)
        #expect(try Self.stored(conn, "visit") == #"{"at":"2024-03-01 12:30:45.125"}"#)
        #expect(try Self.stored(conn, "byName") == #"{"start":"1970-01-01 00:00:00.000"}"#)
        #expect(try Self.stored(conn, "maybe") == #"[null,"2024-03-01 12:30:45.125"]"#)
        #expect(try conn.fetchAll(Diary.self, sql: "SELECT * FROM diaries") == [Self.diary])
        // SQLite's date functions read what is stored inside the JSON.
        #expect(
            try conn.fetchOne(String.self, sql: "SELECT date(json_extract(days, '$[0]')) FROM diaries") == "2024-03-01")
    }

    @Test func aNestedOptionalDateThatIsPresentRoundTrips() throws {
        let conn = try Self.connection()
        let visit = Visit(at: Self.epoch, until: Self.noon)
        try conn.execute("INSERT INTO diaries(id, visit) VALUES (1, \(visit))")
        #expect(
            try Self.stored(conn, "visit") == #"{"at":"1970-01-01 00:00:00.000","until":"2024-03-01 12:30:45.125"}"#)
        #expect(try conn.fetchOne(Trip.self, sql: "SELECT visit FROM diaries") == Trip(visit: visit))
    }

    @Test(arguments: [
        (CodingOptions.DateStrategy.unixMilliseconds, #"[1709296245125,0]"#),
        (.unixSeconds, #"[1709296245.125,0]"#),
        (.julianDay, #"[2460371.02135561"#),
    ])
    func numericStrategiesWriteTheirNumbersAndReadThemBack(strategy: CodingOptions.DateStrategy, json: String) throws {
        let conn = try Self.connection(strategy)
        try conn.execute("INSERT INTO diaries(id, days) VALUES (1, \(Self.diary.days))")
        let stored = try #require(try Self.stored(conn, "days"))
        #expect(stored == json || (stored.hasPrefix(json) && stored.hasSuffix(",2440587.5]")), "\(stored)")
        let back = try #require(try conn.fetchOne(Days.self, sql: "SELECT days FROM diaries")).days
        #expect(zip(back, Self.diary.days).allSatisfy { abs($0.timeIntervalSince($1)) < 0.000_1 })
        #expect(back.count == 2)
    }

    @Test func wholeUnixSecondsRefuseAFraction() throws {
        let conn = try Self.connection(.unixSecondsInteger)
        try conn.execute("INSERT INTO diaries(id, days) VALUES (1, \([Self.epoch]))")
        #expect(try Self.stored(conn, "days") == "[0]")
        #expect(throws: EncodingError.self) {
            try conn.execute("INSERT INTO diaries(id, days) VALUES (2, \([Self.noon]))")
        }
    }

    @Test func aCustomStrategyKeepsTheTextFormInsideJSON() throws {
        let conn = try Self.connection(
            .custom(encode: { .integer(Int64($0.timeIntervalSince1970)) }, decode: { _ in Date.distantPast }))
        try conn.execute("INSERT INTO diaries(id, days) VALUES (1, \(Self.diary.days))")
        #expect(try Self.stored(conn, "days") == #"["2024-03-01 12:30:45.125","1970-01-01 00:00:00.000"]"#)
        #expect(try conn.fetchOne(Days.self, sql: "SELECT days FROM diaries")?.days == Self.diary.days)
    }

    @Test func everyTextFormOfSQLitesDateFunctionsReads() throws {
        let dates = try Self.days(
            #"["2024-03-01", "2024-03-01T12:30", "2024-03-01 12:30:45", "2024-03-01T12:30:45.125Z", "2024-03-01 14:30:45.125+02:00"]"#
        )
        let midnight = Date(timeIntervalSince1970: 1_709_251_200)
        #expect(
            dates == [
                midnight, midnight.addingTimeInterval(45_000), midnight.addingTimeInterval(45_045), Self.noon,
                Self.noon,
            ])
    }

    @Test func aNumberUnderTheDefaultIsRefusedNotGuessed() throws {
        // GRDB writes milliseconds inside JSON: read as seconds they would be 1000 times off.
        let error = #expect(throws: DecodingError.self) { try Self.days("[1709296245125]") }
        let message = String(describing: error)
        for part in ["column \"days\"", "1709296245125", ".unixMilliseconds"] {
            #expect(message.contains(part), "\"\(part)\" not in: \(message)")
        }
        #expect(throws: DecodingError.self) { try Self.days("[0]") }
        #expect(throws: DecodingError.self) {
            try Self.days("[0]", .custom(encode: { _ in .null }, decode: { _ in Date.distantPast }))
        }
    }

    @Test func aNumberIsReadInTheUnitTheStrategyNames() throws {
        #expect(try Self.days("[1709296245125]", .unixMilliseconds) == [Self.noon])
        #expect(try Self.days("[1709296245.125]", .unixSeconds) == [Self.noon])
        #expect(try Self.days("[1709296245]", .unixSecondsInteger) == [Self.noon.addingTimeInterval(-0.125)])
        #expect(try Self.days("[2440587.5]", .julianDay) == [Self.epoch])
    }

    @Test func textThatIsNoDateAndNullAreRefused() throws {
        let error = #expect(throws: DecodingError.self) { try Self.days(#"["yesterday"]"#) }
        #expect(String(describing: error).contains("\"yesterday\" is not a date"))
        #expect(throws: DecodingError.self) { try Self.days("[null]") }
        #expect(throws: DecodingError.self) { try Self.days("[true]") }
    }

    /// Before dates inside JSON followed the strategy, every strategy wrote the default text form:
    /// such rows read back identically under every strategy.
    @Test(arguments: [
        CodingOptions.DateStrategy.sqliteText, .unixSeconds, .unixSecondsInteger, .unixMilliseconds, .julianDay,
        .custom(encode: { _ in .null }, decode: { _ in Date.distantPast }),
    ])
    func rowsWrittenBeforeReadBackIdentically(strategy: CodingOptions.DateStrategy) throws {
        let conn = try Self.connection(strategy)
        try conn.execute(
            """
            INSERT INTO diaries VALUES (1, '["2024-03-01 12:30:45.125","1970-01-01 00:00:00.000"]',
                '{"at":"2024-03-01 12:30:45.125"}', '{"start":"1970-01-01 00:00:00.000"}',
                '[null,"2024-03-01 12:30:45.125"]')
            """)
        #expect(try conn.fetchAll(Diary.self, sql: "SELECT * FROM diaries") == [Self.diary])
    }
}
