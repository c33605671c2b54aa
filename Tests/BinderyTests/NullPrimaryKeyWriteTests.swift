import Foundation
import Testing

@testable import Bindery

/// `deleteAll` and `updateAll` of a request that limits, joins or selects name its rows by primary key
/// (`WHERE key IN (SELECT …)`). A key column of a rowid table without `NOT NULL` (a `TEXT PRIMARY KEY`)
/// may hold NULL, which no `IN` matches: those rows were left out of the write without a word, while
/// `fetchAll` of the same request gave them.
@Suite struct NullPrimaryKeyWriteTests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        static let primaryKey = ["code"]
        var code: String?
        var n: Int
        var note: String?
    }

    struct Pair: Record, Equatable {
        static let tableName = "pairs"
        static let primaryKey = ["a", "b"]
        var a: String?
        var b: Int
        var rowid: Int
    }

    static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE items(code TEXT PRIMARY KEY, n INTEGER NOT NULL, note TEXT);
                INSERT INTO items VALUES (NULL, 1, 'a'), (NULL, 2, 'b'), ('x', 3, 'c'), ('y', 4, 'd');
                CREATE TABLE pairs(a TEXT, b INTEGER NOT NULL, rowid INTEGER NOT NULL, PRIMARY KEY (a, b));
                INSERT INTO pairs VALUES (NULL, 1, 10), (NULL, 1, 20), ('x', 1, 30);
                """)
        return conn
    }

    @Test func updateAllOfALimitedRequestUpdatesTheRowsWithANullKey() throws {
        let conn = try Self.connection()
        let request = Item.all().order("n").limit(3)
        #expect(try conn.fetchAll(request).map(\.n) == [1, 2, 3])
        #expect(try conn.updateAll(request, set: "note = \("z")") == 3)
        #expect(try conn.fetchAll(Item.all().order("n")).map(\.note) == ["z", "z", "z", "d"])
    }

    @Test func deleteAllOfALimitedRequestDeletesTheRowsWithANullKey() throws {
        let conn = try Self.connection()
        #expect(try conn.deleteAll(Item.all().order("n DESC").limit(3)) == 3)
        #expect(try conn.fetchAll(Item.all()).map(\.n) == [1])
    }

    @Test func aCompositeKeyWithANullColumnAndAColumnNamedRowidWritesByTheOtherRowidName() throws {
        let conn = try Self.connection()
        let request = Pair.all().order("rowid DESC").limit(2)
        #expect(try conn.fetchAll(request).map(\.rowid) == [30, 20])
        #expect(try conn.updateAll(request, set: "b = b + \(1)") == 2)
        #expect(try conn.fetchAll(Pair.all().order("rowid")).map(\.b) == [1, 2, 2])
        #expect(try conn.deleteAll(Pair.all().filter("b = \(2)").limit(5)) == 2)
        #expect(try conn.fetchAll(Pair.all()).map(\.rowid) == [10])
    }

    @Test func keysThatAreNeverNullStillNameTheRows() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE items(code TEXT PRIMARY KEY, n INTEGER NOT NULL, note TEXT) WITHOUT ROWID;
                INSERT INTO items VALUES ('w', 1, 'a'), ('x', 2, 'b'), ('y', 3, 'c');
                """)
        #expect(try conn.deleteAll(Item.all().order("n").limit(2)) == 2)
        #expect(try conn.fetchAll(Item.all()).map(\.n) == [3])
    }
}
