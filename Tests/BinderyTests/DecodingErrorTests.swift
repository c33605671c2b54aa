import Foundation
import Testing

@testable import Bindery

/// Each way a row can fail to decode gives a `DecodingError` of the right kind whose message names the
/// column, the SQL type found and the Swift type wanted; never a crash, never a silent nil.
@Suite struct DecodingErrorTests {
    struct Person: Decodable {
        var name: String
        var age: Int
    }

    struct Small: Decodable {
        var level: UInt8
    }

    struct Flag: Decodable {
        var isActive: Bool
    }

    struct Identified: Decodable {
        var token: UUID
    }

    struct Address: Codable {
        var street: String
        var city: String
    }

    struct Customer: Decodable {
        var name: String
        var address: Address
    }

    struct Scheduled: Decodable {
        var startsAt: Date
    }

    /// The `DecodingError` thrown by decoding the rows of `sql` as `T`, or nil (recorded) if there is none.
    func decodingError<T: Decodable>(
        _ type: T.Type, _ sql: SQL, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> DecodingError? {
        let conn = try Connection.inMemory()
        return #expect(throws: DecodingError.self, sourceLocation: sourceLocation) {
            try conn.fetchAll(T.self, sql: sql)
        }
    }

    /// Whether `message` contains every one of `parts`, recording the ones it lacks.
    func expectMentions(
        _ error: DecodingError, _ parts: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let message = String(describing: error)
        for part in parts {
            #expect(message.contains(part), "\"\(part)\" not in: \(message)", sourceLocation: sourceLocation)
        }
    }

    @Test func nullIntoNonOptionalIsValueNotFound() throws {
        let error = try #require(try decodingError(Person.self, "SELECT 'Ana' AS name, NULL AS age"))
        guard case .valueNotFound(let type, let context) = error else {
            Issue.record("expected valueNotFound, got \(error)")
            return
        }
        #expect(type is Int.Type)
        #expect(context.codingPath.map(\.stringValue) == ["age"])
        expectMentions(error, ["age", "NULL", "Int"])
    }

    @Test func textIntoIntIsTypeMismatch() throws {
        let error = try #require(try decodingError(Person.self, "SELECT 'Ana' AS name, 'abc' AS age"))
        guard case .typeMismatch(let type, _) = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
        #expect(type is Int.Type)
        expectMentions(error, ["age", "TEXT", "abc", "Int"])
    }

    @Test func textIntoOptionalIntIsStillTypeMismatch() throws {
        struct Maybe: Decodable { var age: Int? }
        let error = try #require(try decodingError(Maybe.self, "SELECT 'abc' AS age"))
        guard case .typeMismatch = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
        expectMentions(error, ["age", "TEXT", "Int"])
    }

