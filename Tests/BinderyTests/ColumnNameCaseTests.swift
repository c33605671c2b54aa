import Foundation
import Testing

@testable import Bindery

/// Column names are matched as SQLite matches them: ASCII letters without regard to case, every other
/// character exactly. "ID" and "id" are one column; "É" and "é" are two.
@Suite struct ColumnNameCaseTests {
    struct Lower: Decodable, Equatable {
        var é: Int
    }

    struct Upper: Decodable, Equatable {
        var É: Int
    }

    /// Primary key "é", and a column "É" that is not part of it.
    struct Accented: Record, Equatable {
        static let tableName = "accented"
        static let primaryKey = ["é"]
        var é: Int64
        var É: String
    }

    struct Identified: Decodable, Equatable {
        var id: Int
    }

    private static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE uni ("É" INTEGER, "é" INTEGER);
                INSERT INTO uni VALUES (1, 2);
                CREATE TABLE accented ("é" INTEGER PRIMARY KEY, "É" TEXT);
                """)
        return conn
    }

    @Test func accentedCapitalsAreDistinctColumnsWhenDecoding() throws {
        let conn = try Self.connection()
        #expect(try conn.fetchAll(Lower.self, sql: "SELECT * FROM uni") == [Lower(é: 2)])
        #expect(try conn.fetchAll(Upper.self, sql: "SELECT * FROM uni") == [Upper(É: 1)])
        // Composed and decomposed forms are different names to SQLite too.
        #expect(try conn.fetchAll(Lower.self, sql: "SELECT 3 AS \"e\u{301}\", 4 AS \"é\"") == [Lower(é: 4)])
    }

    @Test func accentedCapitalsAreDistinctInRowSubscripts() throws {
        let conn = try Self.connection()
        let row = try #require(try conn.rows("SELECT * FROM uni").first)
        #expect(try row["é"] as Int64 == 2)
        #expect(try row["É"] as Int64 == 1)
        #expect(row.index(ofColumn: "é") == 1)
        #expect(row.index(ofColumn: "É") == 0)
        let composed = try #require(try conn.rows("SELECT 3 AS \"e\u{301}\", 4 AS \"é\"").first)
        #expect(try composed["e\u{301}"] as Int64 == 3)
        #expect(try composed["é"] as Int64 == 4)
    }

    @Test func asciiCaseStillNamesTheSameColumn() throws {
        let conn = try Self.connection()
        #expect(try conn.fetchAll(Identified.self, sql: "SELECT 5 AS ID") == [Identified(id: 5)])
        let row = try #require(try conn.rows("SELECT 5 AS ID").first)
        #expect(try row["id"] as Int64 == 5)
        #expect(try row["iD"] as Int64 == 5)
        DuplicateColumnTests.expectAmbiguity("column \"id\" appears 2 times in the row (positions 0 and 1)") {
            _ = try conn.fetchAll(Identified.self, sql: "SELECT 1 AS id, 2 AS ID")
        }
        let twice = try #require(try conn.rows("SELECT 1 AS id, 2 AS ID").first)
        DuplicateColumnTests.expectAmbiguity("column \"Id\" appears 2 times in the row (positions 0 and 1)") {
            let _: Int64 = try twice["Id"]
        }
    }

    @Test func theColumnTableFoldsAsciiOnly() {
        let columns = RowColumns(names: ["É", "é", "e\u{301}", "ID", "Straße", "id"])
        #expect(columns.match("É") == .column(0))
        #expect(columns.match("é") == .column(1))
        #expect(columns.match("e\u{301}") == .column(2))
        #expect(columns.match("iD") == .ambiguous([3, 5]))
        #expect(columns.match("STRASSE") == .missing)
        #expect(columns.match("STRAßE") == .column(4))
        #expect(columns.index(of: "É") == 0)
        #expect("ID".equalsIdentifier("id"))
        #expect(!"É".equalsIdentifier("é"))
        #expect(!"é".equalsIdentifier("e\u{301}"))
        #expect(!"id".equalsIdentifier("ids"))
    }

    @Test func recordsWriteAndUpdateEachColumn() throws {
        let conn = try Self.connection()
        let stored: SQL = "SELECT \"É\" FROM accented"
        try conn.insert(Accented(é: 1, É: "first"))
        // "É" is no key column: updates and upserts set it.
        try conn.update(Accented(é: 1, É: "second"))
        #expect(try conn.fetchAll(String.self, sql: stored) == ["second"])
        try conn.update(Accented(é: 1, É: "third"), columns: ["É"])
        #expect(try conn.fetchAll(String.self, sql: stored) == ["third"])
        try conn.upsert(Accented(é: 1, É: "fourth"))
        #expect(try conn.fetchAll(String.self, sql: stored) == ["fourth"])
        #expect(try conn.fetchAll(Accented.self, sql: "SELECT * FROM accented") == [Accented(é: 1, É: "fourth")])
    }

    /// Reads "é" and "É" by hand, through a ``ColumnReader``.
    struct ReadByHand: ColumnDecodable, Equatable {
        var lower: Int
        var upper: Int

        init(lower: Int, upper: Int) {
            self.lower = lower
            self.upper = upper
        }

        init(columns: ColumnReader) throws {
            lower = try columns.decode(Int.self, forKey: "é")
            upper = try columns.decode(Int.self, forKey: "É")
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            lower = try container.decode(Int.self, forKey: AnyKey("é"))
            upper = try container.decode(Int.self, forKey: AnyKey("É"))
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    @Test func accentedCapitalsAreDistinctOnEveryReadingPath() throws {
        let conn = try Self.connection()
        // fetchOne, cursors of records and of rows, ColumnReader, keys that are no enum cases.
        #expect(try conn.fetchOne(Lower.self, sql: "SELECT * FROM uni") == Lower(é: 2))
        #expect(try conn.fetchOne(Upper.self, sql: "SELECT * FROM uni") == Upper(É: 1))
        #expect(try conn.fetchCursor(Lower.self, sql: "SELECT * FROM uni").collect() == [Lower(é: 2)])
        #expect(try conn.fetchCursor(Upper.self, sql: "SELECT * FROM uni").collect() == [Upper(É: 1)])
        let row = try #require(try conn.rowCursor("SELECT * FROM uni", arguments: []).next())
        #expect(try row["é"] as Int64 == 2)
        #expect(try row["É"] as Int64 == 1)
        #expect(try conn.fetchOne(ReadByHand.self, sql: "SELECT * FROM uni") == ReadByHand(lower: 2, upper: 1))
        #expect(try conn.fetchAll(ReadByHand.self, sql: "SELECT * FROM uni") == [ReadByHand(lower: 2, upper: 1)])
        #expect(
            try conn.fetchCursor(ReadByHand.self, sql: "SELECT * FROM uni").next() == ReadByHand(lower: 2, upper: 1))
        // Records: read back through RETURNING, by key, and through a cursor.
        let stored = try conn.insert(Accented(é: 7, É: "seven"))
        #expect(stored == Accented(é: 7, É: "seven"))
        #expect(try conn.insertAndFetch(contentsOf: [Accented(é: 8, É: "eight")]) == [Accented(é: 8, É: "eight")])
        #expect(try conn.find(Accented.self, id: 8) == Accented(é: 8, É: "eight"))
        #expect(try conn.fetchOne(Accented.self, where: "\"É\" = \("seven")") == Accented(é: 7, É: "seven"))
        #expect(try conn.fetchCursor(Accented.self, orderBy: "\"é\"").collect().map(\.É) == ["seven", "eight"])
    }

    @Test func observedRegionsFoldAsciiOnly() {
        let region = DatabaseRegion(tables: ["Books", "É"])
        #expect(region.contains("BOOKS"))
        #expect(region.contains("É"))
        #expect(!region.contains("é"))
    }
}
