import Foundation
import Testing

@testable import Bindery

/// Requests whose selection, later conditions and orderings live in their extras (``RequestExtras``),
/// and lists whose pads live in the built text (``SQLText``), where they meet the other features:
/// each result compared with the same query written by hand.
@Suite struct Hunt38Tests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64
        var a: Int64
        var b: Int64
        var name: String

        enum CodingKeys: String, CodingKey {
            case id, a, b, name
        }
    }

    struct Odd: Record, Equatable {
        static let tableName = "odd"
        var id: Int64
        var desc: Int64?
        var name: String
    }

    struct Group: Decodable, Equatable {
        var b: Int64
        var n: Int64
        var s: Int64
    }

    struct Author: Record, Equatable {
        static let tableName = "authors"
        var id: Int64
        var name: String

        static let posts = hasMany(Post.self)
    }

    struct Post: Record, Equatable {
        static let tableName = "posts"
        var id: Int64
        var authorId: Int64
        var score: Int64
        var title: String

        static let author = belongsTo(Author.self)
    }

    struct PostInfo: Decodable, Equatable {
        var post: Post
        var author: Author
    }

    struct AuthorCount: Decodable, Equatable {
        var author: Author
        var n: Int64
    }

    struct AuthorInfo: Decodable, Equatable {
        var author: Author
        var posts: [Post]
    }

    struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64?
        var title: String
        var body: String
    }

    static func items() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, name TEXT)")
        let names = ["x", "y", "z"]
        try conn.insert(
            contentsOf: (1...12).map { id in
                Item(id: id, a: (id * 7) % 5, b: (id * 3) % 4, name: names[Int(id % 3)])
            })
        return conn
    }

    static func authors() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE posts (id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES authors,
                    score INTEGER NOT NULL, title TEXT NOT NULL);
                INSERT INTO authors VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cid'), (4, 'Dee');
                INSERT INTO posts VALUES (1, 1, 5, 'p1'), (2, 1, 3, 'p2'), (3, 2, 9, 'p3'), (4, 2, 1, 'p4'),
                    (5, 3, 4, 'p5'), (6, 3, 7, 'p6'), (7, 3, 2, 'p7'), (8, 4, 6, 'p8');
                """)
        return conn
    }

    static func notes() throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.createTable(for: Note.self)
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"])
        for (title, body) in [
            ("other", "swift swift"), ("swift", "other"), ("nothing", "here"), ("swift old", "archived swift"),
            ("more", "swift text"), ("swift swift swift", "swift"), ("last", "rust and swift"),
        ] {
            try conn.insert(Note(id: nil, title: title, body: body))
        }
        return conn
    }

    static func hand(_ conn: Connection, _ sql: String) throws -> [Item] {
        try conn.fetchAll(Item.self, sql: SQL(text: sql))
    }

    static func count(_ conn: Connection, _ sql: String) throws -> Int {
        try conn.fetchOne(Int.self, sql: SQL(text: "SELECT count(*) FROM (" + sql + ")")) ?? -1
    }

    static func ids(_ conn: Connection) throws -> [Int64] {
        try conn.fetchAll(Int64.self, sql: "SELECT id FROM items ORDER BY id")
    }

    static func rows(_ conn: Connection) throws -> [Item] {
        try conn.fetchAll(Item.self, sql: "SELECT * FROM items ORDER BY id")
    }

    static func listText(_ values: [Int64]) -> String {
        values.map(String.init).joined(separator: ", ")
    }

    static func limitText(_ limit: Int?, _ offset: Int?) -> String {
        switch (limit, offset) {
        case (let limit?, let offset?): return " LIMIT \(limit) OFFSET \(offset)"
        case (let limit?, nil): return " LIMIT \(limit)"
        case (nil, let offset?): return " LIMIT -1 OFFSET \(offset)"
        case (nil, nil): return ""
        }
    }

    struct PlainCase {
        var factor: Int64
        var least: Int64
        var list: [Int64]
        var name: String
        var target: Int64
        var limit: Int?
        var offset: Int?
        var distinct: Bool
    }

    static let plainCases: [PlainCase] = [
        PlainCase(
            factor: 2, least: 1, list: [0, 1, 2], name: "x", target: 3, limit: nil, offset: nil, distinct: false),
        PlainCase(factor: 3, least: 0, list: [3], name: "y", target: 1, limit: nil, offset: nil, distinct: false),
        PlainCase(
            factor: 1, least: 2, list: [0, 1, 2, 3, 3], name: "z", target: 0, limit: 3, offset: 1, distinct: true),
        PlainCase(factor: 5, least: 1, list: [1, 2], name: "x", target: 8, limit: 2, offset: nil, distinct: false),
        PlainCase(
            factor: 2, least: 0, list: [0, 3, 1, 2], name: "q", target: 4, limit: nil, offset: 2, distinct: true),
        PlainCase(factor: 2, least: 4, list: [], name: "x", target: 4, limit: nil, offset: nil, distinct: false),
    ]

    static func plainRequest(_ c: PlainCase) -> QueryRequest<Item> {
        var request = Item.all().select("id, a * \(c.factor) AS a, b, name").filter("a >= \(c.least)")
            .filter("b IN \(list: c.list)").filter("name <> \(c.name)").order("abs(a - \(c.target)), id DESC")
        if let limit = c.limit {
            request = request.limit(limit, offset: c.offset)
        } else if let offset = c.offset {
            request = request.limit(-1, offset: offset)
        }
        return c.distinct ? request.distinct() : request
    }

    static func plainText(_ c: PlainCase) -> String {
        let limit = c.limit ?? (c.offset == nil ? nil : -1)
        return "SELECT " + (c.distinct ? "DISTINCT " : "") + "id, a * \(c.factor) AS a, b, name FROM items"
            + " WHERE (a >= \(c.least)) AND (b IN (\(listText(c.list)))) AND (name <> '\(c.name)')"
            + " ORDER BY abs(a - \(c.target)), id DESC" + limitText(limit, c.offset)
    }

    @Test func plainRequestsAgreeWithSQLThroughEveryFetch() throws {
        let conn = try Self.items()
        // Twice over, forward then backward: each request runs after another of the same shape.
        for c in Self.plainCases + Self.plainCases.reversed() + Self.plainCases {
            let request = Self.plainRequest(c)
            let text = Self.plainText(c)
            let expected = try Self.hand(conn, text)
            #expect(try conn.fetchAll(request) == expected, "\(text)")
            #expect(try conn.fetchOne(request) == expected.first, "\(text)")
            #expect(try conn.fetchOne(Item.self, request) == expected.first, "\(text)")
            #expect(try conn.fetchCount(request) == expected.count, "\(text)")
            #expect(try conn.exists(request) == !expected.isEmpty, "\(text)")
            let cursor = try conn.fetchCursor(request)
            var fromCursor: [Item] = []
            while let item = try cursor.next() {
                fromCursor.append(item)
            }
            #expect(fromCursor == expected, "\(text)")
        }
    }

    @Test func fetchOneAlternatingShapesAndListLengths() throws {
        let conn = try Self.items()
        // Lists of 3 and 4 values share a text (padded to 4), as do 5 to 8: the values bound must be
        // the request's own each time.
        let lists: [[Int64]] = [[1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11, 12], [12, 11], [5], [2, 3, 4], [7, 8, 9]]
        for (index, list) in (lists + lists.reversed()).enumerated() {
            let bias = Int64(index % 3)
            let request = Item.all().select("id, a + \(bias) AS a, b, name").filter("id IN \(list: list)")
                .filter("a + \(bias) >= \(bias)").order("b DESC, id")
            let text =
                "SELECT id, a + \(bias) AS a, b, name FROM items WHERE (id IN (\(Self.listText(list))))"
                + " AND (a + \(bias) >= \(bias)) ORDER BY b DESC, id"
            let expected = try Self.hand(conn, text)
            #expect(try conn.fetchOne(request) == expected.first, "\(text)")
            // A request of another shape in between.
            let other = Item.all().filter("id IN \(list: list)").order("id DESC")
            #expect(try conn.fetchOne(other)?.id == list.max())
            let single = Item.filter("id IN \(list: list)")
            #expect(try conn.fetchOne(single)?.id == list.min())
        }
    }

    @Test func orderReversedThenOrderAgain() throws {
        let conn = try Self.items()
        for least: Int64 in [0, 2] {
            let base = Item.all().filter("a >= \(least)").filter("b <> \(least)")
            let where_ = " FROM items WHERE (a >= \(least)) AND (b <> \(least))"
            let reordered = base.order("a, id").reversed().order("b DESC, id")
            #expect(try conn.fetchAll(reordered) == Self.hand(conn, "SELECT *" + where_ + " ORDER BY b DESC, id"))
            #expect(
                try conn.fetchOne(reordered) == Self.hand(conn, "SELECT *" + where_ + " ORDER BY b DESC, id").first)
            let then = base.order("a").reversed().thenOrder("id")
            #expect(try conn.fetchAll(then) == Self.hand(conn, "SELECT *" + where_ + " ORDER BY a DESC, id DESC"))
            let twice = base.order("a, id DESC").reversed().reversed()
            #expect(try conn.fetchAll(twice) == Self.hand(conn, "SELECT *" + where_ + " ORDER BY a, id DESC"))
            let keys = base.order("a").reversed().order(Item.CodingKeys.b, Item.CodingKeys.id)
            #expect(try conn.fetchAll(keys) == Self.hand(conn, "SELECT *" + where_ + " ORDER BY b, id"))
            let noOrdering = base.reversed().limit(3, offset: 1)
            let noOrderingText = "SELECT *" + where_ + " ORDER BY id DESC LIMIT 3 OFFSET 1"
            #expect(try conn.fetchAll(noOrdering) == Self.hand(conn, noOrderingText))
            #expect(try conn.fetchOne(noOrdering) == Self.hand(conn, noOrderingText).first)
            #expect(try conn.fetchCount(noOrdering) == Self.count(conn, noOrderingText))
        }
    }

    @Test func reversedOrderingsWithListsAndValues() throws {
        let conn = try Self.items()
        let cases: [([Int64], Int64, Int64)] = [([1, 2, 3], 1, 2), ([0], 5, 3), ([2, 3, 0, 1, 2], 0, 9)]
        for (list, high, low) in cases + cases {
            let ordering: SQL = "CASE WHEN b IN \(list: list) THEN \(high) ELSE \(low) END, a * \(high) NULLS FIRST"
            let request = Item.all().filter("id > \(low)").filter("a IN \(list: list)")
                .select("id, a + \(high) AS a, b, name").order(ordering).thenOrder("id").reversed()
                .limit(5, offset: 1)
            let text =
                "SELECT id, a + \(high) AS a, b, name FROM items WHERE (id > \(low))"
                + " AND (a IN (\(Self.listText(list))))"
                + " ORDER BY CASE WHEN b IN (\(Self.listText(list))) THEN \(high) ELSE \(low) END DESC,"
                + " a * \(high) DESC NULLS LAST, id DESC LIMIT 5 OFFSET 1"
            let expected = try Self.hand(conn, text)
            #expect(try conn.fetchAll(request) == expected, "\(text)")
            #expect(try conn.fetchOne(request) == expected.first, "\(text)")
            #expect(try conn.fetchCount(request) == expected.count, "\(text)")
            // Joined with `+` around the list.
            let joined =
                SQL("CASE WHEN b IN \(list: list)") + " THEN \(high) ELSE \(low) END" + SQL(", id \(raw: "ASC")")
            let joinedRequest = Item.all().filter("a IN \(list: list)").order(joined).reversed()
            let joinedText =
                "SELECT * FROM items WHERE a IN (\(Self.listText(list))) ORDER BY CASE WHEN b IN"
                + " (\(Self.listText(list))) THEN \(high) ELSE \(low) END DESC, id DESC"
            #expect(try conn.fetchAll(joinedRequest) == Self.hand(conn, joinedText), "\(joinedText)")
            #expect(try conn.fetchOne(joinedRequest) == Self.hand(conn, joinedText).first, "\(joinedText)")
        }
    }

    @Test func keyFiltersWithConditionsOrderingsAndLists() throws {
        for (keys, list) in [([1, 2, 3, 5, 8], [0, 1]), ([4, 6, 7, 9, 10, 11], [1, 2, 3]), ([12], [0])]
            as [([Int64], [Int64])]
        {
            let conn = try Self.items()
            let request = Item.all().filter("a >= \(1)").filter(keys: keys).filter("b IN \(list: list)")
                .order("b DESC, \(raw: "id")").select("id, a, b + \(0) AS b, name")
            let text =
                "SELECT id, a, b + 0 AS b, name FROM items WHERE (a >= 1) AND (b IN (\(Self.listText(list))))"
                + " AND (id IN (\(Self.listText(keys)))) ORDER BY b DESC, id"
            let expected = try Self.hand(conn, text)
            #expect(try conn.fetchAll(request) == expected, "\(text)")
            #expect(try conn.fetchOne(request) == expected.first, "\(text)")
            #expect(try conn.fetchCount(request) == expected.count, "\(text)")
            #expect(try conn.exists(request) == !expected.isEmpty, "\(text)")
            #expect(try conn.fetchAll(request.reversed()) == expected.reversed(), "\(text)")
            let oneKey = Item.all().filter("b IN \(list: list)").filter(key: keys[0]).filter("a >= \(0)")
            #expect(
                try conn.fetchOne(oneKey)
                    == Self.hand(
                        conn, "SELECT * FROM items WHERE b IN (\(Self.listText(list))) AND id = \(keys[0]) AND a >= 0"
                    ).first)
            let plain = Item.all().filter("a >= \(1)").filter("b IN \(list: list)").filter("id IN \(list: keys)")
            let deleted = try conn.deleteAll(request.limit(2))
            let left = try Self.ids(conn)
            let other = try Self.items()
            try other.execute(
                SQL(
                    text: "DELETE FROM items WHERE id IN (SELECT id FROM (SELECT id, a, b + 0 AS b, name FROM items"
                        + " WHERE (a >= 1) AND (b IN (\(Self.listText(list)))) AND (id IN (\(Self.listText(keys))))"
                        + " ORDER BY b DESC, id LIMIT 2))"))
            #expect(deleted == other.changes)
            #expect(left == (try Self.ids(other)))
            #expect(try conn.fetchCount(plain) == (try other.fetchCount(plain)))
        }
    }

    @Test func deleteAndUpdateOfRequestsWithLaterConditionsOrderingsAndLimits() throws {
        let cases: [(Int64, [Int64], Int, Int?)] = [
            (1, [0, 1, 3], 3, 1), (0, [2], 2, nil), (2, [0, 1, 2, 3, 0], 4, 2),
        ]
        for (least, list, limit, offset) in cases + cases {
            let request = Item.all().filter("a >= \(least)").filter("b IN \(list: list)").filter("name <> \("y")")
                .order("a DESC, id").limit(limit, offset: offset)
            let inner =
                "SELECT id FROM items WHERE (a >= \(least)) AND (b IN (\(Self.listText(list)))) AND (name <> 'y')"
                + " ORDER BY a DESC, id" + Self.limitText(limit, offset)
            let conn = try Self.items()
            let other = try Self.items()
            let deleted = try conn.deleteAll(request)
            try other.execute(SQL(text: "DELETE FROM items WHERE id IN (" + inner + ")"))
            #expect(deleted == other.changes)
            #expect(try Self.ids(conn) == Self.ids(other))

            let updating = try Self.items()
            let updatingOther = try Self.items()
            let reversedRequest = request.reversed()
            let changed = try updating.updateAll(reversedRequest, set: "name = \("w")", "a = a + \(least + 10)")
            let reversedInner =
                "SELECT id FROM items WHERE (a >= \(least)) AND (b IN (\(Self.listText(list)))) AND (name <> 'y')"
                + " ORDER BY a ASC, id DESC" + Self.limitText(limit, offset)
            try updatingOther.execute(
                SQL(text: "UPDATE items SET name = 'w', a = a + \(least + 10) WHERE id IN (" + reversedInner + ")"))
            #expect(changed == updatingOther.changes)
            #expect(try Self.rows(updating) == Self.rows(updatingOther))
        }
    }

    @Test func selectionAliasesInConditionsForWrites() throws {
        for bound: Int64 in [2, 5] {
            let conn = try Self.items()
            let other = try Self.items()
            let request = Item.all().select("id, a * \(bound) AS scaled").filter("scaled > \(bound)")
                .filter("id IN \(list: [1, 2, 3, 4, 5, 6])").order("scaled DESC, id")
            let deleted = try conn.deleteAll(request)
            try other.execute(
                SQL(
                    text: "DELETE FROM items WHERE id IN (SELECT id FROM (SELECT id, a * \(bound) AS scaled FROM items"
                        + " WHERE (scaled > \(bound)) AND (id IN (1, 2, 3, 4, 5, 6))))"))
            #expect(deleted == other.changes)
            #expect(try Self.ids(conn) == Self.ids(other))
        }
    }

    @Test func groupAndHavingWithValuesAndLists() throws {
        let conn = try Self.items()
        let cases: [(Int64, [Int64], Int64, Int64)] = [
            (0, [1, 2, 3, 4, 5, 6, 7], 1, 0), (3, [2, 4, 6, 8, 10, 12], 2, 1),
        ]
        for (skip, ids, least, plus) in cases + cases.reversed() {
            let request = Item.all().select("b, count(*) AS n, sum(a) + \(plus) AS s").filter("a <> \(skip)")
                .filter("id IN \(list: ids)").group("b").having("count(*) >= \(least)")
                .having("b IN \(list: [0, 1, 2, 3])").order("s DESC, b")
            let text =
                "SELECT b, count(*) AS n, sum(a) + \(plus) AS s FROM items WHERE (a <> \(skip))"
                + " AND (id IN (\(Self.listText(ids)))) GROUP BY b HAVING (count(*) >= \(least))"
                + " AND (b IN (0, 1, 2, 3)) ORDER BY s DESC, b"
            let expected = try conn.fetchAll(Group.self, sql: SQL(text: text))
            #expect(try conn.fetchAll(Group.self, request) == expected, "\(text)")
            #expect(try conn.fetchOne(Group.self, request) == expected.first, "\(text)")
            #expect(try conn.fetchCount(request) == expected.count, "\(text)")
            #expect(try conn.exists(request) == !expected.isEmpty, "\(text)")
            #expect(try conn.fetchAll(Group.self, request.reversed()) == expected.reversed(), "\(text)")
            #expect(throws: RequestError.self) { try conn.deleteAll(request) }
        }
    }

    @Test func fragmentsJoinedAroundListsInEveryPart() throws {
        let conn = try Self.items()
        let cases: [([Int64], [Int64], Int64)] = [
            ([1, 2, 3], [0, 1, 2], 100), ([4], [3], 7), ([1, 2, 3, 4, 0], [1], 9),
        ]
        for (aList, bList, value) in cases + cases {
            let selection =
                SQL("id, ") + "CASE WHEN a IN \(list: aList) THEN \(value) ELSE b END AS a" + SQL(", b, name")
            let condition = SQL("b IN \(list: bList)") + " AND a NOT IN \(list: [value])" + SQL(" OR id = \(value)")
            let ordering = SQL("CASE WHEN id IN \(list: aList) THEN 0 ELSE 1 END") + SQL(", id DESC")
            let request = Item.all().filter("id > \(0)").select(selection).filter(condition).order(ordering)
            let text =
                "SELECT id, CASE WHEN a IN (\(Self.listText(aList))) THEN \(value) ELSE b END AS a, b, name"
                + " FROM items WHERE (id > 0) AND (b IN (\(Self.listText(bList))) AND a NOT IN (\(value))"
                + " OR id = \(value)) ORDER BY CASE WHEN id IN (\(Self.listText(aList))) THEN 0 ELSE 1 END, id DESC"
            let expected = try Self.hand(conn, text)
            #expect(try conn.fetchAll(request) == expected, "\(text)")
            #expect(try conn.fetchOne(request) == expected.first, "\(text)")
            #expect(try conn.fetchCount(request) == expected.count, "\(text)")
            #expect(try conn.fetchAll(request.reversed()) == expected.reversed(), "\(text)")
            // The same fragments embedded in interpolations.
            let embedded = Item.all().select("\(selection)").filter("(\(condition)) AND id > \(0)")
                .order("\(ordering)")
            let embeddedText =
                "SELECT id, CASE WHEN a IN (\(Self.listText(aList))) THEN \(value) ELSE b END AS a, b, name"
                + " FROM items WHERE (b IN (\(Self.listText(bList))) AND a NOT IN (\(value)) OR id = \(value))"
                + " AND id > 0 ORDER BY CASE WHEN id IN (\(Self.listText(aList))) THEN 0 ELSE 1 END, id DESC"
            #expect(try conn.fetchAll(embedded) == Self.hand(conn, embeddedText), "\(embeddedText)")
            #expect(try conn.fetchOne(embedded) == Self.hand(conn, embeddedText).first, "\(embeddedText)")
            #expect(try conn.fetchAll(embedded.reversed()) == Self.hand(conn, embeddedText).reversed())
        }
    }

    @Test func copiesModifiedLeaveTheOriginal() throws {
        let conn = try Self.items()
        let original = Item.all().select("id, a, b, name").filter("a >= \(1)").filter("b IN \(list: [0, 1, 2])")
            .order("a DESC, id")
        let description = original.description
        let debugDescription = original.debugDescription
        let originalRows = try conn.fetchAll(original)
        #expect(
            description
                == #"SELECT id, a, b, name FROM "items" WHERE (a >= ?) AND (b IN (?, ?, ?, ?)) ORDER BY a DESC, id"#
        )
        #expect(debugDescription == description + " -- arguments: [1, 0, 1, 2, 2]")
        var copy = original.filter("name = \("x")").order("id").reversed().limit(2).distinct()
        copy = copy.select("id, a, b, name").having("1").group("id").filter("id > \(2)")
        _ = try conn.fetchAll(copy)
        _ = try conn.fetchOne(copy)
        let third = original.thenOrder("b").filter(keys: [1, 2, 3, 4, 5, 6])
        _ = try conn.fetchAll(third)
        #expect(original.description == description)
        #expect(original.debugDescription == debugDescription)
        #expect(original.conditions.count == 2)
        #expect(original.orderings.count == 1)
        #expect(!original.isReversed && original.limitCount == nil && !original.isDistinct)
        #expect(try conn.fetchAll(original) == originalRows)
        #expect(try conn.fetchOne(original) == originalRows.first)
        #expect(
            originalRows
                == (try Self.hand(
                    conn, "SELECT id, a, b, name FROM items WHERE a >= 1 AND b IN (0, 1, 2) ORDER BY a DESC, id")))
        #expect(
            try conn.fetchAll(third)
                == Self.hand(
                    conn,
                    "SELECT id, a, b, name FROM items WHERE a >= 1 AND b IN (0, 1, 2) AND id IN (1, 2, 3, 4, 5, 6)"
                        + " ORDER BY a DESC, id, b"))
        #expect(
            try conn.fetchAll(copy)
                == Self.hand(
                    conn,
                    "SELECT DISTINCT id, a, b, name FROM items WHERE a >= 1 AND b IN (0, 1, 2) AND name = 'x'"
                        + " AND id > 2 GROUP BY id HAVING 1 ORDER BY id DESC LIMIT 2"))
        // The reversal of a copy's copy.
        let reversed = original.reversed()
        let back = reversed.reversed()
        #expect(back.description == description)
        #expect(
            reversed.description
                == #"SELECT id, a, b, name FROM "items" WHERE (a >= ?) AND (b IN (?, ?, ?, ?)) ORDER BY a ASC, id DESC"#
        )
        #expect(reversed.debugDescription.hasSuffix(" -- arguments: [1, 0, 1, 2, 2]"))
    }

    @Test func searchRankingWithOrderingsAndLaterConditions() throws {
        let conn = try Self.notes()
        let pattern = try #require(SearchPattern.all("swift"))
        let ids: [[Int64]] = [[1, 2, 4, 5, 6, 7], [2, 6], [1, 4, 5]]
        for list in ids + ids {
            let listText = Self.listText(list)
            let matches =
                "SELECT notes.* FROM notes JOIN (SELECT rowid AS r, rank AS k FROM notes_fts WHERE notes_fts MATCH"
                + " 'swift') AS m ON m.r = notes.rowid WHERE (id > 0) AND (id IN (\(listText)))"
            let request = Note.all().filter("id > \(0)").filter("id IN \(list: list)")
                .matching(pattern, in: "notes_fts").thenOrder("id DESC")
            let expected = try conn.fetchAll(Note.self, sql: SQL(text: matches + " ORDER BY m.k, notes.id DESC"))
            #expect(try conn.fetchAll(request) == expected)
            #expect(try conn.fetchOne(request) == expected.first)
            #expect(try conn.fetchCount(request) == expected.count)
            #expect(try conn.exists(request) == !expected.isEmpty)
            let reversedExpected = try conn.fetchAll(
                Note.self, sql: SQL(text: matches + " ORDER BY m.k DESC, notes.id ASC LIMIT 3 OFFSET 1"))
            #expect(try conn.fetchAll(request.reversed().limit(3, offset: 1)) == reversedExpected)
            // An ordering given first comes after the rank; one given after replaces it.
            let earlier = Note.all().order("id DESC").filter("id IN \(list: list)").matching(pattern, in: "notes_fts")
                .filter("id > \(0)")
            #expect(try conn.fetchAll(earlier) == expected)
            let replaced = Note.all().filter("id > \(0)").matching(pattern, in: "notes_fts")
                .filter("id IN \(list: list)").order("title DESC, id")
            #expect(
                try conn.fetchAll(replaced)
                    == conn.fetchAll(Note.self, sql: SQL(text: matches + " ORDER BY notes.title DESC, notes.id")))
            let selected = Note.all().matching(pattern, in: "notes_fts").select(
                "notes.id, title || \("!") AS title, body"
            )
            .filter("id IN \(list: list)").filter("id > \(0)").thenOrder("notes.id")
            let selectedExpected = try conn.fetchAll(
                Note.self,
                sql: SQL(
                    text:
                        "SELECT notes.id, title || '!' AS title, body FROM notes JOIN (SELECT rowid AS r, rank AS k"
                        + " FROM notes_fts WHERE notes_fts MATCH 'swift') AS m ON m.r = notes.rowid WHERE"
                        + " (id IN (\(listText))) AND (id > 0) ORDER BY m.k, notes.id"))
            #expect(try conn.fetchAll(selected) == selectedExpected)
            #expect(try conn.fetchOne(selected) == selectedExpected.first)
        }
    }

    @Test func associationsWithLaterConditionsAndOrderings() throws {
        let conn = try Self.authors()
        let cases: [([String], Int64, Int64)] = [
            (["Ann", "Cid"], 0, 3), (["Bob", "Cid", "Dee"], 2, 5), (["Dee"], 0, 0),
        ]
        for (names, least, pivot) in cases + cases {
            let nameList = names.map { "'\($0)'" }.joined(separator: ", ")
            let request = Post.all().including(required: Post.author).filter("posts.id > \(least)")
                .filter("\(Post.author.column("name")) IN \(list: names)").filter("score <> \(pivot)")
                .order("abs(score - \(pivot)), posts.id DESC")
            let text =
                "SELECT posts.* FROM posts JOIN authors ON authors.id = posts.authorId WHERE (posts.id > \(least))"
                + " AND (authors.name IN (\(nameList))) AND (score <> \(pivot))"
                + " ORDER BY abs(score - \(pivot)), posts.id DESC"
            let expectedPosts = try conn.fetchAll(Post.self, sql: SQL(text: text))
            let infos = try conn.fetchAll(PostInfo.self, request)
            #expect(infos.map(\.post) == expectedPosts, "\(text)")
            #expect(infos.allSatisfy { $0.author.id == $0.post.authorId && names.contains($0.author.name) })
            #expect(try conn.fetchOne(PostInfo.self, request)?.post == expectedPosts.first)
            #expect(try conn.fetchCount(request) == expectedPosts.count)
            #expect(try conn.fetchAll(PostInfo.self, request.reversed()).map(\.post) == expectedPosts.reversed())
            let joined = Post.all().joining(required: Post.author).filter("posts.id > \(least)")
                .filter("\(Post.author.column("name")) IN \(list: names)").filter("score <> \(pivot)")
                .order("abs(score - \(pivot)), posts.id DESC")
            #expect(try conn.fetchAll(joined) == expectedPosts)
            #expect(try conn.fetchOne(joined) == expectedPosts.first)
            #expect(try conn.exists(joined) == !expectedPosts.isEmpty)
            // To-many, filtered and ordered, under later conditions and orderings of the authors.
            let authorsRequest = Author.all().including(
                all: Author.posts.filter("score > \(least)").order("score DESC")
            ).filter("id > \(0)").filter("name IN \(list: names)").order("name DESC")
            let authors = try conn.fetchAll(AuthorInfo.self, authorsRequest)
            let expectedAuthors = try conn.fetchAll(
                Author.self, sql: SQL(text: "SELECT * FROM authors WHERE name IN (\(nameList)) ORDER BY name DESC"))
            #expect(authors.map(\.author) == expectedAuthors)
            for info in authors {
                let posts = try conn.fetchAll(
                    Post.self,
                    sql: SQL(
                        text: "SELECT * FROM posts WHERE authorId = \(info.author.id) AND score > \(least)"
                            + " ORDER BY score DESC"))
                #expect(info.posts == posts)
            }
            // Deleting the joined request's rows.
            let copy = try Self.authors()
            let deleted = try copy.deleteAll(joined.limit(2))
            #expect(deleted == min(2, expectedPosts.count))
            let remaining = try copy.fetchAll(Int64.self, sql: "SELECT id FROM posts ORDER BY id")
            #expect(Set(remaining) == Set(1...8).subtracting(expectedPosts.prefix(2).map(\.id)))
        }
    }

    @Test func aggregateFiltersAnnotationsAndKeyFiltersWithLaterConditions() throws {
        let cases: [([String], Int, [Int64], Int64)] = [
            (["Ann", "Bob", "Cid"], 2, [1, 2, 3, 4], 0), (["Bob", "Cid", "Dee"], 1, [2, 3, 4], 1), (["Ann"], 3, [1], 0),
        ]
        for (names, least, keys, skip) in cases + cases {
            let conn = try Self.authors()
            let nameList = names.map { "'\($0)'" }.joined(separator: ", ")
            let request = Author.all().annotated(with: Author.posts.count.forKey("n")).filter("id > \(skip)")
                .filter(Author.posts.count >= least).filter("name IN \(list: names)").filter(keys: keys)
                .order("n DESC, \(raw: "id")")
            let counted = "(SELECT count(*) FROM posts WHERE posts.authorId = authors.id)"
            let text =
                "SELECT authors.*, \(counted) AS n FROM authors WHERE (id > \(skip)) AND (name IN (\(nameList)))"
                + " AND (id IN (\(Self.listText(keys)))) AND (\(counted) >= \(least)) ORDER BY n DESC, id"
            let expected = try conn.fetchAll(AuthorCount.self, sql: SQL(text: text))
            #expect(try conn.fetchAll(AuthorCount.self, request) == expected, "\(text)")
            #expect(try conn.fetchOne(AuthorCount.self, request) == expected.first, "\(text)")
            #expect(try conn.fetchOne(request) == expected.first?.author, "\(text)")
            #expect(try conn.fetchCount(request) == expected.count, "\(text)")
            #expect(try conn.exists(request) == !expected.isEmpty, "\(text)")
            #expect(try conn.fetchAll(AuthorCount.self, request.reversed()) == expected.reversed(), "\(text)")
            let having = Author.all().filter("id > \(skip)").having(Author.posts.count >= least)
                .filter("name IN \(list: names)").order("name DESC")
            let handHaving = try conn.fetchAll(
                Int64.self,
                sql: SQL(
                    text: "SELECT id FROM authors WHERE id > \(skip) AND name IN (\(nameList))"
                        + " AND \(counted) >= \(least) ORDER BY name DESC"))
            #expect(try conn.fetchAll(having).map(\.id) == handHaving)
            #expect(try conn.fetchOne(having)?.id == handHaving.first)
            try conn.execute("PRAGMA foreign_keys = OFF")
            let deleted = try conn.deleteAll(request)
            #expect(deleted == expected.count)
            let left = try conn.fetchAll(Int64.self, sql: "SELECT id FROM authors ORDER BY id")
            #expect(left == [1, 2, 3, 4].filter { id in !expected.contains { $0.author.id == id } })
        }
    }

    @Test func toOneAssociationOrderingsWithListsReversed() throws {
        let conn = try Self.authors()
        for names in [["Ann", "Cid"], ["Bob"], ["Dee", "Ann", "Bob"]] + [["Ann", "Cid"]] {
            let nameList = names.map { "'\($0)'" }.joined(separator: ", ")
            let author = Post.author.order(
                "CASE WHEN \(Post.author.column("name")) IN \(list: names) THEN 0 ELSE 1 END")
            let request = Post.all().including(required: author).filter("score > \(1)").order("score % \(3)")
            let keys =
                "SELECT score % 3 AS k1, CASE WHEN authors.name IN (\(nameList)) THEN 0 ELSE 1 END AS k2"
                + " FROM posts JOIN authors ON authors.id = posts.authorId WHERE score > 1"
            struct Keys: Decodable, Equatable {
                var k1: Int64
                var k2: Int64
            }
            func keysOf(_ infos: [PostInfo]) -> [Keys] {
                infos.map { Keys(k1: $0.post.score % 3, k2: names.contains($0.author.name) ? 0 : 1) }
            }
            let forward = try conn.fetchAll(Keys.self, sql: SQL(text: keys + " ORDER BY k1, k2"))
            #expect(keysOf(try conn.fetchAll(PostInfo.self, request)) == forward)
            let backward = try conn.fetchAll(Keys.self, sql: SQL(text: keys + " ORDER BY k1 DESC, k2 DESC"))
            #expect(keysOf(try conn.fetchAll(PostInfo.self, request.reversed())) == backward)
            #expect(keysOf(try conn.fetchAll(PostInfo.self, request.reversed().limit(3))) == Array(backward.prefix(3)))
            #expect(try conn.fetchCount(request.reversed().limit(3)) == min(3, backward.count))
        }
    }

    @Test func updateAssignmentsWithListsAndRequestLists() throws {
        let cases: [([Int64], [Int64], Int64)] = [
            ([1, 2, 3], [0, 1, 2], 7), ([5], [3], 8), ([2, 4, 6, 8, 10], [1, 2], 9),
        ]
        for (ids, bList, value) in cases + cases {
            let conn = try Self.items()
            let other = try Self.items()
            let request = Item.all().filter("a >= \(0)").filter("b IN \(list: bList)").order("id DESC").limit(4)
            let changed = try conn.updateAll(
                request, set: SQL("a = CASE WHEN id IN \(list: ids)") + " THEN \(value) ELSE a END",
                "name = \(String(value))")
            try other.execute(
                SQL(
                    text: "UPDATE items SET a = CASE WHEN id IN (\(Self.listText(ids))) THEN \(value) ELSE a END,"
                        + " name = '\(value)' WHERE id IN (SELECT id FROM items WHERE (a >= 0)"
                        + " AND (b IN (\(Self.listText(bList)))) ORDER BY id DESC LIMIT 4)"))
            #expect(changed == other.changes)
            #expect(try Self.rows(conn) == Self.rows(other))
        }
    }

    @Test func longListsInLaterConditionsAndOrderings() throws {
        let conn = try Self.items()
        for extra in [0, 5] {
            let long = (1...Int64(1000 + extra)).map { $0 % 13 }
            let request = Item.all().filter("a >= \(0)").filter("id IN \(list: long)").filter("b IN \(list: [1, 2])")
                .order("CASE WHEN a IN \(list: long) THEN a ELSE 0 END, id").reversed().limit(4, offset: 1)
            let distinct = Self.listText(Array(Set(long)).sorted())
            let head = "SELECT * FROM items WHERE (a >= 0) AND (id IN (\(distinct))) AND (b IN (1, 2))"
            let text =
                head + " ORDER BY CASE WHEN a IN (\(distinct)) THEN a ELSE 0 END DESC, id DESC LIMIT 4 OFFSET 1"
            let expected = try Self.hand(conn, text)
            #expect(try conn.fetchAll(request) == expected)
            #expect(try conn.fetchOne(request) == expected.first)
            #expect(try conn.fetchCount(request) == expected.count)
            #expect(
                try conn.fetchOne(request.order("id")) == Self.hand(conn, head + " ORDER BY id LIMIT 4 OFFSET 1").first)
        }
    }

    @Test func searchTwoPatternsReversedThenOrdered() throws {
        let conn = try Self.notes()
        let swift = try #require(SearchPattern.all("swift"))
        let other = try #require(SearchPattern.any("other text rust"))
        for least: Int64 in [0, 2, 0] {
            let request = Note.all().matching(swift, in: "notes_fts").filter("id > \(least)")
                .matching(other, in: "notes_fts").thenOrder("id").reversed()
            let base =
                "SELECT notes.* FROM notes JOIN (SELECT rowid AS r, rank AS k FROM notes_fts WHERE notes_fts MATCH"
                + " 'swift' AND notes_fts MATCH 'other OR text OR rust') AS m ON m.r = notes.rowid WHERE id > \(least)"
            let expected = try conn.fetchAll(Note.self, sql: SQL(text: base + " ORDER BY m.k DESC, notes.id DESC"))
            #expect(try conn.fetchAll(request) == expected)
            #expect(try conn.fetchOne(request) == expected.first)
            let ordered = request.order("title, \(raw: "id")")
            let orderedExpected = try conn.fetchAll(Note.self, sql: SQL(text: base + " ORDER BY notes.title, notes.id"))
            #expect(try conn.fetchAll(ordered) == orderedExpected)
            #expect(try conn.fetchCount(ordered) == orderedExpected.count)
        }
    }

    @Test func descriptionsListArgumentsInPlaceholderOrder() throws {
        let conn = try Self.notes()
        let pattern = try #require(SearchPattern.all("swift"))
        for least: Int64 in [3, 4] {
            let request = Note.all().select("id, title || \("?") AS title, body").filter("id > \(least)")
                .matching(pattern, in: "notes_fts").filter("id IN \(list: [least, 6, 7])").thenOrder("id + \(least)")
            let sql = try conn.sql(for: request)
            #expect(request.description == sql.text)
            #expect(request.debugDescription == sql.debugText)
            #expect(sql.valueCount == 1 + 1 + 1 + 4 + 1)
            #expect(
                request.debugDescription.hasSuffix(
                    " -- arguments: [?, \(pattern), \(least), \(least), 6, 7, 7, \(least)]"))
            let expected = try conn.fetchAll(
                Note.self,
                sql: SQL(
                    text: "SELECT id, title || '?' AS title, body FROM notes JOIN (SELECT rowid AS r, rank AS k FROM"
                        + " notes_fts WHERE notes_fts MATCH 'swift') AS m ON m.r = notes.rowid WHERE (id > \(least))"
                        + " AND (id IN (\(least), 6, 7)) ORDER BY m.k, id + \(least)"))
            #expect(try conn.fetchAll(request) == expected)
        }
        let items = try Self.items()
        for keys: [Int64] in [[1, 2], [3, 4, 5]] {
            let keyed = Item.all().filter(keys: keys).filter("a > \(5)").order("b * \(2)")
            #expect(keyed.description == (try items.sql(for: keyed)).text)
            #expect(keyed.debugDescription == (try items.sql(for: keyed)).debugText)
            #expect(
                try items.fetchAll(keyed)
                    == Self.hand(
                        items, "SELECT * FROM items WHERE a > 5 AND id IN (\(Self.listText(keys))) ORDER BY b * 2"))
        }
    }

    @Test func deleteOfReversedAndRankedRequestsWithLimits() throws {
        for count in [3, 5] {
            let conn = try Self.items()
            let deleted = try conn.deleteAll(Item.all().filter("a >= \(0)").filter("b >= \(0)").reversed().limit(count))
            #expect(deleted == count)
            #expect(try Self.ids(conn) == Array(1...Int64(12 - count)))
            let notes = try Self.notes()
            let pattern = try #require(SearchPattern.all("swift"))
            let ranked = try notes.fetchAll(
                Int64.self,
                sql: SQL(
                    text: "SELECT notes.id FROM notes JOIN notes_fts ON notes_fts.rowid = notes.rowid WHERE notes_fts"
                        + " MATCH 'swift' AND notes.id > 1 ORDER BY notes_fts.rank, notes.id DESC LIMIT \(count - 1)"))
            let request = Note.all().matching(pattern, in: "notes_fts").filter("id > \(1)").thenOrder("id DESC")
                .limit(count - 1)
            #expect(try notes.fetchAll(request).map(\.id) == ranked.map { Optional($0) })
            #expect(try notes.deleteAll(request) == ranked.count)
            let left = try notes.fetchAll(Int64.self, sql: "SELECT id FROM notes ORDER BY id")
            #expect(left == Array(1...7).filter { !ranked.contains($0) })
        }
    }

    @Test func valuesAfterINInLaterConditionsAndOrderings() throws {
        let conn = try Self.items()
        for (x, y) in [(Int64(1), Int64(2)), (3, 0), (1, 2)] {
            // Values inside parentheses after IN bind as values, in a later condition and an ordering.
            let request = Item.all().filter("a >= \(0)").filter("b IN (\(x), \(y))")
                .order("CASE WHEN a IN (\(x), \(y)) THEN 0 ELSE 1 END, id").select("id, a, b + \(0) AS b, name")
            let text =
                "SELECT id, a, b + 0 AS b, name FROM items WHERE (a >= 0) AND (b IN (\(x), \(y)))"
                + " ORDER BY CASE WHEN a IN (\(x), \(y)) THEN 0 ELSE 1 END, id"
            let expected = try Self.hand(conn, text)
            #expect(try conn.fetchAll(request) == expected)
            #expect(try conn.fetchOne(request) == expected.first)
            #expect(try conn.fetchCount(request) == expected.count)
            #expect(try conn.fetchOne(request.reversed()) == expected.last)
            // A value right after IN, in a later condition: refused when the request runs, whichever call.
            let refused = Item.all().filter("a >= \(0)").filter("b IN \(x)").order("id")
            #expect(throws: (any Error).self) { try conn.fetchOne(refused) }
            #expect(throws: (any Error).self) { try conn.fetchAll(refused) }
            #expect(throws: (any Error).self) { try conn.fetchCount(refused) }
            #expect(throws: (any Error).self) { try conn.exists(refused) }
            #expect(throws: (any Error).self) { try conn.deleteAll(refused) }
            #expect(try Self.ids(conn) == Array(1...12))
            let refusedOrdering = Item.all().filter("a >= \(0)").filter("b >= \(0)").order("a IN \(x), id")
            #expect(throws: (any Error).self) { try conn.fetchOne(refusedOrdering) }
            #expect(throws: (any Error).self) { try conn.fetchAll(refusedOrdering.reversed()) }
        }
    }

    @Test func fetchOneMemoTellsCanonicallyEqualTextsApart() throws {
        let conn = try Self.items()
        try conn.execute("UPDATE items SET name = 'caf\u{E9}' WHERE id = 1")
        try conn.execute(SQL(text: "UPDATE items SET name = 'cafe\u{301}' WHERE id = 2"))
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        for (index, name) in [composed, decomposed, composed, decomposed].enumerated() {
            let request = Item.all().filter("id > \(0)").filter(SQL(text: "name = '" + name + "'"))
                .order(SQL(text: "'" + name + "' = name, id"))
            let text =
                "SELECT * FROM items WHERE (id > 0) AND (name = '" + name + "') ORDER BY '" + name + "' = name, id"
            #expect(try conn.fetchOne(request) == Self.hand(conn, text).first)
            // (Swift's `==` holds the two names equal: told apart by their place in the list.)
            #expect(try conn.fetchOne(request)?.id == (index % 2 == 0 ? 1 : 2))
        }
    }

    @Test func missingValuesAndEmptyKeysAndZeroLimits() throws {
        let conn = try Self.items()
        // A later condition with a placeholder and no value: an error, not NULL.
        let short = Item.all().filter("a >= \(0)").filter(SQL(text: "b = ?")).order("id")
        #expect(throws: (any Error).self) { try conn.fetchOne(short) }
        #expect(throws: (any Error).self) { try conn.fetchAll(short) }
        #expect(throws: (any Error).self) { try conn.fetchCount(short) }
        #expect(throws: (any Error).self) { try conn.exists(short) }
        #expect(throws: (any Error).self) { try conn.deleteAll(short) }
        let shortOrdering = Item.all().filter("a >= \(0)").filter("b >= \(0)").order(SQL(text: "a = ?, id"))
        #expect(throws: (any Error).self) { try conn.fetchOne(shortOrdering) }
        #expect(throws: (any Error).self) { try conn.fetchOne(shortOrdering.reversed()) }
        #expect(try Self.ids(conn) == Array(1...12))
        // No key at all, with conditions: no row.
        let noKeys = Item.all().filter("a >= \(0)").filter(keys: [Int64]()).filter("b IN \(list: [0, 1, 2, 3])")
        #expect(try conn.fetchOne(noKeys) == nil)
        #expect(try conn.fetchAll(noKeys).isEmpty)
        #expect(try conn.fetchCount(noKeys) == 0)
        #expect(try !conn.exists(noKeys))
        #expect(try conn.deleteAll(noKeys) == 0)
        // Limits of 0, and -1 with an offset.
        for limit in [0, -1] {
            let request = Item.all().filter("a >= \(0)").filter("b IN \(list: [0, 1, 2])").order("id DESC")
                .limit(limit, offset: 2)
            let text =
                "SELECT * FROM items WHERE (a >= 0) AND (b IN (0, 1, 2)) ORDER BY id DESC LIMIT \(limit) OFFSET 2"
            let expected = try Self.hand(conn, text)
            #expect(try conn.fetchAll(request) == expected)
            #expect(try conn.fetchOne(request) == expected.first)
            #expect(try conn.fetchCount(request) == expected.count)
            #expect(try conn.exists(request) == !expected.isEmpty)
        }
    }

    @Test func reversalOfCollationsNullsAndAColumnNamedDesc() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE odd (id INTEGER PRIMARY KEY, "desc" INTEGER, name TEXT NOT NULL);
                INSERT INTO odd VALUES (1, 3, 'b'), (2, NULL, 'A'), (3, 1, 'a'), (4, 3, 'B'), (5, NULL, 'c'),
                    (6, 2, 'C');
                """)
        for shift: Int64 in [0, 2] {
            let request = Odd.all().filter("id > \(0)").filter("id IN \(list: [1, 2, 3, 4, 5, 6])")
                .order("odd.\"desc\" NULLS LAST, name COLLATE NOCASE desc, \"desc\" + \(shift), id")
            let forward = try conn.fetchAll(
                Odd.self,
                sql: SQL(
                    text: "SELECT * FROM odd ORDER BY odd.\"desc\" NULLS LAST, name COLLATE NOCASE DESC,"
                        + " \"desc\" + \(shift), id"))
            let backward = try conn.fetchAll(
                Odd.self,
                sql: SQL(
                    text: "SELECT * FROM odd ORDER BY odd.\"desc\" DESC NULLS FIRST, name COLLATE NOCASE ASC,"
                        + " \"desc\" + \(shift) DESC, id DESC"))
            #expect(try conn.fetchAll(request) == forward)
            #expect(try conn.fetchAll(request.reversed()) == backward)
            #expect(try conn.fetchOne(request.reversed()) == backward.first)
            #expect(try conn.fetchAll(request.reversed().limit(2, offset: 1)) == Array(backward[1...2]))
        }
    }

    @Test func cursorOfToManyWithKeyFiltersLaterConditionsAndReversal() throws {
        let conn = try Self.authors()
        let cases: [([Int64], [Int64], Int)] = [
            ([1, 2, 3, 4], [1, 3, 5, 7, 9], 2), ([2, 3], [2, 4, 6], 3), ([4], [6], 1),
        ]
        for (keys, scores, limit) in cases + cases {
            let posts = Author.posts.filter("score IN \(list: scores)").order("score * \(-1)")
            let request = Author.all().including(all: posts).filter("id > \(0)").filter(keys: keys)
                .filter("name <> \("zz")").order("name").reversed().limit(limit)
            let authors = try conn.fetchAll(
                Author.self,
                sql: SQL(
                    text: "SELECT * FROM authors WHERE id > 0 AND id IN (\(Self.listText(keys))) AND name <> 'zz'"
                        + " ORDER BY name DESC LIMIT \(limit)"))
            let cursor = try conn.fetchCursor(AuthorInfo.self, request)
            var infos: [AuthorInfo] = []
            while let info = try cursor.next() {
                infos.append(info)
            }
            #expect(infos.map(\.author) == authors)
            #expect(try conn.fetchAll(AuthorInfo.self, request) == infos)
            #expect(try conn.fetchOne(AuthorInfo.self, request) == infos.first)
            for info in infos {
                let expected = try conn.fetchAll(
                    Post.self,
                    sql: SQL(
                        text: "SELECT * FROM posts WHERE authorId = \(info.author.id)"
                            + " AND score IN (\(Self.listText(scores))) ORDER BY score * -1"))
                #expect(info.posts == expected)
            }
        }
    }

    @Test func reversalOfOrderingsWithSeveralPaddedListsJoinedAndEmbedded() throws {
        let conn = try Self.items()
        let cases: [([Int64], [Int64], Int64)] = [
            ([1, 2, 3], [0, 1, 2, 3, 0], 5), ([4], [2, 3], 1), ([0, 2, 4, 1, 3], [1], 7),
        ]
        for (aList, bList, value) in cases + cases {
            var ordering: SQL = "CASE WHEN a IN \(list: aList) THEN 0 ELSE 1 END"
            ordering += ", CASE WHEN b IN \(list: bList) THEN \(value) ELSE b END"
            ordering += SQL(", id")
            let embedded: SQL = "abs(a - \(value)), \(ordering)"
            let request = Item.all().select("id, a, b, name || \("-") AS name").filter("a IN \(list: aList + bList)")
                .filter("id > \(0)").order(embedded).reversed()
            let aText = Self.listText(aList)
            let bText = Self.listText(bList)
            let text =
                "SELECT id, a, b, name || '-' AS name FROM items WHERE (a IN (\(Self.listText(aList + bList))))"
                + " AND (id > 0) ORDER BY abs(a - \(value)) DESC, CASE WHEN a IN (\(aText)) THEN 0 ELSE 1 END DESC,"
                + " CASE WHEN b IN (\(bText)) THEN \(value) ELSE b END DESC, id DESC"
            let expected = try Self.hand(conn, text)
            #expect(try conn.fetchAll(request) == expected, "\(text)")
            #expect(try conn.fetchOne(request) == expected.first, "\(text)")
            #expect(try conn.fetchOne(request.reversed()) == expected.last, "\(text)")
            #expect(try conn.fetchAll(request.limit(3, offset: 1)) == Array(expected.dropFirst().prefix(3)))
        }
    }
}