    @Test func outOfRangeIntegerIsDataCorrupted() throws {
        let error = try #require(try decodingError(Small.self, "SELECT 300 AS level"))
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["level"])
        expectMentions(error, ["level", "INTEGER", "300", "UInt8"])
        let negative = try #require(try decodingError(Small.self, "SELECT -1 AS level"))
        expectMentions(negative, ["level", "INTEGER", "-1", "UInt8"])
        let fraction = try #require(try decodingError(Small.self, "SELECT 2.5 AS level"))
        expectMentions(fraction, ["level", "REAL", "UInt8"])
    }

    @Test func twoIntoBoolIsDataCorrupted() throws {
        let error = try #require(try decodingError(Flag.self, "SELECT 2 AS isActive"))
        guard case .dataCorrupted = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        expectMentions(error, ["isActive", "INTEGER", "2", "Bool"])
        let text = try #require(try decodingError(Flag.self, "SELECT 'yes' AS isActive"))
        guard case .typeMismatch = text else {
            Issue.record("expected typeMismatch, got \(text)")
            return
        }
        expectMentions(text, ["isActive", "TEXT", "Bool"])
    }

    @Test func realBeyondFloatRangeIsDataCorrupted() throws {
        struct Ratio: Decodable { var ratio: Float }
        let error = try #require(try decodingError(Ratio.self, "SELECT 1e300 AS ratio"))
        guard case .dataCorrupted = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        expectMentions(error, ["ratio", "REAL", "Float"])
        let conn = try Connection.inMemory()
        #expect(try conn.fetchOne(Float.self, sql: "SELECT \(Double.infinity)") == .infinity)
        #expect(try conn.fetchOne(Float.self, sql: "SELECT 0.1") == 0.1)
    }

    @Test func missingColumnIsKeyNotFound() throws {
        let error = try #require(try decodingError(Person.self, "SELECT 'Ana' AS name, 41 AS years"))
        guard case .keyNotFound(let key, _) = error else {
            Issue.record("expected keyNotFound, got \(error)")
            return
        }
        #expect(key.stringValue == "age")
        expectMentions(error, ["age", "name", "years"])
    }

    @Test func missingColumnUnderKeyStrategyNamesTheColumn() throws {
        struct Enrolled: Decodable { var enrolledAt: Date }
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(keyStrategy: .snakeCase)
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(Enrolled.self, sql: "SELECT '2024-01-01' AS enrolledAt")
        }
        expectMentions(error, ["enrolled_at"])
    }

    @Test func badUUIDText() throws {
        let error = try #require(try decodingError(Identified.self, "SELECT 'not-a-uuid' AS token"))
        guard case .dataCorrupted = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        expectMentions(error, ["token", "TEXT", "not-a-uuid", "UUID"])
        let shortBlob = try #require(try decodingError(Identified.self, "SELECT x'0102' AS token"))
        expectMentions(shortBlob, ["token", "BLOB", "UUID", "16"])
        let number = try #require(try decodingError(Identified.self, "SELECT 7 AS token"))
        guard case .typeMismatch = number else {
            Issue.record("expected typeMismatch, got \(number)")
            return
        }
        expectMentions(number, ["token", "INTEGER", "UUID"])
    }

    @Test func badJSONInNestedColumn() throws {
        let error = try #require(
            try decodingError(Customer.self, #"SELECT 'Ana' AS name, '{"street": "Main", ' AS address"#))
        guard case .dataCorrupted = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        expectMentions(error, ["address", "TEXT", "JSON", "Address"])
        let wrongShape = try #require(
            try decodingError(Customer.self, #"SELECT 'Ana' AS name, '{"street": "Main"}' AS address"#))
        expectMentions(wrongShape, ["address", "Address", "city"])
        let number = try #require(try decodingError(Customer.self, "SELECT 'Ana' AS name, 12 AS address"))
        expectMentions(number, ["address", "INTEGER", "Address"])
    }

    @Test func malformedDateText() throws {
        for text in ["2024-13-01", "abc", "2024-01-01 25:00", "2024-01-01 12:3", "2024-01-01X"] {
            let error = try #require(try decodingError(Scheduled.self, "SELECT \(text) AS startsAt"))
            guard case .dataCorrupted = error else {
                Issue.record("expected dataCorrupted for \(text), got \(error)")
                continue
            }
            expectMentions(error, ["startsAt", "TEXT", text, "Date"])
        }
        let blob = try #require(try decodingError(Scheduled.self, "SELECT x'00' AS startsAt"))
        expectMentions(blob, ["startsAt", "BLOB", "Date"])
    }

    @Test func singleValueTypeFromFirstColumnNamesIt() throws {
        let conn = try Connection.inMemory()
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(Int.self, sql: "SELECT 'seven' AS answer")
        }
        expectMentions(error, ["answer", "TEXT", "Int"])
        let null = try #require(throws: DecodingError.self) {
            try conn.fetchOne(String.self, sql: "SELECT NULL AS title")
        }
        guard case .valueNotFound = null else {
            Issue.record("expected valueNotFound, got \(null)")
            return
        }
        expectMentions(null, ["title", "NULL", "String"])
    }

    @Test func rawValueEnumWithUnknownValue() throws {
        enum Status: String, Decodable { case open, closed }
        struct Ticket: Decodable { var status: Status }
        let error = try #require(try decodingError(Ticket.self, "SELECT 'pending' AS status"))
        guard case .dataCorrupted = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        expectMentions(error, ["status", "pending"])
    }

    @Test func nestedUnkeyedContainerThrowsNotCrashes() throws {
        struct Grid: Decodable {
            enum CodingKeys: String, CodingKey { case cells }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                _ = try container.nestedUnkeyedContainer(forKey: .cells)
            }
        }
        let error = try #require(try decodingError(Grid.self, "SELECT '[1, 2]' AS cells"))
        expectMentions(error, ["nestedUnkeyedContainer(forKey:) is not supported", "cells"])
    }

    // Once a key's column is known (here by `contains`, as the first row's look-up does for a record
    // decoded row after row) and the row's values are found, the key's value is read on a fast path
    // that takes only the expected SQL type; every other value must decode, or fail, as without it.

    struct Mixed: Decodable, Equatable {
        var id: Int
        var count: Int
        var level: Int8
        var name: String
        var ratio: Double
        var maybeCount: Int?
        var maybeName: String?
        var maybeRatio: Double?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id, count, level, name, ratio, maybeCount, maybeName, maybeRatio
        }
    }

    /// A table of `Mixed`'s columns (no declared types: each value is stored as given) holding two
    /// plain rows, then `row` (its values, as SQL).
    static func afterTwoRows(_ row: String) throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE mixed (id, count, level, name, ratio, maybeCount, maybeName, maybeRatio);
                INSERT INTO mixed VALUES (1, 2, 3, 'a', 0.5, 4, 'b', 1.5), (2, 3, 4, 'c', 2.5, NULL, NULL, NULL),
                    \(row);
                """)
        return conn
    }

    /// The coding path of any case of `error`.
    static func codingPath(of error: DecodingError) -> [String] {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            return context.codingPath.map(\.stringValue)
        @unknown default:
            return []
        }
    }

    @Test func laterRowsConvertWhatTheFirstRowWouldConvert() throws {
        let conn = try Self.afterTwoRows("(3, 7.0, -8, 'd', 9, NULL, NULL, 10)")
        let rows = try conn.fetchAll(Mixed.self, sql: "SELECT * FROM mixed ORDER BY id")
        #expect(rows.count == 3)
        #expect(rows.last == Mixed(id: 3, count: 7, level: -8, name: "d", ratio: 9, maybeRatio: 10))
    }

    @Test(arguments: [
        ("(3, 'x', 1, 'd', 1.0, 1, 'e', 1.0)", "count", "TEXT"),
        ("(3, NULL, 1, 'd', 1.0, 1, 'e', 1.0)", "count", "NULL"),
        ("(3, 2.5, 1, 'd', 1.0, 1, 'e', 1.0)", "count", "REAL"),
        ("(3, 1, 300, 'd', 1.0, 1, 'e', 1.0)", "level", "300"),
        ("(3, 1, 1, 5, 1.0, 1, 'e', 1.0)", "name", "INTEGER"),
        ("(3, 1, 1, NULL, 1.0, 1, 'e', 1.0)", "name", "NULL"),
        ("(3, 1, 1, 'd', 'x', 1, 'e', 1.0)", "ratio", "TEXT"),
        ("(3, 1, 1, 'd', 1.0, 'x', 'e', 1.0)", "maybeCount", "TEXT"),
        ("(3, 1, 1, 'd', 1.0, 1, 5, 1.0)", "maybeName", "INTEGER"),
        ("(3, 1, 1, 'd', 1.0, 1, 'e', 'x')", "maybeRatio", "TEXT"),
    ])
    func laterRowsFailAsTheFirstRowWould(row: String, column: String, found: String) throws {
        let conn = try Self.afterTwoRows(row)
        let error = try #require(
            #expect(throws: DecodingError.self) {
                try conn.fetchAll(Mixed.self, sql: "SELECT * FROM mixed ORDER BY id")
            })
        #expect(Self.codingPath(of: error) == [column])
        expectMentions(error, ["\"\(column)\"", found])
    }
}

extension DecodingErrorTests.Mixed {
    /// Asks whether each key is there before decoding: every key is then known when it is decoded.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        for key in CodingKeys.allCases where !container.contains(key) {
            throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "no \(key.stringValue)"))
        }
        id = try container.decode(Int.self, forKey: .id)
        count = try container.decode(Int.self, forKey: .count)
        level = try container.decode(Int8.self, forKey: .level)
        name = try container.decode(String.self, forKey: .name)
        ratio = try container.decode(Double.self, forKey: .ratio)
        maybeCount = try container.decodeIfPresent(Int.self, forKey: .maybeCount)
        maybeName = try container.decodeIfPresent(String.self, forKey: .maybeName)
        maybeRatio = try container.decodeIfPresent(Double.self, forKey: .maybeRatio)
    }
}
