import Foundation
import Testing

@testable import Bindery

/// Every row of the storage table in DESIGN.md, written and read back through each path, and the SQLite
/// type each one is stored as; then the custom `init(from:)`/`encode(to:)` shapes a row supports.
@Suite struct StorageRoundTripTests {
    enum Color: String, Codable, Sendable, CaseIterable {
        case red, green
    }

    enum Level: Int, Codable, Sendable, CaseIterable {
        case low = 1
        case high = 9
    }

    struct Inner: Codable, Sendable, Equatable {
        var label: String
        var count: Int
        var at: Date
    }

    struct Everything: Record, Equatable {
        static let tableName = "everything"
        var id: Int64?
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
        var float: Float
        var double: Double
        var bool: Bool
        var string: String
        var data: Data
        var date: Date
        var uuid: UUID
        var url: URL
        var decimal: Decimal
        var color: Color
        var level: Level
        var optionalNil: String?
        var optionalSet: Int?
        var inner: Inner
        var strings: [String]
        var dictionary: [String: Int]
    }

    /// The SQLite type each column must be stored as, per the storage table.
    static let storedTypes: [String: String] = [
        "id": "integer", "int": "integer", "int8": "integer", "int16": "integer", "int32": "integer",
        "int64": "integer", "uint": "integer", "uint8": "integer", "uint16": "integer", "uint32": "integer",
        "uint64": "integer", "float": "real", "double": "real", "bool": "integer", "string": "text",
        "data": "blob", "date": "text", "uuid": "text", "url": "text", "decimal": "text", "color": "text",
        "level": "integer", "optionalNil": "null", "optionalSet": "integer", "inner": "text", "strings": "text",
        "dictionary": "text",
    ]

    static let date = Date(timeIntervalSince1970: 1_700_000_000.123)

    static func decimal() throws -> Decimal {
        try #require(Decimal(string: "12345.678901234567890123", locale: nil))
    }

    static func url() throws -> URL {
        try #require(URL(string: "https://example.com/a%20b?q=1&r=%C3%A9#frag"))
    }

    static func uuid() throws -> UUID {
        try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    }

    /// Every integer width at its minimum, the other values set one way.
    static func minimum() throws -> Everything {
        Everything(
            id: nil, int: .min, int8: .min, int16: .min, int32: .min, int64: .min, uint: .min, uint8: .min,
            uint16: .min, uint32: .min, uint64: .min, float: -.greatestFiniteMagnitude,
            double: -.greatestFiniteMagnitude, bool: false, string: "Zoë 👩‍🔬 🇫🇷\u{0}after a NUL", data: Data(),
            date: date, uuid: try uuid(), url: try url(), decimal: try decimal(), color: .red, level: .low,
            optionalNil: nil, optionalSet: 0, inner: Inner(label: "in \"quotes\"", count: -1, at: date),
            strings: [], dictionary: [:])
    }

    /// Every integer width at its maximum (UInt and UInt64 at Int64.max, the most SQLite holds).
    static func maximum() throws -> Everything {
        Everything(
            id: nil, int: .max, int8: .max, int16: .max, int32: .max, int64: .max, uint: UInt(Int64.max),
            uint8: .max, uint16: .max, uint32: .max, uint64: UInt64(Int64.max), float: .greatestFiniteMagnitude,
            double: .greatestFiniteMagnitude, bool: true, string: "", data: Data([0, 1, 2, 255, 0]),
            date: Date(timeIntervalSince1970: -2_208_988_800.5), uuid: UUID(), url: try url(),
            decimal: try #require(Decimal(string: "-0.000000000000000000000000000001", locale: nil)),
            color: .green, level: .high, optionalNil: nil, optionalSet: Int.max,
            inner: Inner(label: "", count: 0, at: Date(timeIntervalSince1970: 0)),
            strings: ["a", "", "Robert'); DROP TABLE everything;--", "ü\u{0}"],
            dictionary: ["one": 1, "min": Int.min, "max": Int.max, "": 0])
    }

