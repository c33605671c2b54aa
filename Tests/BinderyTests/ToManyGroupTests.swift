import CSQLite
import Foundation
import Testing

@testable import Bindery

/// To-many records collected for the whole statement and moved into their parents' groups at the end
/// (issue 39): each group holds exactly its rows, in the order SQLite returned them, whatever the
/// interleaving, the number of statements, a fallback to the join after some rows, or a row that throws.
@Suite struct ToManyGroupTests {
    struct Shelf: Record, Equatable {
        static let tableName = "shelves"
        var id: Int64
        static let books = hasMany(Book.self)
        static let booksByTitle = hasMany(Book.self, key: "books").order("\(Column("title", table: "books"))")
    }

    struct Book: Record, Equatable {
        static let tableName = "books"
        var id: Int64
        var shelfId: Int64
        var title: String
    }

    struct ShelfBooks: Decodable, Equatable {
        var shelf: Shelf
        var books: [Book]
    }

    static func library(shelves: Int, booksPerShelf: Int) throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE shelves(id INTEGER PRIMARY KEY);
                CREATE TABLE books(id INTEGER PRIMARY KEY, shelfId INTEGER NOT NULL REFERENCES shelves(id), title TEXT);
                """)
        try conn.transaction { conn in
            try conn.insert(contentsOf: (1...shelves).map { Shelf(id: Int64($0)) })
            // Interleaved: book n is on shelf n % shelves + 1, with titles in the reverse order of ids.
            let count = shelves * booksPerShelf
            try conn.insert(
                contentsOf: (1...count).map {
                    Book(id: Int64($0), shelfId: Int64($0 % shelves + 1), title: String(format: "t%06d", count - $0))
                })
        }
        return conn
    }

    /// Each shelf's books as SQL written by hand returns them.
    static func expected(_ conn: Connection, ordered: Bool) throws -> [ShelfBooks] {
        try conn.fetchAll(Shelf.self, sql: "SELECT * FROM shelves ORDER BY id").map { shelf in
            let order: SQL = ordered ? "ORDER BY title" : "ORDER BY id"
            let books = try conn.fetchAll(Book.self, sql: "SELECT * FROM books WHERE shelfId = \(shelf.id) \(order)")
            return ShelfBooks(shelf: shelf, books: books)
        }
    }

    @Test func interleavedRowsGoToTheirGroupsInOrder() throws {
        let conn = try Self.library(shelves: 7, booksPerShelf: 30)
        let plain = try conn.fetchAll(ShelfBooks.self, Shelf.including(all: Shelf.books).order("id"))
        // Without an ORDER BY, SQLite scans the books table in rowid order: each group in that order.
        #expect(plain == (try Self.expected(conn, ordered: false)))
        let ordered = try conn.fetchAll(ShelfBooks.self, Shelf.including(all: Shelf.booksByTitle).order("id"))
        #expect(ordered == (try Self.expected(conn, ordered: true)))
        #expect(ordered.allSatisfy { $0.books.count == 30 })
    }

    @Test func manyParentsOverSeveralStatements() throws {
        // 2,500 shelves: their keys take three statements of at most 999 values.
        let conn = try Self.library(shelves: 2_500, booksPerShelf: 3)
        let shelves = try conn.fetchAll(ShelfBooks.self, Shelf.including(all: Shelf.books).order("id"))
        #expect(shelves.count == 2_500)
        #expect(shelves == (try Self.expected(conn, ordered: false)))
        // A parent without children gets an empty group, not another parent's.
        try conn.execute("DELETE FROM books WHERE shelfId = 1200")
        let after = try conn.fetchAll(ShelfBooks.self, Shelf.including(all: Shelf.books).order("id"))
        #expect(after[1_199].books.isEmpty)
        #expect(after == (try Self.expected(conn, ordered: false)))
    }

    struct Crate: Record {
        static let tableName = "crates"
        var id: String
        static let items = hasMany(Item.self)
    }

    /// Only the key: the key column holds text and integers, which no one Swift type reads.
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64
    }

    struct CrateItems: Decodable {
        var crate: Crate
        var items: [Item]
    }

    @Test func fallbackAfterSomeRowsKeepsNoRowTwice() throws {
        // Text keys; the item's key column has INTEGER affinity, so that '1' is stored as the integer 1,
        // which `IN ('x', '1')` matches but an exact comparison does not: the grouping by value stops
        // after the first row (which it had grouped) and the join runs instead.
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                PRAGMA foreign_keys = OFF;
                CREATE TABLE crates(id TEXT PRIMARY KEY);
                CREATE TABLE items(id INTEGER PRIMARY KEY, crateId INTEGER REFERENCES crates(id));
                INSERT INTO crates VALUES ('x'), ('1');
                INSERT INTO items VALUES (1, 'x'), (2, '1'), (3, 'x'), (4, 'y');
                """)
        let crates = try conn.fetchAll(CrateItems.self, Crate.including(all: Crate.items).order("id"))
        #expect(crates.map(\.crate.id) == ["1", "x"])
        #expect(crates.map { $0.items.map(\.id) } == [[2], [1, 3]])
    }

    @Test func fallbackAfterWholeStatementsKeepsNoRowTwice() throws {
        // One key a statement: the statements before the one of '1' (in the order of a set of keys)
        // fill their groups, then the grouping by value stops and the join runs for every key.
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                PRAGMA foreign_keys = OFF;
                CREATE TABLE crates(id TEXT PRIMARY KEY);
                CREATE TABLE items(id INTEGER PRIMARY KEY, crateId INTEGER REFERENCES crates(id));
                INSERT INTO crates VALUES ('a'), ('b'), ('c'), ('d'), ('e'), ('f'), ('g'), ('h'), ('1');
                INSERT INTO items VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e'), (6, 'f'), (7, 'g'),
                    (8, 'h'), (9, '1'), (10, 'a');
                """)
        let expected: [[Int64]] = [[9], [1, 10], [2], [3], [4], [5], [6], [7], [8]]
        // Once with every key in one statement (which the schema's look-ups, made on the first call,
        // need too), then one key a statement.
        let whole = try conn.fetchAll(CrateItems.self, Crate.including(all: Crate.items).order("id"))
        #expect(whole.map { $0.items.map(\.id) } == expected)
        sqlite3_limit(conn.handle, SQLITE_LIMIT_VARIABLE_NUMBER, 1)
        for _ in 0..<8 {
            let crates = try conn.fetchAll(CrateItems.self, Crate.including(all: Crate.items).order("id"))
            #expect(crates.map { $0.items.map(\.id) } == expected)
        }
    }

    struct StrictBook: Record, Equatable {
        static let tableName = "books"
        var id: Int64
        var shelfId: Int64
        var title: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int64.self, forKey: .id)
            shelfId = try container.decode(Int64.self, forKey: .shelfId)
            title = try container.decode(String.self, forKey: .title)
            if title == "refused" {
                throw DecodingError.dataCorrupted(.init(codingPath: [CodingKeys.title], debugDescription: "refused"))
            }
        }
    }

    struct StrictShelf: Record {
        static let tableName = "shelves"
        var id: Int64
        static let books = hasMany(StrictBook.self, key: "books")
    }

    struct StrictShelfBooks: Decodable {
        var shelf: StrictShelf
        var books: [StrictBook]
    }

    @Test func aRowThatThrowsLeavesNothingBehind() throws {
        let conn = try Self.library(shelves: 4, booksPerShelf: 5)
        try conn.execute("UPDATE books SET title = 'refused' WHERE id = 11")
        #expect(throws: DecodingError.self) {
            try conn.fetchAll(StrictShelfBooks.self, StrictShelf.including(all: StrictShelf.books))
        }
        // The same request again, once the row decodes: every group whole, nothing left from the throw.
        try conn.execute("UPDATE books SET title = 'kept' WHERE id = 11")
        let shelves = try conn.fetchAll(
            StrictShelfBooks.self, StrictShelf.including(all: StrictShelf.books).order("id"))
        #expect(
            shelves.map { $0.books.map(\.id) } == (try Self.expected(conn, ordered: false)).map { $0.books.map(\.id) })
        #expect(shelves.allSatisfy { $0.books.count == 5 })
    }
}
