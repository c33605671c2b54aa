import Foundation
import Testing

@testable import Bindery

/// `matching(_:in:)` joins a search table's matches to the request's rows by rowid (or, for a search
/// table over a table without an `INTEGER PRIMARY KEY`, by key). A search table that indexes another
/// table than the request's paired its matches with whatever rows of the request's table had the same
/// rowids or keys: a note "milk" came back for a search of books for "eggs".
@Suite struct SearchRequestTableTests {
    struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64
        var body: String
    }

    struct Book: Record, Equatable {
        static let tableName = "books"
        var id: Int64
        var title: String
    }

    struct Tag: Record, Equatable {
        static let tableName = "tags"
        var code: String
        var label: String
        static let primaryKey = ["code"]
    }

    struct Word: Record, Equatable {
        static let tableName = "words"
        var code: String
        var text: String
        static let primaryKey = ["code"]
    }

    private static func library() throws -> Connection {
        let conn = try Connection.inMemory(options: Connection.Options(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                CREATE TABLE books(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
                CREATE TABLE tags(code TEXT PRIMARY KEY NOT NULL, label TEXT NOT NULL);
                CREATE TABLE words(code TEXT PRIMARY KEY NOT NULL, text TEXT NOT NULL);
                """)
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["body"])
        try conn.create(searchTable: "books_fts", on: "books", columns: ["title"])
        try conn.create(searchTable: "words_fts", on: "words", columns: ["text"])
        try conn.create(searchTable: "bare_fts", on: "books", columns: ["title"], content: .contentless)
        try conn.execute(
            script: """
                INSERT INTO notes VALUES (1, 'milk'), (2, 'eggs');
                INSERT INTO books VALUES (1, 'eggs benedict'), (2, 'milk and honey');
                INSERT INTO tags VALUES ('a', 'red'), ('b', 'blue');
                INSERT INTO words VALUES ('a', 'eggs'), ('b', 'milk');
                """)
        return conn
    }

    private static func eggs() throws -> SearchPattern {
        try #require(SearchPattern.all("eggs"))
    }

    @Test func aSearchTableOfAnotherTableIsRefusedNotJoinedByRowid() throws {
        let conn = try Self.library()
        #expect(
            throws: SearchTableError.indexesAnotherTable(searchTable: "books_fts", table: "books", requested: "notes")
        ) {
            try conn.fetchAll(Note.all().matching(Self.eggs(), in: "books_fts"))
        }
        #expect(throws: SearchTableError.self) {
            try conn.fetchCount(Note.all().matching(Self.eggs(), in: "books_fts"))
        }
        #expect(throws: SearchTableError.self) {
            try conn.fetchAll(Note.all().matching(Self.eggs(), in: "bare_fts", ranked: false))
        }
    }

    @Test func aKeyedSearchTableOfAnotherTableIsRefusedNotJoinedByKey() throws {
        let conn = try Self.library()
        #expect(
            throws: SearchTableError.indexesAnotherTable(searchTable: "words_fts", table: "words", requested: "tags")
        ) {
            try conn.fetchAll(Tag.all().matching(Self.eggs(), in: "words_fts"))
        }
    }

    @Test func theTablesOwnSearchTablesStillMatch() throws {
        let conn = try Self.library()
        #expect(try conn.fetchAll(Note.all().matching(Self.eggs(), in: "notes_fts")).map(\.id) == [2])
        #expect(try conn.fetchAll(Book.all().matching(Self.eggs(), in: "books_fts")).map(\.id) == [1])
        #expect(try conn.fetchAll(Book.all().matching(Self.eggs(), in: "bare_fts", ranked: false)).map(\.id) == [1])
        #expect(try conn.fetchAll(Word.all().matching(Self.eggs(), in: "words_fts")).map(\.code) == ["a"])
    }
}
