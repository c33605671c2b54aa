import Foundation
import Testing

@testable import Bindery

/// Bulk `insert`, `insertAndFetch`, `upsert` and `update` of many records meeting triggers that write
/// other tables, STORED and VIRTUAL generated columns, foreign keys with `ON DELETE CASCADE` (which a
/// `REPLACE` runs) and TEXT keys differing only by case or Unicode normalization. Every step is done
/// again on a second connection with one plain SQL statement a record; both databases must end with
/// the same rows in every table, and `insertAndFetch` must return the rows as stored.
@Suite struct BulkWritesWithTriggersAndKeysTests {
    struct Parent: Record, Equatable {
        static let tableName = "parents"
        var id: String
        var name: String
        var score: Int
    }

    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64
        var parentId: String
        var code: String
        var qty: Int
    }

    static let schema = """
        PRAGMA foreign_keys = ON;
        CREATE TABLE parents(id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL UNIQUE, score INTEGER NOT NULL,
            doubled INTEGER GENERATED ALWAYS AS (score * 2) STORED, shout TEXT GENERATED ALWAYS AS (upper(name)));
        CREATE TABLE items(id INTEGER PRIMARY KEY, parentId TEXT NOT NULL REFERENCES parents(id) ON DELETE CASCADE,
            code TEXT NOT NULL UNIQUE, qty INTEGER NOT NULL, total INTEGER GENERATED ALWAYS AS (qty * 10) STORED);
        CREATE TABLE log(id INTEGER PRIMARY KEY, what TEXT NOT NULL);
        CREATE TRIGGER parents_ai AFTER INSERT ON parents BEGIN
            INSERT INTO log(what) VALUES ('ins ' || hex(new.id) || ' ' || new.doubled || ' ' || new.shout);
        END;
        CREATE TRIGGER parents_au AFTER UPDATE ON parents BEGIN
            INSERT INTO log(what) VALUES ('upd ' || hex(old.id) || '>' || hex(new.id) || ' ' || new.doubled);
        END;
        CREATE TRIGGER parents_ad AFTER DELETE ON parents BEGIN
            INSERT INTO log(what) VALUES ('del ' || hex(old.id) || ' ' || (SELECT count(*) FROM items));
        END;
        """

    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    /// Every row of every table, as text.
    private static func dump(_ conn: Connection) throws -> [String] {
        try conn.fetchAll(
            String.self,
            sql: """
                SELECT 'p ' || hex(id) || ' ' || name || ' ' || score || ' ' || doubled || ' ' || shout FROM parents
                UNION ALL SELECT 'i ' || id || ' ' || hex(parentId) || ' ' || code || ' ' || qty || ' ' || total FROM items
                UNION ALL SELECT 'l ' || id || ' ' || what FROM log
                ORDER BY 1
                """)
    }

    private static func connections() throws -> (Connection, Connection) {
        let bulk = try Connection.inMemory()
        let plain = try Connection.inMemory()
        for conn in [bulk, plain] {
            try conn.execute(script: schema)
        }
        return (bulk, plain)
    }

    @Test func bulkWritesEndAsPlainStatementsOneByOne() throws {
        let (bulk, plain) = try Self.connections()
        let parents = [
            Parent(id: Self.composed, name: "one", score: 1), Parent(id: Self.decomposed, name: "two", score: 2),
            Parent(id: "A", name: "three", score: 3), Parent(id: "a", name: "four", score: 4),
        ]
        try bulk.insert(contentsOf: parents)
        for p in parents {
            try plain.execute("INSERT INTO parents(id, name, score) VALUES (\(p.id), \(p.name), \(p.score))")
        }
        let items = (1...30).map { i in
            Item(id: Int64(i), parentId: parents[i % 4].id, code: "c\(i)", qty: i)
        }
        try bulk.insert(contentsOf: items)
        for i in items {
            try plain.execute(
                "INSERT INTO items(id, parentId, code, qty) VALUES (\(i.id), \(i.parentId), \(i.code), \(i.qty))")
        }
        #expect(try Self.dump(bulk) == Self.dump(plain))

        // REPLACE through the UNIQUE name deletes the old parent, whose items cascade.
        let replacing = [
            Parent(id: "B", name: "two", score: 20), Parent(id: Self.composed, name: "one", score: 10),
            Parent(id: "a", name: "five", score: 5),
        ]
        let stored = try bulk.insertAndFetch(contentsOf: replacing, onConflict: .replace)
        for p in replacing {
            try plain.execute("INSERT OR REPLACE INTO parents(id, name, score) VALUES (\(p.id), \(p.name), \(p.score))")
        }
        #expect(stored == replacing)
        #expect(try Self.dump(bulk) == Self.dump(plain))

        // Upsert with the same key twice, keys differing by normalization and case.
        let upserts = [
            Parent(id: Self.decomposed, name: "six", score: 6), Parent(id: "A", name: "seven", score: 7),
            Parent(id: Self.decomposed, name: "eight", score: 8), Parent(id: "C", name: "nine", score: 9),
        ]
        try bulk.upsert(contentsOf: upserts)
        for p in upserts {
            try plain.execute(
                """
                INSERT INTO parents(id, name, score) VALUES (\(p.id), \(p.name), \(p.score))
                ON CONFLICT(id) DO UPDATE SET name = excluded.name, score = excluded.score
                """)
        }
        #expect(try Self.dump(bulk) == Self.dump(plain))

        // Updates of a table without triggers (batched) and of one with (one by one).
        let itemUpdates = try bulk.fetchAll(Item.all().order("id")).map { item in
            var item = item
            item.qty += 100
            item.code = "u" + item.code
            return item
        }
        try bulk.update(contentsOf: itemUpdates)
        for i in itemUpdates {
            try plain.execute(
                "UPDATE items SET parentId = \(i.parentId), code = \(i.code), qty = \(i.qty) WHERE id = \(i.id)")
        }
        let parentUpdates = try bulk.fetchAll(Parent.all().order("id")).map { p in
            Parent(id: p.id, name: p.name + "!", score: p.score + 1)
        }
        try bulk.update(contentsOf: parentUpdates)
        for p in parentUpdates {
            try plain.execute("UPDATE parents SET name = \(p.name), score = \(p.score) WHERE id = \(p.id)")
        }
        #expect(try Self.dump(bulk) == Self.dump(plain))
    }

    @Test func aBatchThatBreaksAForeignKeyOrAUniqueCodeChangesNothing() throws {
        let (bulk, _) = try Self.connections()
        try bulk.insert(contentsOf: [Parent(id: "p", name: "p", score: 1)])
        try bulk.insert(contentsOf: (1...10).map { Item(id: Int64($0), parentId: "p", code: "c\($0)", qty: $0) })
        let before = try Self.dump(bulk)
        var broken = (1...10).map { Item(id: Int64($0), parentId: "p", code: "c\($0)", qty: $0 + 1) }
        broken[7].parentId = "P"
        #expect(throws: SQLiteError.self) { try bulk.update(contentsOf: broken) }
        #expect(try Self.dump(bulk) == before)
        var clash = (1...10).map { Item(id: Int64($0), parentId: "p", code: "d\($0)", qty: $0) }
        clash[9].code = "d1"
        #expect(throws: SQLiteError.self) { try bulk.upsert(contentsOf: clash) }
        #expect(try Self.dump(bulk) == before)
    }
}
