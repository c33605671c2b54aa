import Foundation
import Testing

@testable import Bindery

/// `reindex()`, `reindex(table:)`, `reindex(index:)` and `reindex(collation:)` rebuild what they name:
/// an index built under a collation whose order then changed is out of order (the integrity check says
/// so, and a search by the index misses rows) until it is rebuilt.
@Suite struct ReindexTests {
    static let ascending = Collation("flip") { left, right in
        left == right ? .orderedSame : (left < right ? .orderedAscending : .orderedDescending)
    }
    static let descending = Collation("flip") { left, right in
        left == right ? .orderedSame : (left < right ? .orderedDescending : .orderedAscending)
    }

    /// A table indexed under "flip" in ascending order, then "flip" registered again, descending.
    static func flipped() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.add(collation: ascending)
        try conn.create(table: "words") { t in
            t.column("id", .integer).primaryKey()
            t.column("word", .text).collate(ascending)
        }
        try conn.execute("CREATE INDEX byWord ON words(word)")
        try conn.execute("INSERT INTO words VALUES (1, 'a'), (2, 'c'), (3, 'b'), (4, 'd')")
        try conn.add(collation: descending)
        return conn
    }

    static func isIntact(_ conn: Connection) throws -> Bool {
        try conn.rows("PRAGMA integrity_check").map { try $0[0] as String } == ["ok"]
    }

    @Test(arguments: ["all", "table", "index", "collation"])
    func eachFormRebuildsTheIndexItNames(_ form: String) throws {
        let conn = try Self.flipped()
        #expect(try !Self.isIntact(conn))
        switch form {
        case "all": try conn.reindex()
        case "table": try conn.reindex(table: "words")
        case "index": try conn.reindex(index: "byWord")
        default: try conn.reindex(collation: "flip")
        }
        #expect(try Self.isIntact(conn))
        // The index now sorts by the new order: "d" comes first, and a range search finds every row.
        let sql: SQL = "SELECT word FROM words INDEXED BY byWord WHERE word > 'c' ORDER BY word"
        #expect(try conn.fetchAll(String.self, sql: sql) == ["b", "a"])
    }

    @Test func aTableOrIndexNotNamedIsLeftAsItWas() throws {
        let conn = try Self.flipped()
        try conn.execute("CREATE TABLE other(id INTEGER PRIMARY KEY, word TEXT COLLATE flip)")
        try conn.execute("CREATE INDEX otherByWord ON other(word)")
        try conn.reindex(table: "other")
        #expect(try !Self.isIntact(conn))
        try conn.reindex(index: "otherByWord")
        #expect(try !Self.isIntact(conn))
        try conn.reindex(index: "byWord")
        #expect(try Self.isIntact(conn))
    }
}