    static func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Everything.self)
        return conn
    }

    /// `typeof()` of every column of the row with `id`.
    static func storedTypes(_ conn: Connection, id: Int64) throws -> [String: String] {
        var types: [String: String] = [:]
        for column in storedTypes.keys {
            let sql: SQL = "SELECT typeof(\(identifier: column)) FROM everything WHERE id = \(id)"
            let type = try #require(try conn.fetchOne(String.self, sql: sql), "no row \(id)")
            types[column] = type
        }
        return types
    }

    /// The record with its id set, to compare with what comes back.
    static func withID(_ value: Everything, _ id: Int64?) -> Everything {
        var value = value
        value.id = id
        return value
    }

    @Test(arguments: ["minimum", "maximum"])
    func insertThroughRecordOperations(_ which: String) throws {
        let conn = try Self.makeConnection()
        let value = which == "minimum" ? try Self.minimum() : try Self.maximum()
        let saved = try conn.insert(value)
        let id = try #require(saved.id)
        #expect(saved == Self.withID(value, id))
        #expect(try conn.find(Everything.self, id: id) == Self.withID(value, id))
        #expect(try conn.fetchAll(Everything.self) == [Self.withID(value, id)])
        #expect(try Self.storedTypes(conn, id: id) == Self.storedTypes)
    }

    @Test(arguments: ["minimum", "maximum"])
    func insertThroughInterpolatedSQL(_ which: String) throws {
        let conn = try Self.makeConnection()
        let v = which == "minimum" ? try Self.minimum() : try Self.maximum()
        try conn.execute(
            """
            INSERT INTO everything (id, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float,
                double, bool, string, data, date, uuid, url, decimal, color, level, optionalNil, optionalSet, inner,
                strings, dictionary)
            VALUES (\(Int64(7)), \(v.int), \(v.int8), \(v.int16), \(v.int32), \(v.int64), \(v.uint), \(v.uint8),
                \(v.uint16), \(v.uint32), \(v.uint64), \(v.float), \(v.double), \(v.bool), \(v.string), \(v.data),
                \(v.date), \(v.uuid), \(v.url), \(v.decimal), \(v.color), \(v.level), \(v.optionalNil),
                \(v.optionalSet), \(v.inner), \(v.strings), \(v.dictionary))
            """)
        #expect(try conn.find(Everything.self, id: 7) == Self.withID(v, 7))
        #expect(try conn.fetchAll(Everything.self, where: "id = \(7)") == [Self.withID(v, 7)])
        #expect(try Self.storedTypes(conn, id: 7) == Self.storedTypes)
    }

    @Test func bothPathsStoreTheSameValues() throws {
        let conn = try Self.makeConnection()
        let v = try Self.minimum()
        let saved = try conn.insert(v)
        try conn.execute(
            """
            INSERT INTO everything (int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float,
                double, bool, string, data, date, uuid, url, decimal, color, level, optionalNil, optionalSet, inner,
                strings, dictionary)
            VALUES (\(v.int), \(v.int8), \(v.int16), \(v.int32), \(v.int64), \(v.uint), \(v.uint8), \(v.uint16),
                \(v.uint32), \(v.uint64), \(v.float), \(v.double), \(v.bool), \(v.string), \(v.data), \(v.date),
                \(v.uuid), \(v.url), \(v.decimal), \(v.color), \(v.level), \(v.optionalNil), \(v.optionalSet),
                \(v.inner), \(v.strings), \(v.dictionary))
            """)
        let rows = try conn.rows("SELECT * FROM everything ORDER BY id")
        try #require(rows.count == 2)
        #expect(Array(rows[0].values.dropFirst()) == Array(rows[1].values.dropFirst()))
        #expect(try conn.find(Everything.self, id: try #require(saved.id)) == saved)
    }

    @Test func storedTextForms() throws {
        let conn = try Self.makeConnection()
        let saved = try conn.insert(try Self.minimum())
        let id = try #require(saved.id)
        let row = try #require(try conn.rows("SELECT * FROM everything WHERE id = \(id)").first)
        #expect(try row["date"] as String == "2023-11-14 22:13:20.123")
        #expect(try row["uuid"] as String == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        #expect(try row["url"] as String == "https://example.com/a%20b?q=1&r=%C3%A9#frag")
        #expect(try row["decimal"] as String == "12345.678901234567890123")
        #expect(try row["color"] as String == "red")
        #expect(try row["level"] as Int64 == 1)
        #expect(try row["strings"] as String == "[]")
        #expect(try row["inner"] as String == #"{"at":"2023-11-14 22:13:20.123","count":-1,"label":"in \"quotes\""}"#)
        #expect(try row["string"] as String == "Zoë 👩‍🔬 🇫🇷\u{0}after a NUL")
        let byteCount = try Self.minimum().string.utf8.count
        #expect(try conn.fetchOne(Int.self, sql: "SELECT length(CAST(string AS BLOB)) FROM everything") == byteCount)
        #expect(try conn.fetchOne(Int.self, sql: "SELECT length(string) FROM everything") ?? 0 < byteCount)
        #expect(try conn.fetchOne(Int.self, sql: "SELECT length(data) FROM everything") == 0)
    }

    @Test func unsignedAboveInt64MaxThrows() throws {
        let conn = try Self.makeConnection()
        var value = try Self.maximum()
        value.uint64 = .max
        let error = try #require(throws: EncodingError.self) { try conn.insert(value) }
        guard case .invalidValue = error else {
            Issue.record("expected invalidValue, got \(error)")
            return
        }
        #expect(error.column == "uint64")
        #expect(String(describing: error).contains("uint64"))
        #expect(String(describing: error).contains("above Int64.max"))
        value.uint64 = UInt64(Int64.max) + 1
        #expect(throws: EncodingError.self) { try conn.insert(value) }
        value = try Self.maximum()
        value.uint = .max
        let uintError = try #require(throws: EncodingError.self) { try conn.insert(value) }
        #expect(uintError.column == "uint")
        #expect(String(describing: uintError).contains("above Int64.max"))
        #expect(throws: EncodingError.self) { try conn.execute("SELECT \(UInt64.max)") }
        #expect(throws: EncodingError.self) { try conn.execute("SELECT \(UInt.max)") }
        #expect(throws: EncodingError.self) { try RowEncoder().encodeValue(UInt64.max) }
        #expect(try conn.count(Everything.self) == 0)
        #expect(try conn.fetchOne(UInt64.self, sql: "SELECT \(UInt64(Int64.max))") == UInt64(Int64.max))
    }

    @Test func notANumberThrows() throws {
        let conn = try Self.makeConnection()
        var value = try Self.minimum()
        value.double = .nan
        let error = try #require(throws: EncodingError.self) { try conn.insert(value) }
        #expect(String(describing: error).contains("NaN"))
        #expect(error.column == "double")
        value = try Self.minimum()
        value.float = .nan
        #expect(throws: EncodingError.self) { try conn.insert(value) }
        #expect(throws: EncodingError.self) { try conn.execute("SELECT \(Double.nan)") }
        #expect(try conn.count(Everything.self) == 0)
        #expect(try conn.fetchOne(Double.self, sql: "SELECT \(Double.infinity)") == .infinity)
    }

    @Test func singleValueTypesFromTheFirstColumn() throws {
        let conn = try Connection.inMemory()
        let v = try Self.maximum()
        #expect(try conn.fetchOne(Int8.self, sql: "SELECT \(Int8.min), 'ignored'") == .min)
        #expect(try conn.fetchOne(UInt32.self, sql: "SELECT \(UInt32.max)") == .max)
        #expect(try conn.fetchOne(UInt.self, sql: "SELECT \(v.uint)") == v.uint)
        #expect(try conn.fetchOne(Float.self, sql: "SELECT \(v.float)") == v.float)
        #expect(try conn.fetchOne(Bool.self, sql: "SELECT \(true)") == true)
        #expect(try conn.fetchOne(Data.self, sql: "SELECT \(v.data)") == v.data)
        #expect(try conn.fetchOne(UUID.self, sql: "SELECT \(v.uuid)") == v.uuid)
        #expect(try conn.fetchOne(URL.self, sql: "SELECT \(v.url)") == v.url)
        #expect(try conn.fetchOne(Decimal.self, sql: "SELECT \(v.decimal)") == v.decimal)
        #expect(try conn.fetchOne(Decimal.self, sql: "SELECT 12") == 12)
        #expect(try conn.fetchOne(Color.self, sql: "SELECT \(Color.green)") == .green)
        #expect(try conn.fetchOne(Level.self, sql: "SELECT \(Level.high)") == .high)
        #expect(try conn.fetchAll(Level?.self, sql: "SELECT NULL UNION ALL SELECT 9") == [nil, .high])
        #expect(try conn.fetchOne(Date.self, sql: "SELECT \(v.date)") == v.date)
        #expect(try conn.fetchAll(String?.self, sql: "SELECT NULL UNION ALL SELECT 'x'") == [nil, "x"])
        #expect(try RowEncoder().encodeValue(Level.high) == .integer(9))
        #expect(try RowEncoder().encodeValue(v.date) == .text("1899-12-31 23:59:59.500"))
        #expect(try RowEncoder().encodeValue(Int16.min) == .integer(Int64(Int16.min)))
    }

    @Test func nestedValuesOfEveryShape() throws {
        struct Shapes: Record, Equatable {
            var id: Int64?
            var set: Set<String>
            var dates: [Date]
            var grid: [[Int]]
            var byNumber: [Int: String]
            var optionalInner: Inner?
            var inners: [Inner]
        }
        let conn = try Connection.inMemory()
        try conn.createTable(for: Shapes.self)
        let value = Shapes(
            id: nil, set: ["b", "a"], dates: [Self.date, Date(timeIntervalSince1970: 0)], grid: [[1], [], [2, 3]],
            byNumber: [1: "one", -2: "minus two"], optionalInner: Inner(label: "x", count: 1, at: Self.date),
            inners: [Inner(label: "y", count: 2, at: Date(timeIntervalSince1970: 86_400))])
        let saved = try conn.insert(value)
        let id = try #require(saved.id)
        #expect(
            saved
                == Shapes(
                    id: id, set: value.set, dates: value.dates, grid: value.grid, byNumber: value.byNumber,
                    optionalInner: value.optionalInner, inners: value.inners))
        #expect(try conn.find(Shapes.self, id: id) == saved)
        #expect(
            try conn.fetchOne(String.self, sql: "SELECT dates FROM shapes")
                == #"["2023-11-14 22:13:20.123","1970-01-01 00:00:00.000"]"#)
        var cleared = saved
        cleared.optionalInner = nil
        try conn.update(cleared)
        #expect(try conn.fetchOne(String.self, sql: "SELECT typeof(optionalInner) FROM shapes") == "null")
        #expect(try conn.find(Shapes.self, id: id) == cleared)
    }

    // MARK: Custom init(from:) and encode(to:)

    /// A base class decoding `id`, extended by a subclass that hands `superDecoder()` to it.
    class Animal: Codable {
        let id: Int

        init(id: Int) {
            self.id = id
        }
    }

    final class Dog: Animal {
        let name: String

        enum CodingKeys: String, CodingKey {
            case name
        }

        init(id: Int, name: String) {
            self.name = name
            super.init(id: id)
        }

        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            try super.init(from: container.superDecoder())
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test func subclassDecodesThroughSuperDecoder() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE dogs (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        let pairs = try RowEncoder().encode(Dog(id: 3, name: "Rex"))
        #expect(pairs.map(\.column) == ["name", "id"])
        #expect(pairs.map(\.value) == [.text("Rex"), .integer(3)])
        try conn.execute("INSERT INTO dogs (id, name) VALUES (\(3), \("Rex")), (\(4), \("Fido"))")
        let dogs = try conn.fetchAll(Dog.self, sql: "SELECT * FROM dogs ORDER BY id")
        #expect(dogs.map(\.id) == [3, 4])
        #expect(dogs.map(\.name) == ["Rex", "Fido"])
    }

    /// Reads and writes the row's columns in order, with no names.
    struct Positional: Codable, Equatable {
        var number: Int
        var text: String
        var note: String?

        init(number: Int, text: String, note: String?) {
            self.number = number
            self.text = text
            self.note = note
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            number = try container.decode(Int.self)
            text = try container.decode(String.self)
            note = try container.decodeNil() ? nil : try container.decode(String.self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(number)
            try container.encode(text)
            if let note { try container.encode(note) } else { try container.encodeNil() }
        }
    }

    @Test func topLevelUnkeyedContainerReadsColumnsInOrder() throws {
        let conn = try Connection.inMemory()
        let rows = try conn.fetchAll(
            Positional.self, sql: "SELECT 1 AS b, 'one' AS a, NULL AS c UNION ALL SELECT 2, 'two', 'note'")
        #expect(
            rows == [Positional(number: 1, text: "one", note: nil), Positional(number: 2, text: "two", note: "note")])
        // A row is written by name: encoding one as a list throws (see SingleValueRecordTests).
        #expect(throws: EncodingError.self) { try RowEncoder().encode(Positional(number: 5, text: "five", note: nil)) }
        // Past the last column: an error, not a crash.
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(Positional.self, sql: "SELECT 1, 'one'")
        }
        guard case .valueNotFound = error else {
            Issue.record("expected valueNotFound, got \(error)")
            return
        }
    }

    /// Decides between NULL and a value with `decodeNil(forKey:)`.
    struct Reading: Decodable, Equatable {
        var value: Double?
        var unit: String

        enum CodingKeys: String, CodingKey {
            case value, unit
        }

        init(value: Double?, unit: String) {
            self.value = value
            self.unit = unit
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if try container.decodeNil(forKey: .value) {
                value = nil
            } else {
                value = try container.decode(Double.self, forKey: .value)
            }
            unit = try container.decode(String.self, forKey: .unit)
        }
    }

    @Test func decodeNilBasedCustomInit() throws {
        let conn = try Connection.inMemory()
        let readings = try conn.fetchAll(
            Reading.self, sql: "SELECT NULL AS value, 'kg' AS unit UNION ALL SELECT 2, 'm' UNION ALL SELECT 2.5, 's'")
        #expect(
            readings == [
                Reading(value: nil, unit: "kg"), Reading(value: 2, unit: "m"), Reading(value: 2.5, unit: "s"),
            ])
    }

    /// A wrapper stored as the one value it holds.
    struct Email: Codable, Sendable, Equatable {
        let value: String

        init(_ value: String) {
            self.value = value
        }

        init(from decoder: any Decoder) throws {
            value = try decoder.singleValueContainer().decode(String.self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    struct Contact: Record, Equatable {
        var id: Int64?
        var email: Email
        var backup: Email?
    }

    @Test func singleValueWrapperIsStoredAsItsValue() throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Contact.self)
        let saved = try conn.insert(Contact(id: nil, email: Email("ana@example.com"), backup: nil))
        let other = try conn.insert(Contact(id: nil, email: Email("bo@example.com"), backup: Email("b@b.org")))
        #expect(try conn.fetchAll(Contact.self, orderBy: "id") == [saved, other])
        #expect(try conn.fetchOne(String.self, sql: "SELECT typeof(email) FROM contact WHERE id = 1") == "text")
        #expect(try conn.fetchOne(String.self, sql: "SELECT email FROM contact WHERE id = 1") == "ana@example.com")
        #expect(try conn.fetchOne(Contact.self, where: "email = \(Email("bo@example.com"))") == other)
        #expect(
            try conn.fetchAll(Email.self, sql: "SELECT email FROM contact ORDER BY id") == [saved.email, other.email])
        #expect(
            try conn.fetchAll(Email?.self, sql: "SELECT backup FROM contact ORDER BY id") == [nil, Email("b@b.org")])
    }

    /// Asks for a nested container, which a flat row cannot give.
    struct NestedReader: Decodable {
        enum CodingKeys: String, CodingKey {
            case address
        }

        enum AddressKeys: String, CodingKey {
            case city
        }

        let city: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let address = try container.nestedContainer(keyedBy: AddressKeys.self, forKey: .address)
            city = try address.decode(String.self, forKey: .city)
        }
    }

    struct NestedWriter: Encodable {
        enum CodingKeys: String, CodingKey {
            case address
        }

        enum AddressKeys: String, CodingKey {
            case city
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var address = container.nestedContainer(keyedBy: AddressKeys.self, forKey: .address)
            try address.encode("Paris", forKey: .city)
        }
    }

    @Test func nestedContainerThrowsAnExplainedError() throws {
        let conn = try Connection.inMemory()
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(NestedReader.self, sql: #"SELECT '{"city":"Paris"}' AS address"#)
        }
        guard case .dataCorrupted = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        let message = String(describing: error)
        #expect(message.contains("nestedContainer(keyedBy:forKey:) is not supported"))
        #expect(message.contains("a row is flat"))
        #expect(message.contains("address"))
        let encodeError = try #require(throws: EncodingError.self) { try RowEncoder().encode(NestedWriter()) }
        #expect(String(describing: encodeError).contains("nestedContainer(keyedBy:forKey:) is not supported"))
    }
}

extension EncodingError {
    /// The last key of the error's coding path: the column it names.
    fileprivate var column: String? {
        guard case .invalidValue(_, let context) = self else { return nil }
        return context.codingPath.last?.stringValue
    }
}
