import Foundation
import Testing

@testable import Bindery

/// SQL text kept as its string literal (``SQLText``) where it meets the other features: joins,
/// lists, `IN` checks, schema literals, reversal, memos, non-ASCII and one-scalar literals.
@Suite struct Hunt37Tests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64
        var a: Int64
        var b: Int64
        var name: String
    }

    static func sql(_ sql: SQL) -> SQL { sql }

    static func items() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, name TEXT)")
        try conn.insert(contentsOf: [
            Item(id: 1, a: 10, b: 20, name: "caf\u{E9}"), Item(id: 2, a: 20, b: 10, name: "cafe\u{301}"),
            Item(id: 3, a: 1, b: 1, name: "x"), Item(id: 4, a: 3, b: 2, name: "\u{E9}"),
        ])
        return conn
    }

    /// The ids SQLite gives for `where` written by hand.
    static func ids(_ conn: Connection, _ condition: String, _ arguments: [SQLiteValue] = []) throws -> [Int64] {
        try conn.rows("SELECT id FROM items WHERE " + condition + " ORDER BY id", arguments: arguments).map {
            try $0[0] as Int64
        }
    }

    @Test func oneScalarSegmentsAroundValues() throws {
        let conn = try Self.items()
        let a: Int64 = 10
        let paren: SQL = "(a = \(a))"
        #expect(paren.text == "(a = ?)")
        #expect(try conn.fetchAll(Item.self, where: paren).map(\.id) == Self.ids(conn, "(a = 10)"))
        let scalarBetween: SQL = "\(a)=a"
        #expect(scalarBetween.text == "?=a")
        let accentBetween: SQL = "name = \("x")\(raw: "")é"
        #expect(accentBetween.text == "name = ?é")
        let accentFirst: SQL = "é\(1)"
        #expect(accentFirst.text == "é?")
        let spaceFirst: SQL = " \(1)"
        #expect(spaceFirst.text == " ?")
        let one: SQL = ")"
        #expect(one.text == ")")
        #expect((one + one).text == "))")
        #expect(("(\(one)" as SQL).text == "()")
        let in1: SQL = "a IN (\(1))"
        #expect(in1.text == "a IN (?)")
    }

    @Test func literalsJoinedWithListsKeepTheirPadsInPlace() throws {
        let conn = try Self.items()
        // A literal with its value's `?` not written yet, then a padded list: the pad's offset counts the `?`.
        let joined: SQL = Self.sql("name <> 'é' AND a = \(Int64(10))") + " OR b IN \(list: [10, 1, 2])"
        #expect(joined.text == "name <> 'é' AND a = ? OR b IN (?, ?, ?, ?)")
        #expect(joined.withoutListPadding.text == "name <> 'é' AND a = ? OR b IN (?, ?, ?)")
        #expect(
            try joined.inlined(encoder: ValueEncoder(options: CodingOptions()))
                == "name <> 'é' AND a = 10 OR b IN (10, 1, 2)")
        #expect(
            try conn.fetchAll(Item.self, where: joined + " ORDER BY id").map(\.id)
                == Self.ids(conn, "name <> 'é' AND a = 10 OR b IN (10, 1, 2)"))
        // The same with the literal embedded.
        let lone: SQL = "a = \(Int64(10))"
        let embedded: SQL = "\(lone) OR b IN \(list: [10, 1, 2])"
        #expect(embedded.withoutListPadding.text == "a = ? OR b IN (?, ?, ?)")
        #expect(try embedded.inlined(encoder: ValueEncoder(options: CodingOptions())) == "a = 10 OR b IN (10, 1, 2)")
        // A value first, then a list.
        let first: SQL = "\(Int64(10))" + " = a OR b IN \(list: [10, 1, 2])"
        #expect(try first.inlined(encoder: ValueEncoder(options: CodingOptions())) == "10 = a OR b IN (10, 1, 2)")
        // Schema CHECK with a joined literal and list.
        let sql = try conn.createTableSQL("t") { t in
            t.column("n", .integer).check(Self.sql("n <> \(5)") + " AND n IN \(list: [1, 2, 3])")
        }
        #expect(sql.contains("CHECK (n <> 5 AND n IN (1, 2, 3))"))
    }

    @Test func valuesAfterINInEmbeddedAndMultiLineLiteralsThrow() throws {
        let conn = try Self.items()
        let head: SQL = "a IN "
        #expect(throws: EncodingError.self) { try conn.fetchAll(Item.self, where: "\(head)\(10)") }
        #expect(throws: EncodingError.self) {
            try conn.fetchAll(
                Item.self,
                where: """
                    a IN
                    \(10)
                    """)
        }
        #expect(throws: EncodingError.self) {
            try conn.fetchAll(Item.self, where: "a IN /* c */ \(10)")
        }
        let some: Int64? = 10
        #expect(throws: EncodingError.self) { try conn.fetchAll(Item.self, where: "a IN \(some)") }
        #expect(throws: EncodingError.self) { try conn.fetchAll(Item.self, where: "\(head)\(some)") }
        let multi: SQL = """
            a = \(Int64(10))
            """
        #expect(multi.text == "a = ?")
        #expect(try conn.fetchAll(Item.self, where: multi).map(\.id) == [1])
    }

    @Test func requestsAlternatingTextsOfTheSameShapeFindTheirOwnRows() throws {
        let conn = try Self.items()
        for round in 0..<3 {
            let v: Int64 = 1
            #expect(
                try conn.fetchOne(Item.filter("name = 'caf\u{E9}' AND a >= \(v)"))?.id == 1, "round \(round)")
            #expect(
                try conn.fetchOne(Item.filter("name = 'cafe\u{301}' AND a >= \(v)"))?.id == 2, "round \(round)")
            #expect(try conn.fetchOne(Item.filter(SQL(text: "name = 'caf\u{E9}' AND a >= ?", values: [v])))?.id == 1)
            #expect(try conn.fetchOne(Item.filter("name = '\u{E9}'"))?.id == 4)
            #expect(try conn.fetchOne(Item.filter("name = 'e\u{301}'")) == nil)
            #expect(try conn.fetchOne(Item.filter(SQL(text: "name = 'e\u{301}'"))) == nil)
            #expect(try conn.fetchOne(Item.filter("name = 'x'"))?.id == 3)
            #expect(try conn.fetchOne(Item.filter("a = \(Int64(3))").order("b"))?.id == 4)
            #expect(try conn.fetchOne(Item.filter("a = \(Int64(3))").order("a"))?.id == 4)
            #expect(try conn.fetchOne(Item.filter("a > \(Int64(0))").order("b"))?.id == 3)
            #expect(try conn.fetchOne(Item.filter("a > \(Int64(0))").order("a"))?.id == 3)
            #expect(try conn.fetchOne(Item.filter("a > \(Int64(0))").order("b DESC"))?.id == 1)
            #expect(try conn.fetchOne(Item.filter("a > \(Int64(0))").order("a DESC"))?.id == 2)
            // Condition calls.
            #expect(try conn.fetchOne(Item.self, where: "name = 'caf\u{E9}'")?.id == 1)
            #expect(try conn.fetchOne(Item.self, where: "name = 'cafe\u{301}'")?.id == 2)
            #expect(try conn.fetchOne(Item.self, where: "name = '\u{E9}'")?.id == 4)
            #expect(try conn.fetchOne(Item.self, where: "name = 'e\u{301}'") == nil)
            #expect(try conn.count(Item.self, where: "name = 'x'") == 1)
        }
    }

    @Test func reversedOrderingsOfLiterals() throws {
        let conn = try Self.items()
        let ordering: SQL = Self.sql("a = \(Int64(10)) DESC") + ", b IN \(list: [1, 2, 3]), id"
        let request = Item.all().order(ordering)
        let forward = try conn.fetchAll(request).map(\.id)
        #expect(
            forward
                == (try conn.rows("SELECT id FROM items ORDER BY a = 10 DESC, b IN (1, 2, 3), id").map {
                    try $0[0] as Int64
                }))
        #expect(try conn.fetchAll(request.reversed()).map(\.id) == forward.reversed())
        let one = Item.all().order("a")
        #expect(try conn.fetchAll(one.reversed()).map(\.id) == [2, 1, 4, 3])
    }

    @Test func descriptionsShowTheText() throws {
        let request = Item.filter("a = \(Int64(10))").filter("b = 1").order("id")
        #expect(request.description.contains("a = ?"))
        #expect(request.description.contains("b = 1"))
        #expect(request.debugDescription.contains("-- arguments: [10]"))
        let sql: SQL = "a = \(Int64(10))"
        #expect(sql.description == "a = ?")
        #expect(sql.debugText == "a = ? -- arguments: [10]")
        var mutated = sql
        _ = mutated.text
        mutated += " AND b = \(2)"
        #expect(mutated.text == "a = ? AND b = ?")
        #expect(sql.text == "a = ?")
    }
}

