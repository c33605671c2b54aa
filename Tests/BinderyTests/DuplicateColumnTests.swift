import Foundation
import Testing

@testable import Bindery

/// A coding key that matches several columns of a row (`id` in `SELECT loans.*, books.*`) is never
/// guessed: every decoding path throws a `DecodingError` naming the column and its positions.
@Suite struct DuplicateColumnTests {
    struct Book: Codable, Sendable, Equatable {
        var id: Int64
        var title: String
    }

    struct Title: Codable, Sendable, Equatable {
        var title: String
    }

    struct MaybeBook: Codable, Sendable {
        var id: Int64?
        var title: String
    }

    struct LooseBook: Codable, Sendable {
        var id: Double?
        var note: String?
        var tag: Bool?
        var title: String
    }

    struct Loan: Codable, Sendable {
        var bookId: Int64
    }

    struct ReaderBook: ColumnDecodable, Sendable {
        var id: Int64
        var title: String

        init(columns: ColumnReader) throws {
            id = try columns.decode(Int64.self, forKey: "id")
            title = try columns.decode(String.self, forKey: "title")
        }
    }

    struct ProbingBook: ColumnDecodable, Sendable {
        var hasID: Bool

        init(columns: ColumnReader) throws {
            hasID = try columns.contains("id")
        }
    }

    struct OptionalReaderBook: ColumnDecodable, Sendable {
        var id: Int64?

        init(columns: ColumnReader) throws {
            id = try columns.decodeIfPresent(Int64.self, forKey: "id")
        }
    }

    static let schema = """
        CREATE TABLE books(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
        CREATE TABLE loans(id INTEGER PRIMARY KEY, book_id INTEGER NOT NULL, member TEXT NOT NULL);
        INSERT INTO books VALUES (7, 'Dune'), (8, 'Emma');
        INSERT INTO loans VALUES (1, 7, 'ana'), (2, 8, 'bea');
        """

    static let join: SQL = "SELECT loans.*, books.* FROM loans JOIN books ON books.id = loans.book_id ORDER BY loans.id"

    static let message =
        "column \"id\" appears 2 times in the row (positions 0 and 3); alias the columns or select only one"

