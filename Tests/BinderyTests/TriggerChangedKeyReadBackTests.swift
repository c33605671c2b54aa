import Foundation
import Testing

@testable import Bindery

/// An AFTER INSERT trigger that changes the row's own key (a TEXT key made lowercase) and another
/// column: the row is not found again by the key `RETURNING` gave, so every insert that returns rows
/// read it back by the rowid the INSERT gave it, where it used to return the row as inserted, which no
/// longer existed (`Tag(code: "ABC", stamp: nil)` for a stored `('abc', 'T')`).
@Suite struct TriggerChangedKeyReadBackTests {
    struct Tag: Record, Equatable {
        static let tableName = "tags"
        static let primaryKey = ["code"]
        var code: String
        var stamp: String?
    }

    static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE tags (code TEXT PRIMARY KEY NOT NULL, stamp TEXT);
                CREATE TRIGGER norm AFTER INSERT ON tags BEGIN
                    UPDATE tags SET code = lower(NEW.code), stamp = 'T' WHERE rowid = NEW.rowid;
                END;
                """)
        return conn
    }

    @Test func insertReturnsTheRowAsStored() throws {
        let conn = try Self.connection()
        #expect(try conn.insert(Tag(code: "ABC", stamp: nil)) == Tag(code: "abc", stamp: "T"))
        #expect(try conn.upsert(Tag(code: "DEF", stamp: nil)) == Tag(code: "def", stamp: "T"))
        #expect(
            try conn.fetchAll(Tag.self, orderBy: "code") == [
                Tag(code: "abc", stamp: "T"), Tag(code: "def", stamp: "T"),
            ])
    }

    @Test func bulkInsertsReturnTheRowsAsStored() throws {
        let conn = try Self.connection()
        let records = (0..<250).map { Tag(code: "K\($0)", stamp: nil) }
        let expected = (0..<250).map { Tag(code: "k\($0)", stamp: "T") }
        #expect(try conn.insertAndFetch(contentsOf: records) == expected)
        let more = (250..<500).map { Tag(code: "K\($0)", stamp: nil) }
        #expect(
            try conn.insertOrIgnoreAndFetch(contentsOf: more) == (250..<500).map { Tag(code: "k\($0)", stamp: "T") })
        #expect(try conn.count(Tag.self) == 500)
    }

    /// A trigger that deletes the row: nothing can be read back, and the row comes back as `RETURNING`
    /// gave it (as documented), one by one and in batches alike.
    @Test func aRowATriggerDeletedComesBackAsInserted() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE tags (code TEXT PRIMARY KEY NOT NULL, stamp TEXT);
                CREATE TABLE moved (code TEXT);
                CREATE TRIGGER move AFTER INSERT ON tags BEGIN
                    INSERT INTO moved VALUES (NEW.code); DELETE FROM tags WHERE rowid = NEW.rowid;
                END;
                """)
        #expect(try conn.insert(Tag(code: "A", stamp: "s")) == Tag(code: "A", stamp: "s"))
        let records = (0..<150).map { Tag(code: "B\($0)", stamp: nil) }
        #expect(try conn.insertAndFetch(contentsOf: records) == records)
        #expect(try conn.count(Tag.self) == 0)
    }
}