extension SQL.StringInterpolation {
    /// An app's own interpolation, written with the public `appendLiteral`: `(?)` around a value, its
    /// parentheses literals of one Unicode scalar each.
    fileprivate mutating func appendInterpolation(hunt37Parenthesized value: Int64) {
        appendLiteral("(")
        appendInterpolation(value)
        appendLiteral(")")
    }
}

extension Hunt37Tests {
    @Test func anAppsInterpolationAppendsLiteralsOfOneScalar() throws {
        let conn = try Self.items()
        let sql: SQL = "a = \(hunt37Parenthesized: 10)"
        #expect(sql.text == "a = (?)")
        #expect(try conn.fetchAll(Item.self, where: sql).map(\.id) == [1])
        let first: SQL = "\(hunt37Parenthesized: 10) = a"
        #expect(first.text == "(?) = a")
    }
}

extension Hunt37Tests {
    typealias Author = RequestFeatureFixture.Author
    typealias Book = RequestFeatureFixture.Book

    struct Named: Decodable, Equatable {
        var name: String
        var value: Int?
    }

    @Test func literalsInAssociationsAggregatesAndGroups() throws {
        let conn = try RequestFeatureFixture.connection()
        func names(_ sql: String) throws -> [String] {
            try conn.rows(SQL(text: sql)).map { try $0[0] as String }
        }
        // An association's filter of one literal and a value, in an aggregate.
        let long = Author.books.filter("pages > \(Int64(60))")
        let rows = try conn.fetchAll(
            Named.self, Author.all().select("name").annotated(with: long.count.forKey("value")).order("id"))
        #expect(
            rows.map(\.value)
                == (try conn.rows(
                    "SELECT (SELECT count(*) FROM book WHERE authorId = author.id AND pages > 60) FROM author ORDER BY id"
                ).map { try $0[0] as Int? }))
        // Plain requests with groups and HAVING of literals, made again alternating their texts.
        for _ in 0..<2 {
            #expect(
                try conn.fetchAll(Book.all().group("authorId").having("count(*) >= \(Int64(3))").order("authorId"))
                    .map(\.authorId) == [1, 4])
            #expect(
                try conn.fetchAll(Book.all().group("authorId").having("count(*) <= \(Int64(3))").order("authorId"))
                    .map(\.authorId) == [1, 2, 4])
            #expect(
                try conn.fetchOne(Book.all().group("authorId").having("count(*) <= \(Int64(1))").order("authorId"))?
                    .authorId == 2)
            #expect(
                try conn.fetchOne(Book.all().group("authorId").having("count(*) >= \(Int64(1))").order("authorId"))?
                    .authorId == 1)
        }
        #expect(try names("SELECT name FROM author WHERE country = 'PT' ORDER BY id") == ["Ana", "Cy"])
        #expect(try conn.fetchAll(Author.filter("country = \("PT")").order("id")).map(\.name) == ["Ana", "Cy"])
        #expect(try conn.fetchAll(Author.filter("country = 'PT'").order("id").reversed()).map(\.name) == ["Cy", "Ana"])
    }
}
