import Foundation
import Testing

@testable import Bindery

/// The calls that take a condition the caller wrote (`exists(_:where:)`, `count(_:where:)`,
/// `fetchOne(_:where:)`, `delete(_:where:)`) and a plain request's `fetchOne`, which keep the text of
/// their last statement (``WrappingMemo``, ``RequestMemo``): called again and again with the same
/// condition and new values, with conditions that change, on two record types, and with values that
/// fail, each answer is the one the SQL written out by hand gives.
@Suite struct ConditionCallTests {
    struct Book: Record, Equatable {
        static let tableName = "books"
        var id: Int64
        var title: String
        var year: Int
    }

    /// A second record type on another table, with the same column names.
    struct Film: Record, Equatable {
        static let tableName = "films"
        var id: Int64
        var title: String
        var year: Int
    }

    static func library() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER NOT NULL);
                CREATE TABLE films (id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER NOT NULL);
                """)
        try conn.insert(contentsOf: (1...40).map { Book(id: Int64($0), title: "book \($0)", year: 1980 + $0 % 7) })
        try conn.insert(contentsOf: (1...20).map { Film(id: Int64($0), title: "film \($0)", year: 1990 + $0 % 5) })
        return conn
    }

    /// The rows of `sql` as `Book`s, the answer each call is checked against.
    static func books(_ conn: Connection, _ sql: String) throws -> [Book] {
        try conn.fetchAll(Book.self, sql: SQL(text: sql))
    }

    @Test func theSameConditionWithNewValuesAnswersEachTime() throws {
        let conn = try Self.library()
        for id in [3, 0, 41, 17, 3, -1] {
            let expected = try Self.books(conn, "SELECT * FROM books WHERE id = \(id)")
            #expect(try conn.exists(Book.self, where: "id = \(id)") == !expected.isEmpty)
            #expect(try conn.count(Book.self, where: "id = \(id)") == expected.count)
            #expect(try conn.fetchOne(Book.self, where: "id = \(id)") == expected.first)
            #expect(try conn.fetchOne(Book.all().filter("id = \(id)")) == expected.first)
        }
        for year in 1980...1987 {
            let expected = try Self.books(conn, "SELECT * FROM books WHERE year = \(year) ORDER BY id")
            #expect(try conn.count(Book.self, where: "year = \(year)") == expected.count)
            #expect(try conn.fetchOne(Book.self, where: "year = \(year)")?.year == expected.first?.year)
            #expect(try conn.fetchOne(Book.all().filter("year = \(year)").order("id DESC")) == expected.last)
        }
    }

    @Test func conditionsThatChangeFromCallToCallAreNotMixedUp() throws {
        let conn = try Self.library()
        let conditions: [(SQL, String)] = [
            ("id = \(5)", "id = 5"),
            ("year = \(1983)", "year = 1983"),
            ("id = \(5)", "id = 5"),
            ("id > \(35)", "id > 35"),
            ("title = \("book 9")", "title = 'book 9'"),
            ("id IN \(list: [1, 2, 3])", "id IN (1, 2, 3)"),
            ("id IN \(list: [4, 5, 6, 7, 8])", "id IN (4, 5, 6, 7, 8)"),
            ("id IN \(list: [9])", "id IN (9)"),
            ("id IN (\(10), \(11))", "id IN (10, 11)"),
            ("id > \(35)", "id > 35"),
        ]
        for (condition, written) in conditions {
            let expected = try Self.books(conn, "SELECT * FROM books WHERE \(written) ORDER BY id")
            #expect(try conn.exists(Book.self, where: condition) == !expected.isEmpty, "\(written)")
            #expect(try conn.count(Book.self, where: condition) == expected.count, "\(written)")
            let one = try conn.fetchOne(Book.self, where: condition)
            #expect(one.map { expected.contains($0) } ?? expected.isEmpty, "\(written)")
            let first = try conn.fetchOne(Book.all().filter(condition).order("id"))
            #expect(first == expected.first, "\(written)")
        }
    }

    @Test func twoRecordTypesWithTheSameConditionReadTheirOwnTables() throws {
        let conn = try Self.library()
        for id in [2, 25, 7] {
            let book = try conn.fetchOne(Book.self, where: "id = \(id)")
            let film = try conn.fetchOne(Film.self, where: "id = \(id)")
            #expect(book == (id <= 40 ? Book(id: Int64(id), title: "book \(id)", year: 1980 + id % 7) : nil))
            #expect(film == (id <= 20 ? Film(id: Int64(id), title: "film \(id)", year: 1990 + id % 5) : nil))
            #expect(try conn.fetchOne(Book.all().filter("id = \(id)"))?.title == book?.title)
            #expect(try conn.fetchOne(Film.all().filter("id = \(id)"))?.title == film?.title)
            #expect(try conn.count(Book.self, where: "id <= \(id)") == min(id, 40))
            #expect(try conn.count(Film.self, where: "id <= \(id)") == min(id, 20))
            #expect(try conn.exists(Film.self, where: "id = \(id)") == (id <= 20))
        }
    }

    @Test func aRequestOfOneConditionRunsTheRequestsOwnSQL() throws {
        let conn = try Self.library()
        // The statement kept for a request of one condition is the request's own SQL with `LIMIT 1`.
        let condition: SQL = "year = \(1983)"
        let kept = conn.recordContext.state(for: Book.self).whereCalls.requestOne(around: condition)
        #expect(kept == Book.all().filter(condition).limit(1).description)
        #expect(kept == #"SELECT "books".* FROM "books" WHERE year = ? LIMIT 1"#)
        // Alternating with fetchOne(_:where:) of the same condition, with requests of more parts, and
        // with a list bound after IN (a value that binds itself), each answers as the SQL written out.
        for _ in 0..<2 {
            for id in [7, 40, 0] {
                let expected = try Self.books(conn, "SELECT * FROM books WHERE id = \(id)").first
                #expect(try conn.fetchOne(Book.filter("id = \(id)")) == expected)
                #expect(try conn.fetchOne(Book.self, where: "id = \(id)") == expected)
                #expect(try conn.fetchOne(Book.filter("id = \(id)").filter("year > \(0)")) == expected)
                #expect(try conn.fetchOne(Book.filter("id IN \(list: [id, 1000])")) == expected)
            }
        }
        #expect(throws: EncodingError.self) { try conn.fetchOne(Book.filter("id IN \([1, 2])")) }
    }

    @Test func requestsThatDifferOnlyInTheirPartsGetTheirOwnText() throws {
        let conn = try Self.library()
        // The same texts split differently between filters, orderings, limit and offset: each must run
        // its own statement, in any order, again and again.
        let requests: [(QueryRequest<Book>, String)] = [
            (Book.all().filter("year = \(1983)").order("id"), "WHERE year = 1983 ORDER BY id LIMIT 1"),
            (Book.all().filter("year = \(1983)").order("id DESC"), "WHERE year = 1983 ORDER BY id DESC LIMIT 1"),
            (
                Book.all().filter("year = \(1983)").filter("id > \(10)").order("id"),
                "WHERE year = 1983 AND id > 10 ORDER BY id LIMIT 1"
            ),
            (
                Book.all().filter("year = \(1983) AND id > \(10)").order("id"),
                "WHERE year = 1983 AND id > 10 ORDER BY id LIMIT 1"
            ),
            (
                Book.all().filter("year = \(1983)").order("id").limit(1, offset: 2),
                "WHERE year = 1983 ORDER BY id LIMIT 1 OFFSET 2"
            ),
            (
                Book.all().filter("year = \(1983)").order("id").limit(3, offset: 1),
                "WHERE year = 1983 ORDER BY id LIMIT 3 OFFSET 1"
            ),
            (Book.all().order("id").limit(5, offset: 4), "ORDER BY id LIMIT 5 OFFSET 4"),
            (Book.all().order("id"), "ORDER BY id LIMIT 1"),
            (Book.all().filter("year = \(1984)").order("id").distinct(), "WHERE year = 1984 ORDER BY id LIMIT 1"),
            (Book.all().select("id, title, \(2000) AS year").filter("id = \(6)"), "WHERE id = 6 LIMIT 1"),
        ]
        for _ in 0..<2 {
            for (request, written) in requests {
                var expected = try Self.books(conn, "SELECT * FROM books \(written)").first
                if written == "WHERE id = 6 LIMIT 1" {
                    expected?.year = 2000
                }
                #expect(try conn.fetchOne(request) == expected, "\(written)")
            }
        }
    }

    @Test func aGroupedRequestBindsItsValuesInOrder() throws {
        struct Year: Decodable, Equatable {
            var year: Int
            var books: Int
        }
        let conn = try Self.library()
        for (least, above) in [(6, 1980), (5, 1982), (6, 1980), (1, 1990)] {
            let request = Book.all().select("year AS id, \("t") AS title, count(*) AS year")
                .filter("year > \(above)").group("books.year").having("count(*) >= \(least)").order("books.year")
            let expected = try conn.fetchOne(
                Int.self,
                sql: """
                    SELECT year FROM books WHERE year > \(above) GROUP BY year HAVING count(*) >= \(least)
                    ORDER BY year LIMIT 1
                    """)
            let got = try conn.fetchOne(request)
            #expect(got?.id == expected.map(Int64.init), "\(least), \(above): \(String(describing: got)) \(request)")
        }
    }

    @Test func laterConditionsAndOrderingsBindTheirValuesInOrder() throws {
        // A selection, three conditions and an ordering, each with a value (the selection, the conditions
        // after the first and the orderings are kept apart from the first condition): bound in the order
        // of their placeholders, the same request made again with new values each time.
        let conn = try Self.library()
        for (prefix, above, below, skipped, pivot) in [
            ("a ", 1980, 1986, 3, 1984), ("b ", 1981, 1987, 5, 1982), ("a ", 1980, 1986, 3, 1984),
        ] {
            let request = Book.all().select("id, \(prefix) || title AS title, year")
                .filter("year > \(above)").filter("year < \(below)").filter("id != \(skipped)")
                .order("abs(year - \(pivot)), id")
            let written = """
                SELECT id, '\(prefix)' || title AS title, year FROM books
                WHERE year > \(above) AND year < \(below) AND id != \(skipped) ORDER BY abs(year - \(pivot)), id
                """
            let expected = try Self.books(conn, written)
            #expect(expected.count > 10)
            #expect(try conn.fetchOne(request) == expected.first, "\(request)")
            #expect(try conn.fetchAll(request) == expected, "\(request)")
            #expect(try conn.fetchCount(request) == expected.count)
        }
    }

    @Test func deleteWithTheSameConditionDeletesEachTime() throws {
        let conn = try Self.library()
        var left = 40
        for id in [4, 4, 9, 40, 41, 9, 1] {
            let deleted = try conn.delete(Book.self, where: "id = \(id)")
            let wasThere = deleted == 1
            left -= deleted
            #expect(try conn.count(Book.self) == left)
            #expect(try conn.exists(Book.self, where: "id = \(id)") == false)
            #expect(wasThere == [4, 9, 40, 1].contains(id) || !wasThere)
        }
        #expect(left == 36)
        #expect(try conn.count(Film.self) == 20)
    }

    @Test func aWrongConditionThrowsNamingTheStatementAndValues() throws {
        let conn = try Self.library()
        #expect(try conn.count(Book.self, where: "id = \(1)") == 1)
        do {
            _ = try conn.count(Book.self, where: "pages = \(1)")
            Issue.record("no error for an unknown column")
        } catch let error as SQLiteError {
            #expect(error.message.contains("pages"))
            #expect(error.sql == "SELECT count(*) FROM \"books\" WHERE pages = ?")
        }
        // A value count that does not match the placeholders: the statement's own error.
        let twoPlaceholders = SQL(text: "id = ? AND year = ?", values: [1])
        for call in 0..<4 {
            do {
                switch call {
                case 0: _ = try conn.exists(Book.self, where: twoPlaceholders)
                case 1: _ = try conn.count(Book.self, where: twoPlaceholders)
                case 2: _ = try conn.fetchOne(Book.self, where: twoPlaceholders)
                default: _ = try conn.fetchOne(Book.all().filter(twoPlaceholders))
                }
                Issue.record("no error for one value and two placeholders (call \(call))")
            } catch let error as SQLiteError {
                #expect(error.code == .range, "call \(call)")
            }
        }
        // A value that cannot be stored: an error, and the next call with a good value answers.
        #expect(throws: EncodingError.self) { try conn.exists(Book.self, where: "year = \(Double.nan)") }
        #expect(throws: EncodingError.self) { try conn.fetchOne(Book.all().filter("year = \(Double.nan)")) }
        #expect(try conn.exists(Book.self, where: "year = \(Double(1983))"))
        #expect(try conn.fetchOne(Book.all().filter("year = \(Double(1983))"))?.year == 1983)
        // An array inside IN's parentheses throws when bound, on the general path.
        #expect(throws: EncodingError.self) { try conn.fetchOne(Book.all().filter("id IN (\([5, 6]))")) }
        #expect(try conn.fetchOne(Book.all().filter("id IN (\(5))"))?.id == 5)
    }

    @Test func aValueRightAfterINThrowsTheSameErrorFromEveryCall() throws {
        // The value is converted before the statement is prepared, in every call that keeps its text:
        // the error says to write `IN \(list:)`, not SQLite's syntax error at `IN ?`.
        let conn = try Self.library()
        let id = 5
        let calls: [(String, () throws -> Void)] = [
            ("exists", { _ = try conn.exists(Book.self, where: "id IN \(id)") }),
            ("count", { _ = try conn.count(Book.self, where: "id IN \(id)") }),
            ("fetchOne", { _ = try conn.fetchOne(Book.self, where: "id IN \(id)") }),
            ("fetchAll", { _ = try conn.fetchAll(Book.self, where: "id IN \(id)") }),
            ("delete", { _ = try conn.delete(Book.self, where: "id IN \(id)") }),
        ]
        for (name, call) in calls {
            #expect(throws: EncodingError.self, "\(name)") { try call() }
        }
        #expect(try conn.count(Book.self) == 40)
    }

    @Test func aSchemaChangeBetweenCallsIsSeen() throws {
        let conn = try Self.library()
        #expect(try conn.fetchOne(Book.all().filter("id = \(3)"))?.title == "book 3")
        try conn.execute(
            script: "UPDATE books SET title = 'renamed' WHERE id = 3; CREATE INDEX books_year ON books(year)")
        #expect(try conn.fetchOne(Book.all().filter("id = \(3)"))?.title == "renamed")
        try conn.execute(
            script: "DROP TABLE films; CREATE TABLE films (id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
        #expect(try conn.fetchOne(Film.self, where: "id = \(3)") == nil)
        #expect(try conn.count(Film.self, where: "id = \(3)") == 0)
    }

    /// A record whose `init(from:)` runs the same calls on its own type, with other values: the outer
    /// call's statement text and record are its own.
    struct Nested: Record, Equatable {
        static let tableName = "books"
        var id: Int64
        var title: String
        var year: Int

        enum CodingKeys: String, CodingKey { case id, title, year }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int64.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            year = try container.decode(Int.self, forKey: .year)
            if id == 10, let conn = Self.connection {
                let other = try conn.fetchOne(Nested.all().filter("id = \(11)").order("year"))
                let again = try conn.fetchOne(Nested.self, where: "id = \(12)")
                title += " + " + (other?.title ?? "none") + " + " + (again?.title ?? "none")
            }
        }

        /// The connection the test runs on; only `aCallInsideInitFromRunsItsOwnStatement` sets it, and
        /// reads it on its own thread.
        nonisolated(unsafe) static var connection: Connection?
    }

    @Test func aCallInsideInitFromRunsItsOwnStatement() throws {
        let conn = try Self.library()
        Nested.connection = conn
        defer { Nested.connection = nil }
        #expect(
            try conn.fetchOne(Nested.all().filter("id = \(10)").order("year"))?.title == "book 10 + book 11 + book 12")
        #expect(try conn.fetchOne(Nested.self, where: "id = \(10)")?.title == "book 10 + book 11 + book 12")
        #expect(try conn.fetchOne(Nested.all().filter("id = \(11)").order("year"))?.title == "book 11")
    }
}
