import Foundation
import Testing

@testable import Bindery

/// `fetchCursor` of requests with `limit`/`offset` and `reversed()` (on `Connection` and on the
/// `Database` actor, whose cursor reads in batches), with ties in the ordering, a NOCASE ordering and a
/// composite key: each gives the rows `fetchAll` gives and plain SQL gives, in the same order.
@Suite struct CursorLimitReversedTests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        static let primaryKey = ["shelf", "slot"]
        var shelf: String
        var slot: Int
        var name: String
        var rank: Int
    }

    static let schema = """
        CREATE TABLE items(shelf TEXT NOT NULL, slot INTEGER NOT NULL, name TEXT NOT NULL COLLATE NOCASE,
            rank INTEGER NOT NULL, PRIMARY KEY (shelf, slot));
        """

    static func rows() -> [Item] {
        (0..<700).map { i in
            Item(shelf: ["a", "B", "c"][i % 3], slot: i, name: ["x", "X", "y", "Y", "z"][i % 5], rank: i % 7)
        }
    }

    /// Each request, with the SQL that gives its rows (orderings total, so that ties cannot differ).
    static func requests() -> [(QueryRequest<Item>, SQL)] {
        [
            (
                Item.all().order("rank").thenOrder("shelf").thenOrder("slot").limit(50, offset: 100).reversed(),
                "SELECT * FROM items ORDER BY rank DESC, shelf DESC, slot DESC LIMIT 50 OFFSET 100"
            ),
            (
                Item.all().order("name").thenOrder("slot").reversed().limit(600, offset: 7),
                "SELECT * FROM items ORDER BY name DESC, slot DESC LIMIT 600 OFFSET 7"
            ),
            (Item.all().reversed().limit(3), "SELECT * FROM items ORDER BY shelf DESC, slot DESC LIMIT 3"),
            (
                Item.all().reversed().limit(5, offset: 698),
                "SELECT * FROM items ORDER BY shelf DESC, slot DESC LIMIT 5 OFFSET 698"
            ),
            (
                Item.all().filter("rank > \(2)").order("name").thenOrder("rank DESC").thenOrder("slot").reversed()
                    .limit(-1, offset: 10),
                "SELECT * FROM items WHERE rank > 2 ORDER BY name DESC, rank ASC, slot DESC LIMIT -1 OFFSET 10"
            ),
        ]
    }

    @Test func connectionCursorsGiveTheRowsOfFetchAllAndSQL() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        try conn.insert(contentsOf: Self.rows())
        for (request, sql) in Self.requests() {
            let expected = try conn.fetchAll(Item.self, sql: sql)
            #expect(try conn.fetchAll(request).map(\.slot) == expected.map(\.slot), "\(sql)")
            let cursor = try conn.fetchCursor(request)
            var seen: [Item] = []
            while let item = try cursor.next() { seen.append(item) }
            #expect(seen.map(\.slot) == expected.map(\.slot), "\(sql)")
            #expect(try conn.fetchCount(request) == expected.count)
        }
    }

    @Test func databaseCursorsGiveTheRowsOfFetchAllAndSQL() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in
            try conn.execute(script: Self.schema)
            try conn.insert(contentsOf: Self.rows())
        }
        for (request, sql) in Self.requests() {
            let expected = try await db.read { conn in try conn.fetchAll(Item.self, sql: sql) }
            var seen: [Item] = []
            for try await item in db.fetchCursor(request) { seen.append(item) }
            #expect(seen.map(\.slot) == expected.map(\.slot), "\(sql)")
        }
    }
}
