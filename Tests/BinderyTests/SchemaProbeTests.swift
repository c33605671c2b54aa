import Foundation
import Testing

@testable import Bindery

/// The schema probe reads a `Decodable` type's columns, and `createTable(for:)` makes its table; types
/// it cannot read get an error that says how to declare the table instead.
@Suite struct SchemaProbeTests {
    /// One row of `pragma_table_info`.
    struct ColumnInfo: Decodable, Equatable, CustomStringConvertible {
        var name: String
        var type: String
        var notnull: Bool
        var pk: Int

        var description: String { "\(name) \(type)\(notnull ? " NOT NULL" : "")\(pk > 0 ? " pk\(pk)" : "")" }
    }

    static func columns(_ conn: Connection, _ table: String) throws -> [ColumnInfo] {
        try conn.fetchAll(
            ColumnInfo.self, sql: #"SELECT name, type, "notnull", pk FROM pragma_table_info(\#(table)) ORDER BY cid"#)
    }

    enum Kind: String, Codable, Sendable, CaseIterable {
        case lecture, seminar
    }

    enum Rank: Int, Codable, Sendable, CaseIterable {
        case first = 1
        case second = 2
    }

    struct Address: Codable, Sendable, Equatable {
        var street: String
        var city: String
    }

    struct Course: Record, Equatable {
        var id: Int64?
        var title: String
        var credits: Int
        var small: UInt8
        var weight: Double
        var ratio: Float?
        var isOpen: Bool
        var startsAt: Date
        var endsAt: Date?
        var token: UUID
        var site: URL
        var fee: Decimal
        var syllabus: Data
        var kind: Kind
        var rank: Rank?
        var address: Address
        var tags: [String]
        var counts: [String: Int]
        var note: String?
    }

    @Test func columnsTypesAndNotNull() throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Course.self)
        let expected: [ColumnInfo] = [
            .init(name: "id", type: "INTEGER", notnull: false, pk: 1),
            .init(name: "title", type: "TEXT", notnull: true, pk: 0),
            .init(name: "credits", type: "INTEGER", notnull: true, pk: 0),
            .init(name: "small", type: "INTEGER", notnull: true, pk: 0),
            .init(name: "weight", type: "REAL", notnull: true, pk: 0),
            .init(name: "ratio", type: "REAL", notnull: false, pk: 0),
            .init(name: "isOpen", type: "INTEGER", notnull: true, pk: 0),
            .init(name: "startsAt", type: "TEXT", notnull: true, pk: 0),
            .init(name: "endsAt", type: "TEXT", notnull: false, pk: 0),
            .init(name: "token", type: "TEXT", notnull: true, pk: 0),
            .init(name: "site", type: "TEXT", notnull: true, pk: 0),
            .init(name: "fee", type: "TEXT", notnull: true, pk: 0),
            .init(name: "syllabus", type: "BLOB", notnull: true, pk: 0),
            .init(name: "kind", type: "TEXT", notnull: true, pk: 0),
            .init(name: "rank", type: "INTEGER", notnull: false, pk: 0),
            .init(name: "address", type: "TEXT", notnull: true, pk: 0),
            .init(name: "tags", type: "TEXT", notnull: true, pk: 0),
            .init(name: "counts", type: "TEXT", notnull: true, pk: 0),
            .init(name: "note", type: "TEXT", notnull: false, pk: 0),
        ]
        #expect(try Self.columns(conn, "course") == expected)
        let sql = try conn.createTableSQL(for: Course.self)
        #expect(sql.hasPrefix(#"CREATE TABLE "course" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, "#))
        let saved = try conn.insert(
            Course(
                id: nil, title: "Algebra", credits: 6, small: 255, weight: 1.5, ratio: nil, isOpen: true,
                startsAt: Date(timeIntervalSince1970: 1_700_000_000.5), endsAt: nil, token: UUID(),
                site: try #require(URL(string: "https://example.com")), fee: 12.5, syllabus: Data([1, 2]),
                kind: .seminar, rank: .second, address: Address(street: "Main", city: "Oslo"), tags: ["x"],
                counts: ["a": 1], note: nil))
        #expect(try conn.find(Course.self, id: try #require(saved.id)) == saved)
    }

    @Test func notNullIsEnforced() throws {
        struct Required: Record {
            var id: Int64?
            var name: String
        }
        let conn = try Connection.inMemory()
        try conn.createTable(for: Required.self)
        #expect(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO required (name) VALUES (\(nil as String?))")
        }
    }

    @Test func integerPrimaryKeyIsAssignedBySQLite() throws {
        struct Note: Record, Equatable {
            var id: Int64?
            var body: String
        }
        let conn = try Connection.inMemory()
        try conn.createTable(for: Note.self)
        #expect(
            try conn.createTableSQL(for: Note.self)
                == #"CREATE TABLE "note" ("id" INTEGER PRIMARY KEY, "body" TEXT NOT NULL)"#)
        let first = try conn.insert(Note(id: nil, body: "a"))
        let second = try conn.insert(Note(id: nil, body: "b"))
        #expect(first.id == 1)
        #expect(second.id == 2)
        let chosen = try conn.insert(Note(id: 40, body: "c"))
        #expect(chosen.id == 40)
        #expect(try conn.insert(Note(id: nil, body: "d")).id == 41)
        #expect(try conn.fetchOne(Int64.self, sql: "SELECT rowid FROM note WHERE body = 'b'") == 2)
    }

    @Test func plainIntegerKeyIsAlsoIntegerPrimaryKey() throws {
        struct Counter: Record {
            var id: Int
            var value: Int
        }
        let conn = try Connection.inMemory()
        #expect(try conn.createTableSQL(for: Counter.self).contains(#""id" INTEGER PRIMARY KEY,"#))
    }

    @Test func uuidKeyIsTextNotNullPrimaryKey() throws {
        struct Device: Record, Equatable {
            var id: UUID
            var label: String
        }
        let conn = try Connection.inMemory()
        try conn.createTable(for: Device.self)
        #expect(
            try conn.createTableSQL(for: Device.self)
                == #"CREATE TABLE "device" ("id" TEXT NOT NULL PRIMARY KEY, "label" TEXT NOT NULL)"#)
        #expect(
            try Self.columns(conn, "device") == [
                .init(name: "id", type: "TEXT", notnull: true, pk: 1),
                .init(name: "label", type: "TEXT", notnull: true, pk: 0),
            ])
        let device = Device(id: UUID(), label: "phone")
        try conn.insert(device)
        #expect(try conn.find(Device.self, id: device.id) == device)
        #expect(throws: SQLiteError.self) { try conn.insert(device) }
    }

    @Test func compositeKey() throws {
        struct Enrollment: Record, Equatable {
            static let primaryKey = ["a", "b"]
            var a: Int
            var b: String
            var grade: Double?
        }
        let conn = try Connection.inMemory()
        let sql = try conn.createTableSQL(for: Enrollment.self)
        #expect(sql.contains(#"PRIMARY KEY ("a", "b")"#))
        #expect(sql.contains(#""a" INTEGER NOT NULL"#))
        #expect(sql.contains(#""b" TEXT NOT NULL"#))
        try conn.createTable(for: Enrollment.self)
        #expect(
            try Self.columns(conn, "enrollment") == [
                .init(name: "a", type: "INTEGER", notnull: true, pk: 1),
                .init(name: "b", type: "TEXT", notnull: true, pk: 2),
                .init(name: "grade", type: "REAL", notnull: false, pk: 0),
            ])
        let row = Enrollment(a: 1, b: "x", grade: nil)
        try conn.insert(row)
        try conn.insert(Enrollment(a: 1, b: "y", grade: 2))
        #expect(throws: SQLiteError.self) { try conn.insert(row) }
        #expect(try conn.find(Enrollment.self, key: ["a": 1, "b": "x"]) == row)
    }

    @Test func caseIterableEnumProperty() throws {
        enum Level: String, Codable, Sendable, CaseIterable {
            case beginner, expert
        }
        enum Stars: Int, Codable, Sendable, CaseIterable {
            case one = 1
            case two = 2
        }
        struct Skill: Record, Equatable {
            var id: Int64?
            var level: Level
            var stars: Stars
            var previous: Level?
        }
        let conn = try Connection.inMemory()
        try conn.createTable(for: Skill.self)
        #expect(
            try Self.columns(conn, "skill") == [
                .init(name: "id", type: "INTEGER", notnull: false, pk: 1),
                .init(name: "level", type: "TEXT", notnull: true, pk: 0),
                .init(name: "stars", type: "INTEGER", notnull: true, pk: 0),
                .init(name: "previous", type: "TEXT", notnull: false, pk: 0),
            ])
        let saved = try conn.insert(Skill(id: nil, level: .expert, stars: .two, previous: .beginner))
        #expect(try conn.fetchAll(Skill.self) == [saved])
    }

    /// A value whose `init(from:)` refuses the empty string.
    struct NonEmpty: Codable, Sendable, Equatable {
        let text: String

        init(_ text: String) { self.text = text }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            text = try container.decode(String.self)
            guard !text.isEmpty else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "empty")
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }

    @Test func validatingPropertyTypeIsReadWithTheSecondPlaceholders() throws {
        struct Profile: Record, Equatable {
            var id: Int64?
            var handle: NonEmpty
        }
        let conn = try Connection.inMemory()
        #expect(
            try conn.createTableSQL(for: Profile.self)
                == #"CREATE TABLE "profile" ("id" INTEGER PRIMARY KEY, "handle" TEXT NOT NULL)"#)
        try conn.createTable(for: Profile.self)
        let saved = try conn.insert(Profile(id: nil, handle: NonEmpty("ana")))
        #expect(try conn.fetchAll(Profile.self) == [saved])
    }

    @Test func validatingRecordInitIsUnreadable() throws {
        struct Account: Record {
            var id: Int64?
            var email: String

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decodeIfPresent(Int64.self, forKey: .id)
                email = try container.decode(String.self, forKey: .email)
                guard email.contains("@") else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .email, in: container, debugDescription: "not an email address")
                }
            }
        }
        let conn = try Connection.inMemory()
        let error = try #require(throws: SchemaError.self) { try conn.createTable(for: Account.self) }
        #expect(error.description.contains("Account"))
        #expect(error.description.lowercased().contains("table with sql"))
        // Declared with SQL instead, the type works.
        try conn.execute(script: "CREATE TABLE account (id INTEGER PRIMARY KEY, email TEXT NOT NULL)")
        try conn.execute("INSERT INTO account (email) VALUES (\("a@b.c"))")
        #expect(try conn.fetchAll(Account.self).map(\.email) == ["a@b.c"])
    }

    @Test func keyStrategyNamesAndDateStrategyTypes() throws {
        struct Visit: Record {
            var id: Int64?
            var visitedAt: Date
            var leftAt: Date?
            var userID: UUID
        }
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(
            dateStrategy: .unixMilliseconds, uuidStrategy: .blob, keyStrategy: .snakeCase)
        try conn.createTable(for: Visit.self)
        #expect(
            try Self.columns(conn, "visit") == [
                .init(name: "id", type: "INTEGER", notnull: false, pk: 1),
                .init(name: "visited_at", type: "INTEGER", notnull: true, pk: 0),
                .init(name: "left_at", type: "INTEGER", notnull: false, pk: 0),
                .init(name: "user_id", type: "BLOB", notnull: true, pk: 0),
            ])
        conn.codingOptions = CodingOptions(dateStrategy: .julianDay)
        #expect(try conn.createTableSQL(for: Visit.self).contains(#""visitedAt" REAL NOT NULL"#))
    }

    @Test func ifNotExists() throws {
        struct Tag: Record {
            var id: Int64?
            var name: String
        }
        let conn = try Connection.inMemory()
        try conn.createTable(for: Tag.self)
        #expect(throws: SQLiteError.self) { try conn.createTable(for: Tag.self) }
        try conn.createTable(for: Tag.self, ifNotExists: true)
        #expect(
            try conn.createTableSQL(for: Tag.self, ifNotExists: true).hasPrefix("CREATE TABLE IF NOT EXISTS \"tag\""))
    }

    @Test func primaryKeyThatIsNotAColumn() throws {
        struct Orphan: Record {
            static let primaryKey = ["code"]
            var id: Int64?
        }
        let conn = try Connection.inMemory()
        let error = try #require(throws: SchemaError.self) { try conn.createTable(for: Orphan.self) }
        #expect(error.description.contains("code"))
    }
}
