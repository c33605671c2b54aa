import Foundation
import Testing

@testable import Bindery

/// Annotations (`annotated(with:)`, `annotated(with:as:)`) under a key strategy: the property an
/// annotation decodes into reads the column its key names under the connection's
/// `CodingOptions.keyStrategy`, so that is the column the annotation must have — and a column of the
/// table with that name must not be read in its place.
@Suite struct AnnotationKeyStrategyTests {
    struct Writer: Record, Equatable {
        static let tableName = "writer"
        var id: Int64
        var fullName: String
        /// A count the app keeps itself, stale here (99).
        var novelCount: Int
        static let novels = hasMany(Novel.self, using: ForeignKey(["writer_id"]))
    }

    struct Novel: Record, Equatable {
        static let tableName = "novel"
        var id: Int64
        var writerId: Int64
    }

    struct Counted: Decodable, Equatable {
        var writer: Writer
        var novelTotal: Int
    }

    struct Doubled: Decodable, Equatable {
        var novel: Novel
        var doubleId: Int
    }

    struct Recount: Decodable, Equatable {
        var writer: Writer
        var novelCount: Int
    }

    private static func library() throws -> Connection {
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(keyStrategy: .snakeCase)
        try conn.execute(
            script: """
                CREATE TABLE writer(id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, novel_count INTEGER NOT NULL);
                CREATE TABLE novel(id INTEGER PRIMARY KEY, writer_id INTEGER NOT NULL REFERENCES writer);
                INSERT INTO writer VALUES (1, 'Ann', 99), (2, 'Bob', 99);
                INSERT INTO novel VALUES (1, 1), (2, 1), (3, 2);
                """)
        return conn
    }

    @Test func anAggregateDecodesIntoItsPropertyUnderSnakeCase() throws {
        let conn = try Self.library()
        let request = Writer.annotated(with: Writer.novels.count.forKey("novelTotal")).order("id")
        let counted = try conn.fetchAll(Counted.self, request)
        #expect(counted.map(\.novelTotal) == [2, 1])
        #expect(try conn.fetchCount(request) == 2)
    }

    @Test func anExpressionDecodesIntoItsPropertyUnderSnakeCase() throws {
        let conn = try Self.library()
        let doubled = try conn.fetchAll(
            Doubled.self, Novel.all().annotated(with: "id * \(2)", as: "doubleId").order("id"))
        #expect(doubled.map(\.doubleId) == [2, 4, 6])
    }

    @Test func anAggregateWhoseColumnIsOneOfTheTablesIsNeverReadFromTheTable() throws {
        let conn = try Self.library()
        // `novelCount` reads `novel_count`: the table's stale 99 was read in place of the count.
        let request = Writer.annotated(with: Writer.novels.count.forKey("novelCount")).order("id")
        let error = #expect(throws: DecodingError.self) { try conn.fetchAll(Recount.self, request) }
        #expect(String(describing: error).contains(#"column "novel_count" appears 2 times"#))
    }

    @Test func anExpressionWhoseColumnIsOneOfTheTablesThrowsAClash() throws {
        let conn = try Self.library()
        let request = Writer.all().annotated(with: "id * \(2)", as: "novelCount")
        #expect {
            try conn.fetchAll(Recount.self, request)
        } throws: { error in
            guard case RequestError.annotationKeyClash(let key, let other) = error else { return false }
            return key == "novelCount" && other == #"the column "novel_count" of "writer""#
        }
    }

    @Test func twoKeysWithOneColumnThrowAClash() throws {
        let conn = try Self.library()
        let request = Novel.all().annotated(with: "id", as: "doubleId").annotated(with: "id", as: "double_id")
        #expect {
            try conn.fetchAll(Doubled.self, request)
        } throws: { error in
            guard case RequestError.annotationKeyClash(let key, let other) = error else { return false }
            return key == "double_id" && other == "another annotation"
        }
    }
}
