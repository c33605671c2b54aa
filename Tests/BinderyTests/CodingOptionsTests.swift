import Foundation
import Testing

@testable import Bindery

/// The other ways `CodingOptions` store dates, UUIDs and column names, each stored as the SQLite type
/// it promises and read back.
@Suite struct CodingOptionsTests {
    struct Stamp: Record, Equatable {
        var id: Int64?
        var at: Date
        var maybe: Date?
    }

    static let date = Date(timeIntervalSince1970: 1_700_000_000.123)

    /// A connection with `options` and the `stamp` table.
    static func connection(_ options: CodingOptions) throws -> Connection {
        let conn = try Connection.inMemory()
        conn.codingOptions = options
        try conn.createTable(for: Stamp.self)
        return conn
    }

    static func stored(_ conn: Connection, id: Int64) throws -> (type: String, value: SQLiteValue) {
        let row = try #require(try conn.rows("SELECT typeof(at) AS type, at FROM stamp WHERE id = \(id)").first)
        return (try row["type"], row.values[1])
    }

    @Test func defaultIsSQLiteText() throws {
        let conn = try Self.connection(CodingOptions())
        let saved = try conn.insert(Stamp(id: nil, at: Self.date, maybe: nil))
        let stored = try Self.stored(conn, id: try #require(saved.id))
        #expect(stored.type == "text")
        #expect(stored.value == .text("2023-11-14 22:13:20.123"))
        #expect(saved.at == Self.date)
    }

    @Test func dateOutsideSQLiteRangeThrows() throws {
        let conn = try Self.connection(CodingOptions())
        let error = try #require(throws: EncodingError.self) {
            try conn.insert(Stamp(id: nil, at: Date(timeIntervalSince1970: 1e15), maybe: nil))
        }
        #expect(String(describing: error).contains("0…9999"))
        #expect(String(describing: error).contains("at"))
        #expect(try conn.count(Stamp.self) == 0)
    }

    @Test func unixSeconds() throws {
        let conn = try Self.connection(CodingOptions(dateStrategy: .unixSeconds))
        let saved = try conn.insert(Stamp(id: nil, at: Self.date, maybe: Self.date))
        let stored = try Self.stored(conn, id: try #require(saved.id))
        #expect(stored.type == "real")
        #expect(stored.value == .real(1_700_000_000.123))
        #expect(saved == Stamp(id: saved.id, at: Self.date, maybe: Self.date))
        #expect(try conn.fetchOne(Stamp.self, where: "at = \(Self.date)") == saved)
        #expect(
            try conn.fetchOne(String.self, sql: "SELECT datetime(at, 'unixepoch') FROM stamp") == "2023-11-14 22:13:20")
    }

    @Test func unixSecondsInteger() throws {
        let conn = try Self.connection(CodingOptions(dateStrategy: .unixSecondsInteger))
        let whole = Date(timeIntervalSince1970: 1_700_000_000)
        let saved = try conn.insert(Stamp(id: nil, at: whole, maybe: nil))
        let stored = try Self.stored(conn, id: try #require(saved.id))
        #expect(stored.type == "integer")
        #expect(stored.value == .integer(1_700_000_000))
        #expect(saved.at == whole)
        let error = try #require(throws: EncodingError.self) {
            try conn.insert(Stamp(id: nil, at: Self.date, maybe: nil))
        }
        #expect(String(describing: error).contains("fraction of a second"))
        #expect(String(describing: error).contains("at"))
        #expect(throws: EncodingError.self) { try conn.execute("SELECT \(Self.date)") }
        #expect(try conn.count(Stamp.self) == 1)
    }

    @Test func unixMilliseconds() throws {
        let conn = try Self.connection(CodingOptions(dateStrategy: .unixMilliseconds))
        let saved = try conn.insert(Stamp(id: nil, at: Self.date, maybe: nil))
        let stored = try Self.stored(conn, id: try #require(saved.id))
        #expect(stored.type == "integer")
        #expect(stored.value == .integer(1_700_000_000_123))
        #expect(saved.at == Self.date)
        #expect(try conn.find(Stamp.self, id: try #require(saved.id)) == saved)
        let negative = Date(timeIntervalSince1970: -2_208_988_800.5)
        let old = try conn.insert(Stamp(id: nil, at: negative, maybe: nil))
        #expect(try Self.stored(conn, id: try #require(old.id)).value == .integer(-2_208_988_800_500))
        #expect(old.at == negative)
    }

    @Test func julianDay() throws {
        let conn = try Self.connection(CodingOptions(dateStrategy: .julianDay))
        let saved = try conn.insert(Stamp(id: nil, at: Self.date, maybe: nil))
        let id = try #require(saved.id)
        let stored = try Self.stored(conn, id: id)
        #expect(stored.type == "real")
        guard case .real(let julian) = stored.value else {
            Issue.record("expected a REAL, got \(stored.value)")
            return
        }
        let sqlite = try #require(try conn.fetchOne(Double.self, sql: "SELECT julianday('2023-11-14 22:13:20.123')"))
        #expect(abs(julian - sqlite) < 1e-6)
        #expect(
            try conn.fetchOne(String.self, sql: "SELECT strftime('%Y-%m-%d %H:%M:%f', at) FROM stamp")
                == "2023-11-14 22:13:20.123")
        // A Julian day holds about 40 µs at this magnitude: the date comes back within a millisecond.
        #expect(abs(saved.at.timeIntervalSince(Self.date)) < 0.001)
        #expect(try conn.find(Stamp.self, id: id) == saved)
    }