    static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: schema)
        return conn
    }

    /// Records an issue unless `body` throws a `DecodingError.dataCorrupted` whose message holds `message`.
    static func expectAmbiguity(
        _ message: String = DuplicateColumnTests.message, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        let error = #expect(throws: DecodingError.self, sourceLocation: sourceLocation) { try body() }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("not dataCorrupted: \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(
            context.debugDescription.contains(message), "\(context.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test func codableFetchesRefuseAKeyThatMatchesTwoColumns() throws {
        let conn = try Self.connection()
        Self.expectAmbiguity { _ = try conn.fetchAll(Book.self, sql: Self.join) }
        // Again, through the statement's cached decoder that has learned the key.
        Self.expectAmbiguity { _ = try conn.fetchAll(Book.self, sql: Self.join) }
        Self.expectAmbiguity { _ = try conn.fetchOne(Book.self, sql: Self.join) }
        Self.expectAmbiguity {
            let cursor = try conn.fetchCursor(Book.self, sql: Self.join)
            _ = try cursor.next()
        }
    }

    @Test func theErrorNamesTheKeyInItsCodingPath() throws {
        let conn = try Self.connection()
        let error = #expect(throws: DecodingError.self) { try conn.fetchAll(Book.self, sql: Self.join) }
        guard case .dataCorrupted(let context)? = error else {
            Issue.record("not dataCorrupted: \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["id"])
    }

    @Test func databaseFetchesRefuseItToo() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in try conn.execute(script: Self.schema) }
        await #expect(throws: DecodingError.self) { try await db.fetchAll(Book.self, sql: Self.join) }
        await #expect(throws: DecodingError.self) { try await db.fetchOne(Book.self, sql: Self.join) }
        try await db.close()
    }

    @Test func optionalPropertiesAreRefusedWhetherTheFirstColumnIsNullOrNot() throws {
        let conn = try Self.connection()
        let idTwice = "column \"id\" appears 2 times in the row (positions 0 and 2)"
        Self.expectAmbiguity(idTwice) {
            _ = try conn.fetchAll(MaybeBook.self, sql: "SELECT NULL AS id, 'x' AS title, 5 AS id")
        }
        Self.expectAmbiguity(idTwice) {
            _ = try conn.fetchAll(MaybeBook.self, sql: "SELECT 5 AS id, 'x' AS title, NULL AS id")
        }
        Self.expectAmbiguity(idTwice) {
            _ = try conn.fetchAll(MaybeBook.self, sql: "SELECT NULL AS id, 'x' AS title, NULL AS id")
        }
        Self.expectAmbiguity(
            "column \"note\" appears 2 times in the row (positions 1 and 2)"
        ) { _ = try conn.fetchAll(LooseBook.self, sql: "SELECT 1.5 AS id, NULL AS note, 'a' AS note, 't' AS title") }
        Self.expectAmbiguity(
            "column \"tag\" appears 2 times in the row (positions 2 and 3)"
        ) {
            _ = try conn.fetchAll(
                LooseBook.self, sql: "SELECT 1.5 AS id, 'n' AS note, NULL AS tag, 1 AS tag, 't' AS title")
        }
        Self.expectAmbiguity(
            "column \"id\" appears 2 times in the row (positions 0 and 1)"
        ) { _ = try conn.fetchAll(LooseBook.self, sql: "SELECT NULL AS id, 2.5 AS id, 't' AS title") }
    }

    @Test func namesAreComparedAsSQLiteComparesThem() throws {
        let conn = try Self.connection()
        Self.expectAmbiguity("column \"id\" appears 3 times in the row (positions 0, 1 and 3)") {
            _ = try conn.fetchAll(Book.self, sql: "SELECT 1 AS id, 2 AS ID, 'x' AS title, 3 AS Id")
        }
        var options = CodingOptions()
        options.keyStrategy = .snakeCase
        conn.codingOptions = options
        Self.expectAmbiguity("column \"book_id\" appears 2 times in the row (positions 0 and 1)") {
            _ = try conn.fetchAll(Loan.self, sql: "SELECT 1 AS book_id, 2 AS BOOK_ID")
        }
    }

    @Test func aRepeatedColumnTheTypeNeverAsksForIsFine() throws {
        let conn = try Self.connection()
        #expect(try conn.fetchAll(Title.self, sql: Self.join) == [Title(title: "Dune"), Title(title: "Emma")])
        #expect(
            try conn.fetchAll(Book.self, sql: "SELECT books.*, 1 AS n, 2 AS n FROM books ORDER BY id")
                == [Book(id: 7, title: "Dune"), Book(id: 8, title: "Emma")])
    }

    @Test func singleValuesStillReadTheFirstColumn() throws {
        let conn = try Self.connection()
        #expect(
            try conn.fetchAll(
                Int64.self,
                sql: "SELECT loans.id, books.id FROM loans JOIN books ON books.id = loans.book_id ORDER BY loans.id")
                == [1, 2])
    }

    @Test func columnReaderRefusesTheKey() throws {
        let conn = try Self.connection()
        Self.expectAmbiguity { _ = try conn.fetchAll(ReaderBook.self, sql: Self.join) }
        Self.expectAmbiguity { _ = try conn.fetchAll(ProbingBook.self, sql: Self.join) }
        Self.expectAmbiguity("column \"id\" appears 2 times in the row (positions 0 and 1)") {
            _ = try conn.fetchAll(OptionalReaderBook.self, sql: "SELECT NULL AS id, NULL AS id")
        }
        #expect(try conn.fetchAll(ProbingBook.self, sql: "SELECT 1 AS n").map(\.hasID) == [false])
    }

    @Test func rowSubscriptByNameRefusesTheNameButNotTheIndexes() throws {
        let conn = try Self.connection()
        let rows = try conn.rows(Self.join)
        let row = try #require(rows.first)
        Self.expectAmbiguity { let _: Int64 = try row["id"] }
        Self.expectAmbiguity("column \"ID\" appears 2 times in the row (positions 0 and 3)") {
            let _: Int64 = try row["ID"]
        }
        #expect(try row[0] as Int64 == 1)
        #expect(try row[3] as Int64 == 7)
        #expect(try row["title"] as String == "Dune")
        #expect(row.index(ofColumn: "id") == 0)
        let error = #expect(throws: SQLiteError.self) { let _: Int64 = try row["nope"] }
        #expect(error?.code == .range)
    }

    @Test func observationsDecodeThroughTheSamePath() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in try conn.execute(script: Self.schema) }
        var books = db.observe { conn in try conn.fetchAll(Book.self, sql: Self.join) }.makeAsyncIterator()
        await #expect(throws: DecodingError.self) { _ = try await books.next() }
        try await db.close()
    }

    @Test func theColumnTableFindsEveryPosition() {
        let columns = RowColumns(names: ["id", "book_id", "ID", "title", "Id"])
        #expect(columns.match("iD") == .ambiguous([0, 2, 4]))
        #expect(columns.match("TITLE") == .column(3))
        #expect(columns.match("author") == .missing)
        #expect(
            RowColumns.ambiguity("id", positions: [0, 2, 4]).hasPrefix(
                "column \"id\" appears 3 times in the row (positions 0, 2 and 4)"))
    }
}
