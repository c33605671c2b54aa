import Foundation
import Testing

@testable import Bindery

/// Files written before issue 16 read back identically, and the current library stores the same values
/// the same way. `Tests/Fixtures/storage-before-issue-16.sql` was written by Bindery at commit 7adef89
/// (see `Tests/Fixtures/README.md`): one table of every storage format under the default options, and one
/// table per numeric date strategy. The only difference allowed is the one issue 16 made on purpose: under
/// a numeric date strategy, a `Date` inside a JSON column is now written as a number in the strategy's unit
/// instead of the default text, and both forms read back as the same date.
@Suite struct StorageCompatibilityTests {
    enum Color: String, Codable, Sendable, CaseIterable { case red, green, blue }
    enum Level: Int, Codable, Sendable, CaseIterable {
        case low = 1
        case high = 9
    }

    struct Inner: Codable, Sendable, Equatable {
        var label: String
        var count: Int
        var at: Date
    }

    /// The record the generator wrote under the default `CodingOptions`, property for property.
    struct Everything: Record, Equatable {
        static let tableName = "everything"
        var id: Int64
        var int: Int
        var int8: Int8
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var uint: UInt
        var uint8: UInt8
        var uint16: UInt16
        var uint32: UInt32
        var uint64: UInt64
        var bool: Bool
        var float: Float
        var double: Double
        var string: String
        var data: Data
        var date: Date
        var uuid: UUID
        var url: URL
        var decimal: Decimal
        var color: Color
        var level: Level
        var note: String?
        var inner: Inner
        var innerOpt: Inner?
        var tags: [String]
        var scores: [String: Int]
        var flags: Set<String>
        var days: [Date]
    }

    protocol TimedTable: Sendable { static var name: String { get } }
    enum MillisTable: TimedTable { static let name = "timed_millis" }
    enum SecondsTable: TimedTable { static let name = "timed_seconds" }
    enum JulianTable: TimedTable { static let name = "timed_julian" }

    /// The record the generator wrote once per date strategy, each in its own table.
    struct Timed<Table: TimedTable>: Record, Equatable {
        static var tableName: String { Table.name }
        var id: Int64
        var createdAt: Date
        var userID: UUID
        var lastSeenAt: Date?
        var visitDays: [Date]
        var homeVisit: Inner
    }

    // Exact in binary: 2024-03-01 12:30:45.125, 1938-04-24 22:13:19.5, 9999-12-31 23:59:59.25 (UTC).
    static let noon = Date(timeIntervalSince1970: 1_709_296_245.125)
    static let past = Date(timeIntervalSince1970: -1_000_000_000.5)
    static let future = Date(timeIntervalSince1970: 253_402_300_799.25)
    static let epoch = Date(timeIntervalSince1970: 0)