    /// A Julian day near 2.46e6 is a double whose neighbours are 2^-31 days (40 µs) apart: a date
    /// comes back within half that, about 20 µs, and seldom exactly. StorageFormats.md states this bound.
    @Test func julianDayKeepsAbout20Microseconds() throws {
        let conn = try Self.connection(CodingOptions(dateStrategy: .julianDay))
        // 2000 dates from 1980 to 2070, with fractions of a second down to the microsecond.
        let dates = (0..<2000).map { Date(timeIntervalSince1970: 315_532_800 + Double($0) * 1_419_857.123_457) }
        try conn.insert(contentsOf: dates.map { Stamp(id: nil, at: $0, maybe: $0) })
        let read = try conn.fetchAll(Stamp.self, orderBy: "id")
        #expect(read.count == dates.count)
        var largest = 0.0
        var exact = 0
        for (stamp, date) in zip(read, dates) {
            let error = abs(stamp.at.timeIntervalSince(date))
            #expect(stamp.maybe == stamp.at)
            largest = max(largest, error)
            exact += error == 0 ? 1 : 0
        }
        #expect(largest < 21e-6, "a Julian day lost \(largest * 1e6) µs")
        #expect(largest > 15e-6, "the bound stated is about 20 µs; the largest error was \(largest * 1e6) µs")
        #expect(exact < dates.count / 10)
    }

    @Test func customDateStrategy() throws {
        let options = CodingOptions(
            dateStrategy: .custom(
                encode: { date in .text("t=\(Int64((date.timeIntervalSince1970 * 1000).rounded()))") },
                decode: { value in
                    guard case .text(let text) = value, text.hasPrefix("t="), let ms = Int64(text.dropFirst(2)) else {
                        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bad stamp \(value)"))
                    }
                    return Date(timeIntervalSince1970: Double(ms) / 1000)
                }))
        let conn = try Self.connection(options)
        let saved = try conn.insert(Stamp(id: nil, at: Self.date, maybe: Self.date))
        let stored = try Self.stored(conn, id: try #require(saved.id))
        #expect(stored.value == .text("t=1700000000123"))
        #expect(saved == Stamp(id: saved.id, at: Self.date, maybe: Self.date))
        #expect(try conn.fetchAll(Stamp.self, where: "maybe = \(Self.date)") == [saved])
        try conn.execute("INSERT INTO stamp (at) VALUES ('garbage')")
        #expect(throws: DecodingError.self) { try conn.fetchAll(Stamp.self) }
    }

    @Test func textDecodesUnderEveryStrategy() throws {
        for strategy: CodingOptions.DateStrategy in [.unixSeconds, .unixSecondsInteger, .unixMilliseconds, .julianDay] {
            let conn = try Connection.inMemory()
            conn.codingOptions = CodingOptions(dateStrategy: strategy)
            #expect(try conn.fetchOne(Date.self, sql: "SELECT '2023-11-14 22:13:20.123'") == Self.date)
        }
    }

    struct Device: Record, Equatable {
        var id: UUID
        var parent: UUID?
    }

    @Test func uuidAsBlob() throws {
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(uuidStrategy: .blob)
        try conn.createTable(for: Device.self)
        let device = Device(id: UUID(), parent: UUID())
        try conn.insert(device)
        let row = try #require(try conn.rows("SELECT typeof(id) AS type, length(id) AS length, id FROM device").first)
        #expect(try row["type"] as String == "blob")
        #expect(try row["length"] as Int == 16)
        #expect(row.values[2] == .blob(withUnsafeBytes(of: device.id.uuid) { Data($0) }))
        #expect(try conn.find(Device.self, id: device.id) == device)
        #expect(try conn.fetchAll(Device.self, where: "parent = \(device.parent)") == [device])
        // Text written by others still decodes under the blob strategy, in either case.
        try conn.execute("INSERT INTO device (id) VALUES (\(device.id.uuidString))")
        try conn.execute("INSERT INTO device (id) VALUES (\(UUID().uuidString.lowercased()))")
        #expect(try conn.fetchAll(Device.self).count == 3)
    }

    @Test func uuidTextAcceptsEitherCaseAndBlobs() throws {
        let conn = try Connection.inMemory()
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(try conn.fetchOne(UUID.self, sql: "SELECT 'e621e1f8-c36c-495a-93fc-0c247a3e6e5f'") == uuid)
        #expect(try conn.fetchOne(UUID.self, sql: "SELECT 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'") == uuid)
        #expect(try conn.fetchOne(UUID.self, sql: "SELECT x'E621E1F8C36C495A93FC0C247A3E6E5F'") == uuid)
        #expect(try RowEncoder().encodeValue(uuid) == .text("e621e1f8-c36c-495a-93fc-0c247a3e6e5f"))
    }

    struct Enrollment: Record, Equatable {
        var id: Int64?
        var enrolledAt: Date
        var studentID: Int
        var homeURL: URL?
        var name: String
    }

    @Test func snakeCaseKeys() throws {
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(keyStrategy: .snakeCase)
        try conn.createTable(for: Enrollment.self)
        let columns = try conn.fetchAll(
            String.self, sql: "SELECT name FROM pragma_table_info('enrollment') ORDER BY cid")
        #expect(columns == ["id", "enrolled_at", "student_id", "home_url", "name"])
        let saved = try conn.insert(
            Enrollment(id: nil, enrolledAt: Self.date, studentID: 7, homeURL: URL(string: "https://a.b"), name: "Ana"))
        #expect(try conn.find(Enrollment.self, id: try #require(saved.id)) == saved)
        #expect(try conn.fetchOne(Enrollment.self, where: "enrolled_at = \(Self.date)") == saved)
        #expect(try conn.fetchOne(Date.self, sql: "SELECT enrolled_at FROM enrollment") == Self.date)
        #expect(RowEncoder(options: conn.codingOptions).options.columnName(forKey: "enrolledAt") == "enrolled_at")
        let pairs = try RowEncoder(options: CodingOptions(keyStrategy: .snakeCase)).encode(saved)
        #expect(pairs.map(\.column) == ["id", "enrolled_at", "student_id", "home_url", "name"])
        // Rows whose columns are named otherwise do not decode under the strategy, and say why.
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(
                Enrollment.self, sql: "SELECT id, enrolled_at AS enrolledAt, student_id, home_url, name FROM enrollment"
            )
        }
        #expect(String(describing: error).contains("enrolled_at"))
    }

