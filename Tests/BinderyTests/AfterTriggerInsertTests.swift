import Foundation
import Testing

@testable import Bindery

/// `RETURNING *` reports the row from before the table's AFTER triggers ran: `insert`, `insertAndFetch`,
/// `insertOrIgnoreAndFetch` and `upsert` read the row back when a trigger changed anything, so that what
/// they return is the row as stored. A statement no trigger changed anything in is not followed by
/// another one.
@Suite struct AfterTriggerInsertTests {
    struct Book: Record, Equatable {
        static let tableName = "book"
        var id: Int64?
        var title: String
        var slug: String?
    }

    /// A table without a rowid, keyed by text.
    struct Tag: Record, Equatable {
        static let tableName = "tag"
        static let primaryKey = ["name"]
        var name: String
        var uses: Int?
    }

    static let schema = """
        CREATE TABLE book (id INTEGER PRIMARY KEY, title TEXT NOT NULL, slug TEXT);
        CREATE TRIGGER book_slug AFTER INSERT ON book BEGIN
            UPDATE book SET slug = lower(new.title) WHERE id = new.id;
        END;
        CREATE TRIGGER book_reslug AFTER UPDATE OF title ON book BEGIN
            UPDATE book SET slug = lower(new.title) || '-' || new.id WHERE id = new.id;
        END;
        CREATE TABLE tag (name TEXT PRIMARY KEY, uses INTEGER) WITHOUT ROWID;
        CREATE TRIGGER tag_uses AFTER INSERT ON tag BEGIN
            UPDATE tag SET uses = coalesce(new.uses, 0) + 1 WHERE name = new.name;
        END;
        CREATE TABLE plain (id INTEGER PRIMARY KEY, made TEXT NOT NULL DEFAULT 'now', note TEXT);
        CREATE TABLE log (what TEXT);
        """

    func stored(_ conn: Connection) throws -> [Book] {
        try conn.fetchAll(Book.self, sql: "SELECT * FROM book ORDER BY id")
    }

    @Test func insertReturnsWhatTheTriggerStored() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        let saved = try conn.insert(Book(id: nil, title: "Dune", slug: nil))
        #expect(saved == Book(id: 1, title: "Dune", slug: "dune"))
        #expect(try stored(conn) == [saved])
        // Inside a transaction, and a second time (the statement cached).
        try conn.transaction(.immediate) { conn in
            let second = try conn.insert(Book(id: nil, title: "Emma", slug: "x"))
            #expect(second == Book(id: 2, title: "Emma", slug: "emma"))
        }
        #expect(try stored(conn).map(\.slug) == ["dune", "emma"])
    }

    @Test func insertAndFetchReturnWhatTheTriggerStored() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        let saved = try conn.insertAndFetch(contentsOf: [
            Book(id: nil, title: "A", slug: nil), Book(id: nil, title: "B", slug: "b?"),
        ])
        #expect(saved == [Book(id: 1, title: "A", slug: "a"), Book(id: 2, title: "B", slug: "b")])
        #expect(try stored(conn) == saved)
        let ignored = try conn.insertOrIgnoreAndFetch(contentsOf: [
            Book(id: 1, title: "again", slug: nil), Book(id: nil, title: "C", slug: nil),
        ])
        #expect(ignored == [nil, Book(id: 3, title: "C", slug: "c")])
    }

    @Test func upsertReturnsWhatTheTriggersStored() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        let inserted = try conn.upsert(Book(id: 5, title: "Ulysses", slug: nil))
        #expect(inserted == Book(id: 5, title: "Ulysses", slug: "ulysses"))
        // The conflict updates the row: the AFTER UPDATE trigger runs.
        let updated = try conn.upsert(Book(id: 5, title: "Odyssey", slug: nil))
        #expect(updated == Book(id: 5, title: "Odyssey", slug: "odyssey-5"))
        #expect(try stored(conn) == [updated])
    }

    @Test func aTableWithoutRowidIsReadBackByKey() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        #expect(try conn.insert(Tag(name: "sf", uses: nil)) == Tag(name: "sf", uses: 1))
        #expect(try conn.insert(Tag(name: "fantasy", uses: 4)) == Tag(name: "fantasy", uses: 5))
        #expect(try conn.upsert(Tag(name: "horror", uses: 1)) == Tag(name: "horror", uses: 2))
        #expect(try conn.fetchAll(Tag.self, sql: "SELECT * FROM tag ORDER BY name").map(\.uses) == [5, 2, 1])
    }

    @Test func throughTheDatabase() async throws {
        let db = try Database.inMemory()
        try await db.write { try $0.execute(script: Self.schema) }
        #expect(try await db.insert(Book(id: nil, title: "Kim", slug: nil)) == Book(id: 1, title: "Kim", slug: "kim"))
        #expect(try await db.upsert(Book(id: 1, title: "Kim", slug: nil)).slug == "kim-1")
    }

    /// The SQL of each statement a connection starts during `body`.
    func statements(_ conn: Connection, _ body: () throws -> Void) throws -> [String] {
        try StatementLog.statements(conn, body)
    }

    struct Plain: Record, Equatable {
        static let tableName = "plain"
        var id: Int64?
        var made: String?
        var note: String?
    }

    /// A `RETURNING *` insert into a table no trigger changes runs one statement, as before.
    @Test func noTriggerNoSecondStatement() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        try conn.transaction(.immediate) { conn in
            try conn.insert(Plain(id: nil, made: nil, note: "warm"))
            var inserted: Plain?
            var upserted: Plain?
            let run = try statements(conn) { () throws -> Void in
                inserted = try conn.insert(Plain(id: nil, made: nil, note: "x"))
                upserted = try conn.upsert(Plain(id: 2, made: "then", note: "y"))
            }
            #expect(inserted == Plain(id: 2, made: "now", note: "x"))
            #expect(upserted == Plain(id: 2, made: "then", note: "y"))
            #expect(run.count == 2, "\(run)")
            #expect(run.allSatisfy { $0.hasPrefix("INSERT") }, "\(run)")
        }
    }

    /// A trigger that writes another table only: the row is read back (the trigger changed something),
    /// and is what RETURNING said.
    @Test func aTriggerOnAnotherTable() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        try conn.execute(
            script: "CREATE TRIGGER plain_log AFTER INSERT ON plain BEGIN INSERT INTO log VALUES (new.note); END")
        #expect(try conn.insert(Plain(id: nil, made: nil, note: "x")) == Plain(id: 1, made: "now", note: "x"))
        #expect(try conn.fetchAll(String.self, sql: "SELECT what FROM log") == ["x"])
    }

    /// An AFTER trigger that deletes the row it was fired for: the row RETURNING reported comes back.
    @Test func aTriggerThatDeletesTheRow() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        try conn.execute(
            script: "CREATE TRIGGER plain_gone AFTER INSERT ON plain BEGIN DELETE FROM plain WHERE id = new.id; END")
        #expect(try conn.insert(Plain(id: nil, made: nil, note: "x")) == Plain(id: 1, made: "now", note: "x"))
        #expect(try conn.fetchAll(Plain.self, sql: "SELECT * FROM plain").isEmpty)
    }
}
