import Foundation
import Testing

@testable import Bindery

/// `deleteAll` and `updateAll` of a request whose rows are made distinct (`distinct()`) and cut by a
/// `limit` or an `offset` write the rows `fetchAll` of the same request gives, no other: the cut counts
/// distinct rows, as the fetch counts them, not the rows of the join before `DISTINCT` merged them.
/// `fetchCount` and `exists` agree with the fetch too. Data: ``RequestFeatureFixture`` (Ana has three
/// books, Bo one, Cy none, Di three).
@Suite struct DistinctLimitedWriteTests {
    typealias Author = RequestFeatureFixture.Author
    typealias Book = RequestFeatureFixture.Book

    struct Undo: Error {}

    /// The ids of the authors `deleteAll` deleted and of those `updateAll` changed, each in a
    /// transaction rolled back; and the counts each returned.
    private func written(_ conn: Connection, _ request: QueryRequest<Author>) throws -> (
        deleted: [Int64], deleteCount: Int, updated: [Int64], updateCount: Int
    ) {
        var result: (deleted: [Int64], deleteCount: Int, updated: [Int64], updateCount: Int) = ([], 0, [], 0)
        #expect(throws: Undo.self) {
            try conn.transaction { conn in
                result.deleteCount = try conn.deleteAll(request)
                result.deleted = try conn.fetchAll(
                    Int64.self,
                    sql: "SELECT value FROM json_each('[1,2,3,4]') WHERE value NOT IN (SELECT id FROM author)")
                throw Undo()
            }
        }
        #expect(throws: Undo.self) {
            try conn.transaction { conn in
                result.updateCount = try conn.updateAll(request, set: "name = name || \("!")")
                result.updated = try conn.fetchAll(
                    Int64.self, sql: "SELECT id FROM author WHERE name LIKE '%!' ORDER BY id")
                throw Undo()
            }
        }
        return result
    }

    @Test(arguments: [
        Author.all().joining(required: Author.books).distinct().limit(2),
        Author.all().joining(required: Author.books).distinct().order("author.name").limit(2),
        Author.all().joining(required: Author.books).distinct().order("author.name").limit(1, offset: 1),
        Author.all().joining(required: Author.books.filter("pages > \(5)")).distinct().order("author.id DESC").limit(2),
        Author.all().joining(optional: Author.books).distinct().order("author.id").limit(10, offset: 2),
        Author.all().joining(required: Author.reviews).distinct().order("author.id").limit(2),
    ])
    func aDistinctJoinCutByALimitWritesTheRowsItFetches(_ request: QueryRequest<Author>) throws {
        let conn = try RequestFeatureFixture.connection()
        try conn.execute("PRAGMA foreign_keys = OFF")
        let fetched = try conn.fetchAll(request).map(\.id).sorted()
        #expect(try conn.fetchCount(request) == fetched.count)
        #expect(try conn.exists(request) == !fetched.isEmpty)
        let written = try written(conn, request)
        #expect(written.deleted == fetched)
        #expect(written.deleteCount == fetched.count)
        #expect(written.updated == fetched)
        #expect(written.updateCount == fetched.count)
    }

    @Test func aDistinctJoinWithAnAnnotationAndAnIncludedAuthorWritesTheRowsItFetches() throws {
        // Books, each once with its author, though the author's reviews multiply the join's rows.
        let conn = try RequestFeatureFixture.connection()
        try conn.execute("PRAGMA foreign_keys = OFF")
        let request = Book.all().including(optional: Book.author)
            .joining(required: Book.author.forKey("reviewed").joining(required: Author.reviews)).distinct()
            .annotated(with: "length(\(raw: "book").title)", as: "titleLength").order("book.id").limit(2)
        struct Row: Decodable { var id: Int64; var author: Author?; var titleLength: Int }
        let fetched = try conn.fetchAll(Row.self, request).map(\.id)
        #expect(fetched == [1, 2])
        var deleted: [Int64] = []
        #expect(throws: Undo.self) {
            try conn.transaction { conn in
                #expect(try conn.deleteAll(request) == 2)
                deleted = try conn.fetchAll(
                    Int64.self,
                    sql: "SELECT value FROM json_each('[1,2,3,4,5,6,7]') WHERE value NOT IN (SELECT id FROM book)")
                throw Undo()
            }
        }
        #expect(deleted == fetched)
    }
}
