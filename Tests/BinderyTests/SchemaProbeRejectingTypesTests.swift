import Foundation
import Testing

@testable import Bindery

/// Tables from types that reject the probe's first placeholders: raw-value enums that are not
/// `CaseIterable`, enums with a custom `Codable`, nested values whose `init(from:)` validates.
@Suite struct SchemaProbeRejectingTypesTests {
    typealias ColumnInfo = SchemaProbeTests.ColumnInfo

    enum Status: String, Codable, Sendable {
        case active, archived
    }

    enum Priority: Int, Codable, Sendable {
        case low = 10
        case high = 20
    }

    enum Flag: UInt8, Codable, Sendable {
        case on = 7
        case off = 9
    }

    enum Level: Int16, Codable, Sendable {
        case one = 1
        case two = 2
    }

    enum Only: String, Codable, Sendable {
        case single = "the one"
    }

    struct Ticket: Record, Equatable {
        var id: Int64?
        var status: Status
        var priority: Priority
        var flag: Flag
        var level: Level
        var only: Only
        var previous: Status?
        var title: String
    }

    @Test func rawValueEnumsWithoutCaseIterable() throws {
        let conn = try Connection.inMemory()
        #expect(
            try conn.createTableSQL(for: Ticket.self)
                == #"CREATE TABLE "ticket" ("id" INTEGER PRIMARY KEY, "status" TEXT NOT NULL, "#
                + #""priority" INTEGER NOT NULL, "flag" INTEGER NOT NULL, "level" INTEGER NOT NULL, "#
                + #""only" TEXT NOT NULL, "previous" TEXT, "title" TEXT NOT NULL)"#)
        try conn.createTable(for: Ticket.self)
        #expect(
            try SchemaProbeTests.columns(conn, "ticket") == [
                ColumnInfo(name: "id", type: "INTEGER", notnull: false, pk: 1),
                ColumnInfo(name: "status", type: "TEXT", notnull: true, pk: 0),
                ColumnInfo(name: "priority", type: "INTEGER", notnull: true, pk: 0),
                ColumnInfo(name: "flag", type: "INTEGER", notnull: true, pk: 0),
                ColumnInfo(name: "level", type: "INTEGER", notnull: true, pk: 0),
                ColumnInfo(name: "only", type: "TEXT", notnull: true, pk: 0),
                ColumnInfo(name: "previous", type: "TEXT", notnull: false, pk: 0),
                ColumnInfo(name: "title", type: "TEXT", notnull: true, pk: 0),
            ])
        let saved = try conn.insert(
            Ticket(
                id: nil, status: .archived, priority: .high, flag: .off, level: .two, only: .single, previous: .active,
                title: "t"))
        #expect(try conn.fetchAll(Ticket.self) == [saved])
        #expect(
            try conn.fetchOne(String.self, sql: "SELECT typeof(priority) || typeof(flag) || typeof(status) FROM ticket")
                == "integerintegertext")
        #expect(try conn.fetchOne(Int.self, sql: "SELECT flag FROM ticket") == 9)
    }

    /// Stored as a string through a single-value container, with no raw values.
    enum Shape: Codable, Sendable, Equatable {
        case circle, square

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            switch try container.decode(String.self) {
            case "circle": self = .circle
            case "square": self = .square
            default: throw DecodingError.dataCorruptedError(in: container, debugDescription: "no Shape")
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(self == .circle ? "circle" : "square")
        }
    }

    /// Stored as a keyed container: a JSON column.
    enum Tone: Codable, Sendable, Equatable {
        case warm, cold

        enum CodingKeys: String, CodingKey { case tone }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            switch try container.decode(String.self, forKey: .tone) {
            case "warm": self = .warm
            case "cold": self = .cold
            default:
                throw DecodingError.dataCorruptedError(forKey: .tone, in: container, debugDescription: "no Tone")
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self == .warm ? "warm" : "cold", forKey: .tone)
        }
    }

    struct Drawing: Record, Equatable {
        var id: Int64?
        var shape: Shape
        var tone: Tone
        var outline: Shape?
    }

    @Test func enumsWithCustomCodable() throws {
        let conn = try Connection.inMemory()
        #expect(
            try conn.createTableSQL(for: Drawing.self)
                == #"CREATE TABLE "drawing" ("id" INTEGER PRIMARY KEY, "shape" TEXT NOT NULL, "tone" TEXT NOT NULL, "#
                + #""outline" TEXT)"#)
        try conn.createTable(for: Drawing.self)
        #expect(
            try SchemaProbeTests.columns(conn, "drawing").map(\.description) == [
                "id INTEGER pk1", "shape TEXT NOT NULL", "tone TEXT NOT NULL", "outline TEXT",
            ])
        let saved = try conn.insert(Drawing(id: nil, shape: .square, tone: .cold, outline: nil))
        #expect(try conn.find(Drawing.self, id: try #require(saved.id)) == saved)
        #expect(
            try conn.fetchOne(String.self, sql: "SELECT shape || ' ' || tone FROM drawing")
                == #"square {"tone":"cold"}"#)
    }

    /// A single value checked against a range that excludes 0.
    struct Stars: Codable, Sendable, Equatable {
        let count: Int

        init(_ count: Int) { self.count = count }

        init(from decoder: any Decoder) throws {
            count = try checkedInt(from: decoder, in: 1...5) { "\($0) stars" }
        }

        func encode(to encoder: any Encoder) throws {
            try count.encode(to: encoder)
        }
    }

    /// A nested struct that refuses an empty name.
    struct Author: Codable, Sendable, Equatable {
        var name: String
        var born: Int?
        var status: Status

        init(name: String, born: Int?, status: Status) {
            self.name = name
            self.born = born
            self.status = status
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            born = try container.decodeIfPresent(Int.self, forKey: .born)
            status = try container.decode(Status.self, forKey: .status)
            guard !name.isEmpty else {
                throw DecodingError.dataCorruptedError(forKey: .name, in: container, debugDescription: "no name")
            }
        }
    }

    struct Review: Record, Equatable {
        var id: Int64?
        var stars: Stars
        var author: Author
        var editor: Author?
        var ratedStars: Stars?
    }

    @Test func nestedValuesThatValidate() throws {
        let conn = try Connection.inMemory()
        #expect(
            try conn.createTableSQL(for: Review.self)
                == #"CREATE TABLE "review" ("id" INTEGER PRIMARY KEY, "stars" INTEGER NOT NULL, "#
                + #""author" TEXT NOT NULL, "editor" TEXT, "ratedStars" INTEGER)"#)
        try conn.createTable(for: Review.self)
        #expect(
            try SchemaProbeTests.columns(conn, "review").map(\.description) == [
                "id INTEGER pk1", "stars INTEGER NOT NULL", "author TEXT NOT NULL", "editor TEXT", "ratedStars INTEGER",
            ])
        let saved = try conn.insert(
            Review(
                id: nil, stars: Stars(4), author: Author(name: "Ana", born: nil, status: .archived), editor: nil,
                ratedStars: Stars(2)))
        #expect(try conn.fetchAll(Review.self) == [saved])
        #expect(try conn.fetchOne(String.self, sql: "SELECT typeof(stars) FROM review") == "integer")
    }

    /// A year that neither 0 nor 1 passes: it declares its own placeholder.
    struct Year: Codable, Sendable, Equatable, SchemaPlaceholder {
        let value: Int
        static let schemaPlaceholder = Year(checked: 2000)

        init(checked value: Int) { self.value = value }

        init(from decoder: any Decoder) throws {
            value = try checkedInt(from: decoder, in: 1900...2100) { "year \($0)" }
        }

        func encode(to encoder: any Encoder) throws {
            try value.encode(to: encoder)
        }
    }

    /// The same check, without a placeholder.
    struct Vintage: Codable, Sendable, Equatable {
        let value: Int

        init(from decoder: any Decoder) throws {
            value = try checkedInt(from: decoder, in: 1900...2100) { "year \($0)" }
        }
    }

    @Test func declaredPlaceholder() throws {
        struct Edition: Record, Equatable {
            var id: Int64?
            var year: Year
        }
        let conn = try Connection.inMemory()
        #expect(
            try conn.createTableSQL(for: Edition.self)
                == #"CREATE TABLE "edition" ("id" INTEGER PRIMARY KEY, "year" INTEGER NOT NULL)"#)
        try conn.createTable(for: Edition.self)
        let saved = try conn.insert(Edition(id: nil, year: Year(checked: 1999)))
        #expect(try conn.fetchAll(Edition.self) == [saved])
    }

    @Test func optionalThatRejectsEveryPlaceholderIsANullableColumn() throws {
        struct Bottle: Record {
            var id: Int64?
            var vintage: Vintage?
        }
        let conn = try Connection.inMemory()
        #expect(
            try conn.createTableSQL(for: Bottle.self)
                == #"CREATE TABLE "bottle" ("id" INTEGER PRIMARY KEY, "vintage" INTEGER)"#)
    }

    @Test func unreadablePropertyIsNamedWithWhatToDeclare() throws {
        struct Bottle: Record {
            var id: Int64?
            var label: String
            var vintage: Vintage
        }
        let conn = try Connection.inMemory()
        let error = try #require(throws: SchemaError.self) { try conn.createTable(for: Bottle.self) }
        guard case .unreadableType(let type, let reason) = error else {
            Issue.record("expected unreadableType, got \(error)")
            return
        }
        #expect(type == "Bottle")
        #expect(reason.contains(#"column "vintage""#))
        #expect(reason.contains("property vintage"))
        #expect(reason.contains("Vintage rejected every placeholder value"))
        #expect(!reason.contains("CaseIterable"))
        #expect(reason.contains("Conform Vintage to SchemaPlaceholder"))
        #expect(reason.contains("create the table with SQL"))
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema") == [])
    }

    struct Email: Codable, Sendable {
        let address: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            address = try container.decode(String.self)
            guard address.contains("@") else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "no @ in \(address)")
            }
        }
    }

    /// An enum with associated values and a `Codable` that accepts only a valid payload.
    enum Contact: Codable, Sendable {
        case phone(String)
        case mail(Email)
    }

    /// A payload-free enum whose `Codable` accepts only its own spelling.
    enum Marker: Codable, Sendable {
        case on

        init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard text == "ON" else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text))
            }
            self = .on
        }
    }

    enum CaseIterableMarker: Codable, Sendable, CaseIterable {
        case on

        init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard text == "ON" else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text))
            }
            self = .on
        }
    }

    static func unreadableReason<T: Record>(_ type: T.Type, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> String
    {
        let conn = try Connection.inMemory()
        let error = try #require(throws: SchemaError.self, sourceLocation: sourceLocation) {
            try conn.createTable(for: T.self)
        }
        guard case .unreadableType(_, let reason) = error else {
            Issue.record("expected unreadableType, got \(error)", sourceLocation: sourceLocation)
            return ""
        }
        return reason
    }

    @Test func aStructIsToldToDeclareASchemaPlaceholder() throws {
        struct Subscriber: Record {
            var id: Int64?
            var email: Email
        }
        let reason = try Self.unreadableReason(Subscriber.self)
        #expect(reason.contains("Email rejected every placeholder value"))
        #expect(reason.contains(#"from empty and zero values to "x", 1, 1.0 and true"#))
        #expect(reason.contains("Conform Email to SchemaPlaceholder, giving a value its init(from:) accepts"))
        #expect(!reason.contains("CaseIterable"))
    }

    @Test func anEnumWithAssociatedValuesIsToldToDeclareASchemaPlaceholder() throws {
        struct Person: Record {
            var id: Int64?
            var contact: Contact
        }
        let reason = try Self.unreadableReason(Person.self)
        #expect(reason.contains("Contact rejected every placeholder value"))
        #expect(reason.contains("Conform Contact to SchemaPlaceholder"))
        #expect(!reason.contains("CaseIterable"))
    }

    @Test func aPayloadFreeEnumIsToldToBeCaseIterable() throws {
        struct Switch: Record {
            var id: Int64?
            var marker: Marker
        }
        let reason = try Self.unreadableReason(Switch.self)
        #expect(reason.contains("Marker rejected every placeholder value"))
        #expect(reason.contains("Make Marker CaseIterable or conform it to SchemaPlaceholder"))
        // The advice works.
        struct IterableSwitch: Record {
            var id: Int64?
            var marker: CaseIterableMarker
        }
        #expect(
            try Connection.inMemory().createTableSQL(for: IterableSwitch.self)
                == #"CREATE TABLE "iterableSwitch" ("id" INTEGER PRIMARY KEY, "marker" TEXT NOT NULL)"#)
    }

    @Test func unreadableNestedPropertyIsNamedByItsPath() throws {
        struct Cellar: Codable, Sendable {
            var room: String
            var oldest: Vintage
        }
        struct Inventory: Record {
            var id: Int64?
            var cellar: Cellar
        }
        let conn = try Connection.inMemory()
        let error = try #require(throws: SchemaError.self) { try conn.createTableSQL(for: Inventory.self) }
        #expect(error.description.contains("Inventory"))
        #expect(error.description.contains(#"column "cellar" (property cellar.oldest)"#))
        #expect(error.description.contains("Vintage"))
    }

    @Test func keyStrategyNamesTheColumnInTheError() throws {
        struct Bottle: Record {
            var id: Int64?
            var firstVintage: Vintage
        }
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(keyStrategy: .snakeCase)
        let error = try #require(throws: SchemaError.self) { try conn.createTableSQL(for: Bottle.self) }
        #expect(error.description.contains(#"column "first_vintage" (property firstVintage)"#))
    }

    @Test func addMissingColumnsAndRegisterTable() async throws {
        struct TicketV1: Record {
            static let tableName = "tickets"
            var id: Int64?
            var title: String
        }
        struct TicketV2: Record, Equatable {
            static let tableName = "tickets"
            var id: Int64?
            var title: String
            var status: Status?
            var shape: Shape?
        }
        let conn = try Connection.inMemory()
        try conn.createTable(for: TicketV1.self)
        #expect(try conn.addMissingColumns(for: TicketV2.self) == ["status", "shape"])
        #expect(
            try SchemaProbeTests.columns(conn, "tickets").map(\.description) == [
                "id INTEGER pk1", "title TEXT NOT NULL", "status TEXT", "shape TEXT",
            ])
        let saved = try conn.insert(TicketV2(id: nil, title: "a", status: .archived, shape: .circle))
        #expect(try conn.fetchAll(TicketV2.self) == [saved])

        let db = try Database.inMemory()
        var migrator = Migrator()
        migrator.register("create table tickets") { conn in try conn.createTable(for: Ticket.self) }
        try await migrator.migrate(db)
        let stored = try await db.insert(
            Ticket(
                id: nil, status: .active, priority: .low, flag: .on, level: .one, only: .single, previous: nil,
                title: "x"))
        #expect(try await db.find(Ticket.self, id: try #require(stored.id)) == stored)
    }

    @Test func zeroValueOnlyForSmallTrivialTypes() {
        #expect(SchemaProbe.zeroValue(of: Status.self) == .active)
        #expect(SchemaProbe.zeroValue(of: Priority.self) == .low)
        #expect(SchemaProbe.zeroValue(of: Only.self) == .single)
        #expect(SchemaProbe.zeroValue(of: Shape.self) == .circle)
        #expect(SchemaProbe.zeroValue(of: Int.self) == nil)
        #expect(SchemaProbe.zeroValue(of: String.self) == nil)
        #expect(SchemaProbe.zeroValue(of: Never.self) == nil)
        #expect(SchemaProbe.zeroValue(of: Vintage.self) == nil)
    }
}

/// The `Int` of a single-value `decoder`, refused with `DecodingError.dataCorrupted` (described by
/// `describe`) outside `range`: the validating `init(from:)` of the test types above.
private func checkedInt(
    from decoder: any Decoder, in range: ClosedRange<Int>, _ describe: (Int) -> String
) throws -> Int {
    let container = try decoder.singleValueContainer()
    let value = try container.decode(Int.self)
    guard range.contains(value) else {
        throw DecodingError.dataCorruptedError(in: container, debugDescription: describe(value))
    }
    return value
}
