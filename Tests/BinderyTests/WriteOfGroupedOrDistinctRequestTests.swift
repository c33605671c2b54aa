import Foundation
import Testing

@testable import Bindery

/// `deleteAll` and `updateAll` of requests whose rows are not rows of their table: groups (by
/// `group`, `having`, an aggregate in the selection) and distinct selected values cut by a limit or
/// an offset throw a ``RequestError`` naming the problem and write nothing; the requests whose rows
/// are rows of the table (distinct values without a cut, a selection cut without `distinct()`) still
/// write the rows plain SQL names. Data: ``RequestFeatureFixture``.
@Suite struct WriteOfGroupedOrDistinctRequestTests {
    typealias Author = RequestFeatureFixture.Author

    private func names(_ conn: Connection) throws -> [String] {
        try conn.fetchAll(String.self, sql: "SELECT name FROM author ORDER BY id")
    }

    @Test(arguments: [
        Author.all().group("country"),
        Author.all().group("country").having("count(*) > \(1)"),
        Author.all().select("country").group("country").having("count(*) > \(1)"),
        Author.all().having("count(*) > \(1)"),
        Author.all().select("count(*) AS n"),
        Author.all().group("country").limit(1),
        Author.all().filter("country = \("PT")").group("country").order("country"),
    ])
    func groupedRequestsAreNotWritten(_ request: QueryRequest<Author>) throws {
        let conn = try RequestFeatureFixture.connection()
        try conn.execute("PRAGMA foreign_keys = OFF")
        #expect(throws: RequestError.groupedRowsNotWritable(operation: "deleteAll")) {
            try conn.deleteAll(request)
        }
        #expect(throws: RequestError.groupedRowsNotWritable(operation: "updateAll")) {
            try conn.updateAll(request, set: "name = \("X")")
        }
        #expect(try names(conn) == ["Ana", "Bo", "Cy", "Di"])
    }

    @Test func anAnnotationAggregatingRowsIsGrouped() throws {
        let conn = try RequestFeatureFixture.connection()
        let request = Author.all().annotated(with: "count(*)", as: "n")
        #expect(throws: RequestError.groupedRowsNotWritable(operation: "deleteAll")) {
            try conn.deleteAll(request)
        }
        #expect(try conn.fetchCount(Author.all()) == 4)
    }

    @Test func theErrorSaysWhatToDo() {
        let text = RequestError.groupedRowsNotWritable(operation: "deleteAll").description
        #expect(text.contains("deleteAll") && text.contains("group") && text.contains("filter"))
        let distinct = RequestError.distinctValuesNotWritable(operation: "updateAll").description
        #expect(distinct.contains("updateAll") && distinct.contains("distinct") && distinct.contains("filter"))
    }

    @Test func aPerRowHavingOnAnAggregateOfAnAssociationStillWrites() throws {
        // Without grouping, `having(AggregateCondition)` tests each row: those rows are written.
        let conn = try RequestFeatureFixture.connection()
        try conn.execute("PRAGMA foreign_keys = OFF")
        #expect(try conn.deleteAll(Author.having(Author.reviews.count >= 3)) == 1)
        #expect(try names(conn) == ["Ana", "Cy", "Di"])
    }

    @Test func distinctValuesCutByALimitOrOffsetAreNotWritten() throws {
        let conn = try RequestFeatureFixture.connection()
        try conn.execute("PRAGMA foreign_keys = OFF")
        let values = Author.all().select("country").distinct().order("country")
        // The fetch shows the first distinct value, which two rows hold.
        #expect(try conn.fetchAll(String.self, values.limit(1)) == ["PT"])
        for request in [values.limit(1), values.limit(1, offset: 1), values.limit(5, offset: 0)] {
            #expect(throws: RequestError.distinctValuesNotWritable(operation: "deleteAll")) {
                try conn.deleteAll(request)
            }
            #expect(throws: RequestError.distinctValuesNotWritable(operation: "updateAll")) {
                try conn.updateAll(request, set: "name = \("X")")
            }
        }
        #expect(try names(conn) == ["Ana", "Bo", "Cy", "Di"])
    }

    @Test func distinctValuesWithoutACutWriteEveryRowOfTheFilter() throws {
        let conn = try RequestFeatureFixture.connection()
        try conn.execute("PRAGMA foreign_keys = OFF")
        let request = Author.all().select("country").distinct().filter("country = \("SE")")
        #expect(try conn.updateAll(request, set: "name = upper(name)") == 2)
        #expect(try names(conn) == ["Ana", "BO", "Cy", "DI"])
        #expect(try conn.deleteAll(request) == 2)
        #expect(try names(conn) == ["Ana", "Cy"])
    }

    @Test func aSelectionCutWithoutDistinctWritesTheRowsFetched() throws {
        let conn = try RequestFeatureFixture.connection()
        try conn.execute("PRAGMA foreign_keys = OFF")
        let request = Author.all().select("country").order("id DESC").limit(2)
        #expect(try conn.deleteAll(request) == 2)
        let expected = ["Ana", "Bo"]
        #expect(try names(conn) == expected)
    }

    @Test func theDatabaseActorThrowsTheSame() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in try conn.execute(script: RequestFeatureFixture.schema) }
        await #expect(throws: RequestError.groupedRowsNotWritable(operation: "deleteAll")) {
            try await db.deleteAll(Author.all().group("country"))
        }
        await #expect(throws: RequestError.distinctValuesNotWritable(operation: "updateAll")) {
            try await db.updateAll(Author.all().select("country").distinct().limit(1), set: "name = \("X")")
        }
        #expect(try await db.fetchCount(Author.all()) == 4)
    }
}
