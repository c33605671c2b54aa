import Foundation
import Testing

@testable import Bindery

/// Bad input to requests with associations: no foreign key or several, an association included
/// twice, a nested property whose columns are missing, an ambiguous column, a to-many key of the
/// wrong type, a to-many property of the wrong type. Each throws an error naming it; nothing is
/// decoded wrong.
@Suite struct AssociationErrorTests {
    struct Author: Record, Equatable {
        static let tableName = "authors"
        var id: Int64
        var name: String

        static let posts = hasMany(Post.self)
        static let notes = hasMany(Note.self)
        static let tags = hasMany(Tag.self)
    }

    struct Post: Record, Equatable {
        static let tableName = "posts"
        var id: Int64
        var authorId: Int64
        var editorId: Int64?
        var title: String

        static let author = belongsTo(Author.self)
        static let writer = belongsTo(Author.self, key: "writer", using: ForeignKey(["authorId"]))
    }

    /// A table without a foreign key to authors.
    struct Note: Record {
        static let tableName = "notes"
        var id: Int64
        var authorId: Int64
    }

    /// A key column declared TEXT where the authors' key is INTEGER.
    struct Tag: Record {
        static let tableName = "tags"
        var id: Int64
        var authorId: String
    }

    static func connection() throws -> Connection {
        let conn = try Connection(path: ":memory:")
        try conn.execute(
            script: """
                CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE posts (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors,
                    editorId INTEGER REFERENCES authors (id), title TEXT NOT NULL);
                CREATE TABLE notes (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL);
                CREATE TABLE tags (id INTEGER PRIMARY KEY, authorId TEXT REFERENCES authors (id));
                INSERT INTO authors VALUES (1, 'Ann'), (2, 'Bob');
                INSERT INTO posts VALUES (1, 1, NULL, 'One'), (2, 1, 2, 'Two');
                INSERT INTO notes VALUES (1, 1);
                INSERT INTO tags VALUES (1, '1');
                """)
        return conn
    }

    struct PostInfo: Decodable {
        var post: Post
        var author: Author
    }

    @Test func noForeignKeyNamesBothTables() throws {
        let conn = try Self.connection()
        #expect(throws: AssociationError.noForeignKey(from: "notes", to: "authors")) {
            try conn.fetchAll(Author.including(all: Author.notes))
        }
        #expect(AssociationError.noForeignKey(from: "notes", to: "authors").description.contains(#""notes""#))
    }

    @Test func severalForeignKeysNeedOneGiven() throws {
        let conn = try Self.connection()
        #expect(throws: AssociationError.ambiguousForeignKey(from: "posts", to: "authors", count: 2)) {
            try conn.fetchAll(PostInfo.self, Post.including(required: Post.author))
        }
        // Given, the key is used as it is.
        struct Written: Decodable {
            var post: Post
            var writer: Author
        }
        let rows = try conn.fetchAll(Written.self, Post.including(required: Post.writer).order("\"posts\".id"))
        #expect(rows.map(\.writer.name) == ["Ann", "Ann"])
    }

    @Test func associationIncludedTwiceThrows() throws {
        let conn = try Self.connection()
        #expect(throws: AssociationError.duplicateKey(association: "writer")) {
            try conn.fetchAll(Post.including(required: Post.writer).joining(optional: Post.writer))
        }
        // Another key makes it another alias.
        let twice = Post.including(required: Post.writer).joining(optional: Post.writer.forKey("other"))
        #expect(try conn.fetchAll(twice).count == 2)
    }

    @Test func nestedPropertyWithoutItsColumnsThrowsNamingIt() throws {
        let conn = try Self.connection()
        // The association is declared but not included: no columns for "writer".
        struct Written: Decodable {
            var post: Post
            var writer: Author?
        }
        #expect(throws: RowScopeError.missingColumns(property: "writer", type: "Author", table: "authors")) {
            try conn.fetchAll(Written.self, Post.all())
        }
        // A to-many property whose association is not included.
        struct WithPosts: Decodable {
            var author: Author
            var posts: [Post]
        }
        let error = #expect(throws: DecodingError.self) { try conn.fetchAll(WithPosts.self, Author.all()) }
        #expect("\(String(describing: error))".contains("posts"))
    }

    @Test func ambiguousColumnIsAnErrorNamingIt() throws {
        let conn = try Self.connection()
        let request = Post.including(required: Post.writer).filter("id = \(1)")
        let error = #expect(throws: SQLiteError.self) { try conn.fetchAll(request) }
        #expect(error?.message.contains("ambiguous column name: id") == true)
        // Qualified, it runs.
        #expect(try conn.fetchAll(Post.including(required: Post.writer).filter("\"posts\".id = \(1)")).count == 1)
    }

    @Test func toManyKeyOfAnotherTypeGroupsAsSQLiteMatchesIt() throws {
        // Issue 35 (16): a TEXT key column against INTEGER keys is grouped as SQLite compared them
        // (the tag's '1' matches author 1), no longer an error.
        let conn = try Self.connection()
        struct WithTags: Decodable {
            var author: Author
            var tags: [Tag]
        }
        let rows = try conn.fetchAll(WithTags.self, Author.including(all: Author.tags).order("id"))
        #expect(rows.map { $0.tags.count } == [1, 0])
    }

    @Test func toManyPropertyOfTheWrongTypeThrows() throws {
        let conn = try Self.connection()
        struct Wrong: Decodable {
            var author: Author
            var writer: [Note]
        }
        let request = Author.including(all: Author.hasMany(Post.self, key: "writer", using: ForeignKey(["authorId"])))
        let error = #expect(throws: DecodingError.self) { try conn.fetchAll(Wrong.self, request) }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["writer"])
        #expect(context.debugDescription.contains("[Post]"))
    }

    @Test func givenKeyWhoseSidesDiffer() throws {
        let conn = try Self.connection()
        let bad = Post.belongsTo(Author.self, key: "bad", using: ForeignKey(["authorId", "editorId"]))
        #expect(
            throws: AssociationError.keyMismatch(
                association: "bad", columns: ["authorId", "editorId"], referenced: ["id"])
        ) {
            try conn.fetchAll(Post.all().joining(required: bad))
        }
    }
}
