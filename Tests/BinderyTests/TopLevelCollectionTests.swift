import Foundation
import Testing

@testable import Bindery

/// An array, set or dictionary fetched as a whole row is read from the JSON text of the statement's
/// only column, exactly as a property of its type is; never from the row's columns in order.
@Suite struct TopLevelCollectionTests {
    struct Tagged: Record, Equatable {
        static let tableName = "tagged"
        var id: Int64?
        var tags: [String]
        var scores: [String: Int]
        var dates: [Date]
    }

    /// Reads the row's columns in order: a type of one's own may still ask for a top-level unkeyed
    /// container.
    struct Positional: Decodable, Equatable {
        var number: Int

        init(number: Int) { self.number = number }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            number = try container.decode(Int.self)
        }
    }

    static let first = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let second = Date(timeIntervalSince1970: 86_400)

    private static func connection(_ options: CodingOptions = CodingOptions()) throws -> Connection {
        let conn = try Connection.inMemory()
        conn.codingOptions = options
        try conn.execute(
            script: "CREATE TABLE tagged (id INTEGER PRIMARY KEY, tags TEXT NOT NULL, scores TEXT NOT NULL, dates TEXT)"
        )
        try conn.insert(Tagged(id: 1, tags: ["a", "b"], scores: ["x": 1], dates: [first, second]))
        try conn.insert(Tagged(id: 2, tags: [], scores: [:], dates: []))
        return conn
    }

    /// The DecodingError that `body` throws, with its context.
    private static func decodingError(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) throws -> (DecodingError, DecodingError.Context) {
        let error = try #require(throws: DecodingError.self, sourceLocation: sourceLocation) { try body() }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            return (error, context)
        @unknown default:
            throw error
        }
    }

    @Test func arraysAndSetsAreReadFromTheJSONColumn() throws {
        let conn = try Self.connection()
        let sql: SQL = "SELECT tags FROM tagged ORDER BY id"
        #expect(try conn.fetchAll([String].self, sql: sql) == [["a", "b"], []])
        #expect(try conn.fetchAll(Set<String>.self, sql: sql) == [["a", "b"], []])
        #expect(try conn.fetchAll(ContiguousArray<String>.self, sql: sql) == [["a", "b"], []])
        #expect(try conn.fetchOne([String].self, sql: sql) == ["a", "b"])
        let cursor = try conn.fetchCursor([String].self, sql: sql)
        #expect(try cursor.next() == ["a", "b"])
        #expect(try conn.fetchAll([Int].self, sql: "SELECT '[1, 2, 3]' AS numbers") == [[1, 2, 3]])
        #expect(try conn.fetchAll([[Int]].self, sql: "SELECT '[[1], [2, 3]]'") == [[[1], [2, 3]]])
        // The same value as the property holds.
        let records = try conn.fetchAll(Tagged.self, sql: "SELECT * FROM tagged ORDER BY id")
        #expect(try conn.fetchAll([String].self, sql: sql) == records.map(\.tags))
    }

    @Test func dictionariesAreReadFromTheJSONColumnNotByColumnName() throws {
        let conn = try Self.connection()
        #expect(try conn.fetchAll([String: Int].self, sql: "SELECT scores FROM tagged ORDER BY id") == [["x": 1], [:]])
        #expect(try conn.fetchAll([Int: String].self, sql: #"SELECT '{"1": "one"}' AS scores"#) == [[1: "one"]])
    }

    @Test func datesInsideTheJSONFollowTheDateStrategy() throws {
        for options in [CodingOptions(), CodingOptions(dateStrategy: .unixMilliseconds)] {
            let conn = try Self.connection(options)
            let dates = try conn.fetchAll([Date].self, sql: "SELECT dates FROM tagged ORDER BY id")
            let records = try conn.fetchAll(Tagged.self, sql: "SELECT * FROM tagged ORDER BY id")
            #expect(dates == records.map(\.dates))
            #expect(dates.map(\.count) == [2, 0])
            #expect(dates.first?.last == Self.second)
        }
    }

    @Test func optionalsReadNullAsNil() throws {
        let conn = try Self.connection()
        #expect(try conn.fetchAll([String]?.self, sql: "SELECT NULL UNION ALL SELECT '[\"c\"]'") == [nil, ["c"]])
        #expect(try conn.fetchOne([String].self, sql: "SELECT tags FROM tagged WHERE id = 99") == nil)
    }

    @Test func aValueThatIsNotJSONTextThrowsNamingTheColumn() throws {
        let conn = try Self.connection()
        let (_, notJSON) = try Self.decodingError { _ = try conn.fetchAll([String].self, sql: "SELECT 'a,b' AS tags") }
        #expect(notJSON.debugDescription.contains("column \"tags\""))
        #expect(notJSON.codingPath.first?.stringValue == "tags")
        let (_, integer) = try Self.decodingError { _ = try conn.fetchAll([Int].self, sql: "SELECT 42 AS numbers") }
        #expect(integer.debugDescription.contains("numbers"))
        let (_, null) = try Self.decodingError { _ = try conn.fetchAll([Int].self, sql: "SELECT NULL AS numbers") }
        #expect(null.debugDescription.contains("numbers"))
        let (_, element) = try Self.decodingError {
            _ = try conn.fetchAll([Int].self, sql: #"SELECT '["a"]' AS numbers"#)
        }
        #expect(element.debugDescription.contains("column \"numbers\""))
        #expect(element.debugDescription.contains("Array<Int>"))
    }

    @Test func severalColumnsThrowRatherThanGuess() throws {
        let conn = try Self.connection()
        let (error, context) = try Self.decodingError {
            _ = try conn.fetchAll([String].self, sql: "SELECT tags, scores FROM tagged")
        }
        guard case .typeMismatch = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
        #expect(context.debugDescription.contains("2 columns (\"tags\", \"scores\")"))
        #expect(context.debugDescription.hasPrefix("Array<String> is read from one column"))
        _ = try Self.decodingError { _ = try conn.fetchAll(Set<Int>.self, sql: "SELECT 1, 2") }
        _ = try Self.decodingError { _ = try conn.fetchAll([String: Int].self, sql: "SELECT 1 AS a, 2 AS b") }
    }

    @Test func aTypeOfOnesOwnStillReadsTheColumnsInOrder() throws {
        let conn = try Self.connection()
        #expect(
            try conn.fetchAll(Positional.self, sql: "SELECT id FROM tagged ORDER BY id") == [
                .init(number: 1), .init(number: 2),
            ])
    }

    @Test func databaseReadsDecodeTheSameWay() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in
            try conn.execute(script: "CREATE TABLE tagged (id INTEGER PRIMARY KEY, tags TEXT)")
            try conn.execute(script: #"INSERT INTO tagged (tags) VALUES ('["a","b"]')"#)
        }
        #expect(try await db.fetchAll([String].self, sql: "SELECT tags FROM tagged") == [["a", "b"]])
        #expect(try await db.fetchOne(Set<String>.self, sql: "SELECT tags FROM tagged") == ["a", "b"])
        try await db.close()
    }
}