    static func uuid() throws -> UUID { try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")) }
    static func uuid1() throws -> UUID { try #require(UUID(uuidString: "00000000-0000-0000-0000-000000000001")) }
    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }
    static func decimal(_ text: String) throws -> Decimal { try #require(Decimal(string: text, locale: nil)) }

    /// The four rows the generator inserted into `everything`, exactly as it wrote them.
    static func everything() throws -> [Everything] {
        [
            Everything(
                id: 1, int: 42, int8: -8, int16: 1600, int32: -320_000, int64: 6_400_000_000, uint: 1 << 62,
                uint8: 200, uint16: 65_000, uint32: 4_000_000_000, uint64: UInt64(Int64.max), bool: true,
                float: 0.1, double: 3.141592653589793, string: "café\u{0}nul 👩‍👩‍👧 e\u{301}",
                data: Data([0, 1, 254, 255]), date: noon, uuid: try uuid(),
                url: try url("https://example.com/a%20b?q=1#frag"),
                decimal: try decimal("12345678901234567890.123456789"), color: .green, level: .high,
                note: "set", inner: Inner(label: "in", count: 3, at: noon),
                innerOpt: Inner(label: "opt", count: -1, at: past), tags: ["a", "b c"], scores: ["x": 1, "y": 2],
                flags: ["one", "two", "three"], days: [noon, past, future]),
            Everything(
                id: 2, int: .min, int8: .min, int16: .min, int32: .min, int64: .max, uint: 0, uint8: .max,
                uint16: .max, uint32: .max, uint64: 0, bool: false, float: -0.0, double: -0.0, string: "",
                data: Data(), date: past, uuid: try uuid1(), url: try url("file:///tmp/x.sqlite"),
                decimal: try decimal("-0.000000000000000000000000000001"), color: .red, level: .low, note: nil,
                inner: Inner(label: "", count: 0, at: future), innerOpt: nil, tags: [], scores: [:], flags: [],
                days: []),
            Everything(
                id: 3, int: .max, int8: .max, int16: .max, int32: .max, int64: .min, uint: UInt(Int64.max),
                uint8: 0, uint16: 0, uint32: 0, uint64: 1, bool: true, float: .greatestFiniteMagnitude,
                double: .greatestFiniteMagnitude, string: "\u{0}", data: Data(repeating: 0xAB, count: 17),
                date: future, uuid: try uuid(), url: try url("mailto:a@b.c"),
                decimal: try decimal("79228162514264337593543950335"), color: .blue, level: .low, note: "",
                inner: Inner(label: "ü", count: .max, at: past), innerOpt: nil, tags: ["\u{0}"], scores: ["é": -1],
                flags: ["solo"], days: [future]),
            Everything(
                id: 4, int: 0, int8: 0, int16: 0, int32: 0, int64: 0, uint: 0, uint8: 0, uint16: 0, uint32: 0,
                uint64: 0, bool: false, float: .leastNonzeroMagnitude, double: .leastNormalMagnitude,
                string: "tiny", data: Data([0]), date: epoch, uuid: try uuid(), url: try url("https://example.com"),
                decimal: 0, color: .red, level: .high, note: nil, inner: Inner(label: "x", count: 1, at: epoch),
                innerOpt: nil, tags: ["z"], scores: [:], flags: [], days: [Date(timeIntervalSince1970: 0.5)]),
        ]
    }

    /// The two rows the generator inserted into each `timed_…` table.
    static func timed<T: TimedTable>(_: T.Type) throws -> [Timed<T>] {
        [
            Timed(
                id: 1, createdAt: noon, userID: try uuid(), lastSeenAt: past, visitDays: [noon, past, future],
                homeVisit: Inner(label: "home", count: 2, at: noon)),
            Timed(
                id: 2, createdAt: past, userID: try uuid1(), lastSeenAt: nil, visitDays: [],
                homeVisit: Inner(label: "", count: 0, at: future)),
        ]
    }

    static let millisOptions = CodingOptions(
        dateStrategy: .unixMilliseconds, uuidStrategy: .blob, keyStrategy: .snakeCase)
    static let secondsOptions = CodingOptions(dateStrategy: .unixSeconds)
    static let julianOptions = CodingOptions(dateStrategy: .julianDay)

    /// The fixture loaded into a fresh in-memory database.
    static func fixture() throws -> Connection {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/storage-before-issue-16.sql")
        let conn = try Connection.inMemory()
        try conn.execute(script: try String(contentsOf: url, encoding: .utf8))
        return conn
    }

    /// `records` written by the current library, with `options`, into a table of a fresh database.
    static func writtenNow<T: Record>(_ records: [T], options: CodingOptions = CodingOptions()) throws -> Connection {
        let conn = try Connection.inMemory()
        conn.codingOptions = options
        try conn.createTable(for: T.self)
        _ = try conn.insert(contentsOf: records)
        return conn
    }

    /// Every stored value of `table`, by row (in `id` order) and column name.
    static func storedValues(_ conn: Connection, _ table: String) throws -> [[String: SQLiteValue]] {
        try conn.rows("SELECT * FROM \"\(table)\" ORDER BY id", arguments: []).map { row in
            var values: [String: SQLiteValue] = [:]
            for (index, name) in row.columnNames.enumerated() {
                values[name] = try row[index] as SQLiteValue
            }
            return values
        }
    }

    /// Whether two stored values are the same: same SQLite type and, for REAL, the same bits.
    static func same(_ old: SQLiteValue?, _ new: SQLiteValue?) -> Bool {
        if case .real(let a) = old, case .real(let b) = new { return a.bitPattern == b.bitPattern }
        return old == new
    }

    /// The `CREATE TABLE` statement SQLite keeps for `table`.
    static func schema(_ conn: Connection, _ table: String) throws -> String {
        let rows = try conn.rows("SELECT sql FROM sqlite_master WHERE name = ?", arguments: [.text(table)])
        return try #require(rows.first)[0]
    }

    /// Compares every stored value of `table` in the fixture with what the current library writes for the
    /// same records; returns the columns that differ, by row id, and the number of values compared.
    static func differences(
        fixture: Connection, now: Connection, table: String
    ) throws -> (differing: [Int64: Set<String>], compared: Int) {
        #expect(try schema(fixture, table) == schema(now, table), "the CREATE TABLE of \(table) changed")
        let old = try storedValues(fixture, table)
        let new = try storedValues(now, table)
        #expect(old.count == new.count)
        var differing: [Int64: Set<String>] = [:]
        var compared = 0
        for (oldRow, newRow) in zip(old, new) {
            #expect(Set(oldRow.keys) == Set(newRow.keys))
            guard case .integer(let id) = oldRow["id"] else {
                Issue.record("row without an INTEGER id in \(table): \(oldRow)")
                continue
            }
            for (column, value) in oldRow {
                compared += 1
                if !same(value, newRow[column]) { differing[id, default: []].insert(column) }
            }
        }
        return (differing, compared)
    }

    // MARK: - Reading the old file

    @Test func defaultOptionsRowsDecodeToTheValuesWritten() throws {
        let conn = try Self.fixture()
        let read = try conn.fetchAll(Everything.self, orderBy: "id")
        let expected = try Self.everything()
        #expect(read == expected)
        // `==` lets -0.0 equal 0.0 and says nothing about where two values differ: check the exact bits.
        for (got, want) in zip(read, expected) {
            #expect(got.float.bitPattern == want.float.bitPattern || (got.float == 0 && want.float == 0))
            #expect(got.double.bitPattern == want.double.bitPattern || (got.double == 0 && want.double == 0))
            #expect(got.date.timeIntervalSince1970 == want.date.timeIntervalSince1970)
            #expect(got.days.map(\.timeIntervalSince1970) == want.days.map(\.timeIntervalSince1970))
            #expect(got.string.unicodeScalars.elementsEqual(want.string.unicodeScalars))
            #expect(got.decimal == want.decimal)
        }
        // A REAL column stores -0.0 as 0 (SQLite's REAL affinity keeps an integral real as an integer on
        // disk), so a negative zero has always come back as +0.0.
        #expect(read.count == 4)
        if read.count == 4 {
            #expect(read[1].double.sign == .plus && read[1].float.sign == .plus)
        }
    }

    @Test func millisecondsSnakeCaseBlobRowsDecode() throws {
        let conn = try Self.fixture()
        conn.codingOptions = Self.millisOptions
        #expect(try conn.fetchAll(Timed<MillisTable>.self, orderBy: "id") == Self.timed(MillisTable.self))
    }

    @Test func unixSecondsRowsDecode() throws {
        let conn = try Self.fixture()
        conn.codingOptions = Self.secondsOptions
        #expect(try conn.fetchAll(Timed<SecondsTable>.self, orderBy: "id") == Self.timed(SecondsTable.self))
    }

    /// `.julianDay` keeps a date to about 20 µs, so top-level dates are compared to within a millisecond;
    /// the dates inside JSON were written as text by the old library and come back exactly.
    @Test func julianDayRowsDecode() throws {
        let conn = try Self.fixture()
        conn.codingOptions = Self.julianOptions
        let read = try conn.fetchAll(Timed<JulianTable>.self, orderBy: "id")
        let expected = try Self.timed(JulianTable.self)
        #expect(read.count == expected.count)
        for (got, want) in zip(read, expected) {
            #expect(abs(got.createdAt.timeIntervalSince(want.createdAt)) < 0.001)
            #expect((got.lastSeenAt == nil) == (want.lastSeenAt == nil))
            if let seen = got.lastSeenAt, let wanted = want.lastSeenAt {
                #expect(abs(seen.timeIntervalSince(wanted)) < 0.001)
            }
            #expect(got.id == want.id && got.userID == want.userID)
            #expect(got.visitDays == want.visitDays && got.homeVisit == want.homeVisit)
        }
    }

    // MARK: - Writing the same values now

    /// Every column of every row, written now under the default options, holds the same SQLite value as
    /// the old file, and the table's schema is the same.
    @Test func defaultOptionsWriteTheSameValues() throws {
        let fixture = try Self.fixture()
        let now = try Self.writtenNow(try Self.everything())
        let (differing, compared) = try Self.differences(fixture: fixture, now: now, table: "everything")
        #expect(compared == 4 * 29)
        // A set's JSON array lists its elements in hash order, which changes from process to process:
        // compare row 1's `flags` as a set of strings; every other column must be identical.
        #expect(differing.filter { $0.key != 1 }.isEmpty, "changed: \(differing)")
        #expect(differing[1, default: []].subtracting(["flags"]).isEmpty, "changed: \(differing)")
        let flags = try Self.storedValues(fixture, "everything").map { $0["flags"] }
        let flagsNow = try Self.storedValues(now, "everything").map { $0["flags"] }
        #expect(try flags.map(Self.jsonStrings) == flagsNow.map(Self.jsonStrings))
    }

    static func jsonStrings(_ value: SQLiteValue?) throws -> Set<String> {
        guard case .text(let text) = value else { throw CocoaError(.coderInvalidValue) }
        return Set(try JSONDecoder().decode([String].self, from: Data(text.utf8)))
    }

    /// Under `.unixMilliseconds`, `.blob` UUIDs and snake-case keys, every column is the same except
    /// the JSON columns holding dates, which issue 16 changed on purpose: text before, milliseconds now.
    @Test func millisecondsWriteTheSameValuesExceptDatesInJSON() throws {
        let fixture = try Self.fixture()
        let now = try Self.writtenNow(try Self.timed(MillisTable.self), options: Self.millisOptions)
        let (differing, compared) = try Self.differences(fixture: fixture, now: now, table: "timed_millis")
        #expect(compared == 2 * 6)
        #expect(differing == [1: ["visit_days", "home_visit"], 2: ["home_visit"]])
        try Self.expectJSONDates(
            fixture: fixture, now: now, table: "timed_millis", columns: ("visit_days", "home_visit"),
            newDays: "[1709296245125,-1000000000500,253402300799250]",
            newHome: [
                #"{"at":1709296245125,"count":2,"label":"home"}"#, #"{"at":253402300799250,"count":0,"label":""}"#,
            ])
        try Self.expectBothRead(Timed<MillisTable>.self, fixture: fixture, now: now, options: Self.millisOptions)
    }

    /// Under `.unixSeconds`: the same, with REAL seconds inside JSON now.
    @Test func unixSecondsWriteTheSameValuesExceptDatesInJSON() throws {
        let fixture = try Self.fixture()
        let now = try Self.writtenNow(try Self.timed(SecondsTable.self), options: Self.secondsOptions)
        let (differing, compared) = try Self.differences(fixture: fixture, now: now, table: "timed_seconds")
        #expect(compared == 2 * 6)
        #expect(differing == [1: ["visitDays", "homeVisit"], 2: ["homeVisit"]])
        try Self.expectJSONDates(
            fixture: fixture, now: now, table: "timed_seconds", columns: ("visitDays", "homeVisit"),
            newDays: "[1709296245.125,-1000000000.5,253402300799.25]",
            newHome: [
                #"{"at":1709296245.125,"count":2,"label":"home"}"#, #"{"at":253402300799.25,"count":0,"label":""}"#,
            ])
        try Self.expectBothRead(Timed<SecondsTable>.self, fixture: fixture, now: now, options: Self.secondsOptions)
    }

    /// Under `.julianDay`: the same, with REAL Julian days inside JSON now. The top-level REAL columns are
    /// bit for bit those of the old file.
    @Test func julianDayWritesTheSameValuesExceptDatesInJSON() throws {
        let fixture = try Self.fixture()
        let now = try Self.writtenNow(try Self.timed(JulianTable.self), options: Self.julianOptions)
        let (differing, compared) = try Self.differences(fixture: fixture, now: now, table: "timed_julian")
        #expect(compared == 2 * 6)
        #expect(differing == [1: ["visitDays", "homeVisit"], 2: ["homeVisit"]])
        let old = try Self.storedValues(fixture, "timed_julian")
        let new = try Self.storedValues(now, "timed_julian")
        for (oldRow, newRow) in zip(old, new) {
            for column in ["visitDays", "homeVisit"] {
                guard case .text(let before) = oldRow[column], case .text(let after) = newRow[column] else {
                    Issue.record("\(column) is not TEXT in both files")
                    continue
                }
                if before == "[]" { continue }
                // Before: the default text form; now: a Julian day number (2,460,371.02… for `noon`).
                #expect(
                    before.contains("\"2024-03-01 12:30:45.125\"") || before.contains("\"9999-12-31 23:59:59.250\""))
                #expect(after.contains("2460371.02") || after.contains("5373484.49"), "\(after)")
                #expect(!after.contains("\"20") && !after.contains("\"99"), "\(after)")
            }
        }
        // Both forms read back as the same dates, within `.julianDay`'s precision.
        let fixtureRows = try Self.readWith(Timed<JulianTable>.self, fixture, Self.julianOptions)
        let nowRows = try Self.readWith(Timed<JulianTable>.self, now, Self.julianOptions)
        #expect(fixtureRows.count == 2 && nowRows.count == 2)
        for (before, after) in zip(fixtureRows, nowRows) {
            for (a, b) in zip(before.visitDays + [before.homeVisit.at], after.visitDays + [after.homeVisit.at]) {
                #expect(abs(a.timeIntervalSince(b)) < 0.001)
            }
        }
    }

    // MARK: - Helpers for the deliberate change

    static func readWith<T: Record>(_: T.Type, _ conn: Connection, _ options: CodingOptions) throws -> [T] {
        conn.codingOptions = options
        return try conn.fetchAll(T.self, orderBy: "id")
    }

    /// The old file holds the dates inside JSON as the default text; the new one as the numbers given.
    static func expectJSONDates(
        fixture: Connection, now: Connection, table: String, columns: (days: String, home: String),
        newDays: String, newHome: [String]
    ) throws {
        let old = try storedValues(fixture, table)
        let new = try storedValues(now, table)
        #expect(
            old.map { $0[columns.days] } == [
                .text(#"["2024-03-01 12:30:45.125","1938-04-24 22:13:19.500","9999-12-31 23:59:59.250"]"#), .text("[]"),
            ])
        #expect(new.map { $0[columns.days] } == [.text(newDays), .text("[]")])
        #expect(
            old.map { $0[columns.home] } == [
                .text(#"{"at":"2024-03-01 12:30:45.125","count":2,"label":"home"}"#),
                .text(#"{"at":"9999-12-31 23:59:59.250","count":0,"label":""}"#),
            ])
        #expect(new.map { $0[columns.home] } == newHome.map { .text($0) })
    }

    /// Both the old text and the new numbers read back as the very dates written.
    static func expectBothRead<T: TimedTable>(
        _: Timed<T>.Type, fixture: Connection, now: Connection, options: CodingOptions
    ) throws {
        let expected = try timed(T.self)
        #expect(try readWith(Timed<T>.self, fixture, options) == expected)
        #expect(try readWith(Timed<T>.self, now, options) == expected)
    }
}