    @Test(arguments: [
        ("enrolledAt", "enrolled_at"), ("userID", "user_id"), ("myURLValue", "my_url_value"), ("id", "id"),
        ("_private", "_private"), ("already_snake", "already_snake"), ("HTTPStatus", "http_status"),
        ("value2Count", "value2_count"), ("", ""),
    ])
    func snakeCaseConversion(_ key: String, _ column: String) {
        #expect(CodingOptions.snakeCase(key) == column)
    }

    /// A record whose primary key names its column as the custom key strategy makes it.
    struct Keyed: Record, Equatable {
        static let tableName = "keyed"
        static let primaryKey = ["col_ID"]
        var id: Int64?
        var name: String
    }

    @Test func customKeys() throws {
        let options = CodingOptions(keyStrategy: .custom { "col_" + $0.uppercased() })
        let pairs = try RowEncoder(options: options).encode(
            Enrollment(id: 1, enrolledAt: Self.date, studentID: 7, homeURL: nil, name: "Ana"))
        #expect(pairs.map(\.column) == ["col_ID", "col_ENROLLEDAT", "col_STUDENTID", "col_HOMEURL", "col_NAME"])
        let conn = try Connection.inMemory()
        conn.codingOptions = options
        try conn.createTable(for: Keyed.self)
        let columns = try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info('keyed') ORDER BY cid")
        #expect(columns == ["col_ID", "col_NAME"])
        let saved = try conn.insert(Keyed(id: nil, name: "x"))
        #expect(saved.id == 1)
        #expect(try conn.find(Keyed.self, id: 1) == saved)
        #expect(try conn.fetchAll(Keyed.self, where: "col_NAME = \("x")") == [saved])
    }

    @Test func userInfoReachesCustomCoding() throws {
        struct Prefixed: Decodable, Encodable {
            var name: String

            enum CodingKeys: String, CodingKey { case name }

            init(name: String) {
                self.name = name
            }

            init(from decoder: any Decoder) throws {
                let prefix = CodingOptionsTests.prefix(in: decoder.userInfo)
                name = prefix + (try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name))
            }

            func encode(to encoder: any Encoder) throws {
                let prefix = CodingOptionsTests.prefix(in: encoder.userInfo)
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(prefix + name, forKey: .name)
            }
        }
        let key = try #require(CodingUserInfoKey(rawValue: "prefix"))
        let options = CodingOptions(userInfo: [key: "p:"])
        let conn = try Connection.inMemory()
        conn.codingOptions = options
        #expect(try conn.fetchOne(Prefixed.self, sql: "SELECT 'x' AS name")?.name == "p:x")
        #expect(try RowEncoder(options: options).encode(Prefixed(name: "y")).map(\.value) == [.text("p:y")])
    }

    /// The value of the `prefix` user-info key, or "".
    static func prefix(in userInfo: [CodingUserInfoKey: Any]) -> String {
        userInfo.first { $0.key.rawValue == "prefix" }?.value as? String ?? ""
    }
}
