import Foundation
import Testing

@testable import Bindery

/// Authors, their books and their reviews, for the tests of request features (aggregates in
/// expressions, reversed orderings, annotations of expressions, key filters).
///
/// Authors (country): 1 Ana (PT), 2 Bo (SE), 3 Cy (PT), 4 Di (SE).
/// Books (author: pages): Ana 100, 200, NULL; Bo 50; Cy none; Di 300, 10, 20.
/// Reviews (author: stars): Ana 5, 4; Bo 3, 3, 3; Cy 1; Di none.
enum RequestFeatureFixture {
    struct Author: Record, Equatable {
        var id: Int64
        var name: String
        var country: String

        static let books = hasMany(Book.self)
        static let reviews = hasMany(Review.self)
    }

    struct Book: Record, Equatable {
        var id: Int64
        var authorId: Int64?
        var title: String
        var pages: Int?

        static let author = belongsTo(Author.self)
    }

    struct Review: Record, Equatable {
        var id: Int64
        var authorId: Int64
        var stars: Int
    }

    static let schema = """
        CREATE TABLE author (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
        CREATE TABLE book (id INTEGER PRIMARY KEY, authorId INTEGER REFERENCES author(id), title TEXT NOT NULL,
            pages INTEGER);
        CREATE TABLE review (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id),
            stars INTEGER NOT NULL);
        INSERT INTO author VALUES (1, 'Ana', 'PT'), (2, 'Bo', 'SE'), (3, 'Cy', 'PT'), (4, 'Di', 'SE');
        INSERT INTO book VALUES (1, 1, 'Sea', 100), (2, 1, 'Sky', 200), (3, 1, 'Sun', NULL), (4, 2, 'Moss', 50),
            (5, 4, 'Ash', 300), (6, 4, 'Elm', 10), (7, 4, 'Oak', 20);
        INSERT INTO review VALUES (1, 1, 5), (2, 1, 4), (3, 2, 3), (4, 2, 3), (5, 2, 3), (6, 3, 1);
        """

    static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: schema)
        return conn
    }
}
