import Foundation
import Testing

@testable import Bindery

/// A `Decodable` whose properties are records (or other keyed structs) decodes from one joined row,
/// each nested value from its own part of the row: by the automatic rule (a record reads the run of
/// columns of its table) or by the scopes given with the query.
@Suite struct JoinedRowTests {
    struct Book: Record, Equatable {
        static let tableName = "books"
        var id: Int64
        var title: String
        var year: Int
    }

    struct Member: Record, Equatable {
        static let tableName = "members"
        var id: Int64
        var name: String
        var joinedOn: Date?
    }

    struct Loan: Record, Equatable {
        static let tableName = "loans"
        var id: Int64
        var bookId: Int64
        var memberId: Int64?
        var note: String?
    }

    struct LoanInfo: Decodable, Sendable, Equatable {
        var loan: Loan
        var book: Book
        var member: Member?
    }

    struct Person: Record, Equatable {
        static let tableName = "people"
        var id: Int64
        var name: String
        var managerId: Int64?
    }

    struct Managed: Decodable, Sendable, Equatable {
        var person: Person
        var manager: Person?
    }

    static let joined = """
        SELECT loans.*, books.*, members.* FROM loans JOIN books ON books.id = loans.bookId
        LEFT JOIN members ON members.id = loans.memberId ORDER BY loans.id
        """

    /// Loans 101…103 of books 11 and 12 by members 21 and 22; loan 103 has no member. Every table's
    /// ids differ from the others', so that a value read from the wrong table shows.
    static func library() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER NOT NULL);
                CREATE TABLE members (id INTEGER PRIMARY KEY, name TEXT NOT NULL, joinedOn TEXT);
                CREATE TABLE loans (id INTEGER PRIMARY KEY, bookId INTEGER NOT NULL, memberId INTEGER, note TEXT);
                CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, managerId INTEGER);
                INSERT INTO books VALUES (11, 'Dune', 1965), (12, 'Emma', 1815);
                INSERT INTO members VALUES (21, 'Ana', '2024-03-01 00:00:00.000'), (22, 'Bo', NULL);
                INSERT INTO loans VALUES (101, 11, 21, 'first'), (102, 12, 22, NULL), (103, 11, NULL, 'walk-in');
                INSERT INTO people VALUES (1, 'Ceo', NULL), (2, 'Mid', 1), (3, 'Low', 2);
                """)
        return conn
    }

    static let expected: [LoanInfo] = [
        LoanInfo(
            loan: Loan(id: 101, bookId: 11, memberId: 21, note: "first"),
            book: Book(id: 11, title: "Dune", year: 1965),
            member: Member(id: 21, name: "Ana", joinedOn: Date(timeIntervalSince1970: 1_709_251_200))),
        LoanInfo(
            loan: Loan(id: 102, bookId: 12, memberId: 22, note: nil),
            book: Book(id: 12, title: "Emma", year: 1815),
            member: Member(id: 22, name: "Bo", joinedOn: nil)),
        LoanInfo(
            loan: Loan(id: 103, bookId: 11, memberId: nil, note: "walk-in"),
            book: Book(id: 11, title: "Dune", year: 1965),
            member: nil),
    ]

    @Test func innerAndLeftJoinDecodeEachRecordFromItsOwnColumns() throws {
        let conn = try Self.library()
        #expect(try conn.fetchAll(LoanInfo.self, sql: SQL(stringLiteral: Self.joined)) == Self.expected)
        // The statement and its decoder are reused: a second fetch reads the same.
        #expect(try conn.fetchAll(LoanInfo.self, sql: SQL(stringLiteral: Self.joined)) == Self.expected)
    }

    @Test func leftJoinMissIsNilAndInterpolationStillBinds() throws {
        let conn = try Self.library()
        let info = try conn.fetchOne(
            LoanInfo.self,
            sql: """
                SELECT loans.*, books.*, members.* FROM loans JOIN books ON books.id = loans.bookId
                LEFT JOIN members ON members.id = loans.memberId WHERE loans.id = \(103)
                """)
        #expect(info == Self.expected[2])
        #expect(info?.member == nil)
    }

    @Test func requiredNestedValueWithAllColumnsNullThrowsNamingIt() throws {
        struct StrictLoan: Decodable {
            var loan: Loan
            var member: Member
        }
        let conn = try Self.library()
        let error = try #require(throws: RowScopeError.self) {
            try conn.fetchAll(
                StrictLoan.self,
                sql: "SELECT loans.*, members.* FROM loans LEFT JOIN members ON members.id = loans.memberId")
        }
        #expect(error == .allNull(property: "member", type: "Member"))
        #expect(error.description.contains("\"member\""))
    }

    @Test func aliasedTablesFollowTheirOriginTable() throws {
        let conn = try Self.library()
        let rows = try conn.fetchAll(
            LoanInfo.self,
            sql: """
                SELECT l.*, b.*, m.* FROM loans AS l JOIN books AS b ON b.id = l.bookId
                LEFT JOIN members m ON m.id = l.memberId ORDER BY l.id
                """)
        #expect(rows == Self.expected)
    }

    @Test func propertiesInAnyOrderAndExtraTopLevelColumns() throws {
        struct Listing: Decodable, Equatable {
            var member: Member?
            var overdue: Bool
            var book: Book
        }
        let conn = try Self.library()
        let rows = try conn.fetchAll(
            Listing.self,
            sql: """
                SELECT books.*, loans.id > 102 AS overdue, members.* FROM loans JOIN books ON books.id = loans.bookId
                LEFT JOIN members ON members.id = loans.memberId ORDER BY loans.id
                """)
        #expect(rows.map(\.book.id) == [11, 12, 11])
        #expect(rows.map(\.member?.id) == [21, 22, nil])
        #expect(rows.map(\.overdue) == [false, false, true])
    }

    @Test func selfJoinWithScopesGivenWithTheQuery() throws {
        let conn = try Self.library()
        let sql: SQL = "SELECT p.*, m.* FROM people p LEFT JOIN people m ON m.id = p.managerId ORDER BY p.id"
        let expected = [
            Managed(person: Person(id: 1, name: "Ceo", managerId: nil), manager: nil),
            Managed(
                person: Person(id: 2, name: "Mid", managerId: 1), manager: Person(id: 1, name: "Ceo", managerId: nil)),
            Managed(
                person: Person(id: 3, name: "Low", managerId: 2), manager: Person(id: 2, name: "Mid", managerId: 1)),
        ]
        let byTable = try conn.fetchAll(
            Managed.self, sql: sql, scopes: [.table("people", into: "person"), .table("people", into: "manager")])
        #expect(byTable == expected)
        let byRecord = try conn.fetchAll(
            Managed.self, sql: sql,
            scopes: [.record(Person.self, into: "person"), .record(Person.self, into: "manager")])
        #expect(byRecord == expected)
        let byCount = try conn.fetchAll(
            Managed.self, sql: sql, scopes: [.columns(3, into: "person"), .columns(3, into: "manager")])
        #expect(byCount == expected)
    }

    @Test func columnNamePrefixesNameTheScope() throws {
        struct Summary: Decodable, Equatable {
            var title: String
            var year: Int
        }
        struct Shelf: Decodable, Equatable {
            var id: Int64
            var summary: Summary?
        }
        let conn = try Self.library()
        let managed = try conn.fetchAll(
            Managed.self,
            sql: """
                SELECT p.id AS "person.id", p.name AS "person.name", p.managerId AS "person.managerId",
                m.id AS "Manager.id", m.name AS "Manager.name", m.managerId AS "Manager.managerId"
                FROM people p LEFT JOIN people m ON m.id = p.managerId ORDER BY p.id
                """)
        #expect(managed.map(\.person.id) == [1, 2, 3])
        #expect(managed.map(\.manager?.id) == [nil, 1, 2])
        #expect(managed.map(\.manager?.name) == [nil, "Ceo", "Mid"])
        // A nested struct that is no record, beside a column of the outer struct.
        let shelves = try conn.fetchAll(
            Shelf.self,
            sql: """
                SELECT loans.id, books.title AS "summary.title", books.year AS "summary.year"
                FROM loans JOIN books ON books.id = loans.bookId ORDER BY loans.id
                """)
        #expect(shelves.map(\.summary?.title) == ["Dune", "Emma", "Dune"])
        #expect(shelves.map(\.id) == [101, 102, 103])
        // Prefixed columns apart from each other are refused.
        let error = try #require(throws: RowScopeError.self) {
            try conn.fetchAll(
                Shelf.self,
                sql: """
                    SELECT books.title AS "summary.title", loans.id, books.year AS "summary.year"
                    FROM loans JOIN books ON books.id = loans.bookId
                    """)
        }
        #expect(
            error
                == .invalidScope(
                    property: "summary", reason: "has columns named \"summary.…\" that are not side by side in the row")
        )
    }

    @Test func selfJoinWithoutScopesThrowsInsteadOfGuessing() throws {
        let conn = try Self.library()
        let error = try #require(throws: RowScopeError.self) {
            try conn.fetchAll(
                Managed.self, sql: "SELECT p.*, m.* FROM people p LEFT JOIN people m ON m.id = p.managerId")
        }
        #expect(error == .ambiguousTable(property: "person", table: "people", other: nil))
    }

    @Test func twoPropertiesClaimingOneRunThrows() throws {
        struct Twice: Decodable {
            var person: Person
            var boss: Person
        }
        let conn = try Self.library()
        let error = try #require(throws: RowScopeError.self) {
            try conn.fetchAll(Twice.self, sql: "SELECT * FROM people")
        }
        #expect(error == .ambiguousTable(property: "boss", table: "people", other: "person"))
    }

    @Test func nestedKeyedStructThatIsNoRecordReadsAGivenScope() throws {
        struct Summary: Decodable, Equatable {
            var title: String
            var year: Int
        }
        struct LoanSummary: Decodable, Equatable {
            var loan: Loan
            var summary: Summary
        }
        let conn = try Self.library()
        let sql: SQL = """
            SELECT loans.*, books.title, books.year FROM loans JOIN books ON books.id = loans.bookId ORDER BY loans.id
            """
        let rows = try conn.fetchAll(
            LoanSummary.self, sql: sql, scopes: [.record(Loan.self, into: "loan"), .columns(2, into: "summary")])
        #expect(
            rows.map(\.summary) == [
                .init(title: "Dune", year: 1965), .init(title: "Emma", year: 1815), .init(title: "Dune", year: 1965),
            ])
        #expect(rows.map(\.loan.id) == [101, 102, 103])
        // Without scopes, a nested type that is no record has no table to find: its key is missing.
        #expect(throws: DecodingError.self) { try conn.fetchAll(LoanSummary.self, sql: sql) }
    }

    @Test func nestedColumnDecodableRecordReadsItsOwnColumns() throws {
        struct FastBook: Record, ColumnDecodable, Equatable {
            static let tableName = "books"
            var id: Int64
            var title: String
            init(id: Int64, title: String) {
                self.id = id
                self.title = title
            }
            init(columns: ColumnReader) throws {
                id = try columns.decode(Int64.self, forKey: "id")
                title = try columns.decode(String.self, forKey: "title")
            }
        }
        struct FastLoan: Decodable, Equatable {
            var loan: Loan
            var book: FastBook
        }
        let conn = try Self.library()
        let rows = try conn.fetchAll(
            FastLoan.self,
            sql: "SELECT loans.*, books.* FROM loans JOIN books ON books.id = loans.bookId ORDER BY loans.id")
        #expect(
            rows.map(\.book) == [
                .init(id: 11, title: "Dune"), .init(id: 12, title: "Emma"), .init(id: 11, title: "Dune"),
            ])
        #expect(rows.map(\.loan.id) == [101, 102, 103])
    }

    @Test func flatStructsDecodeAsBefore() throws {
        struct Flat: Decodable, Equatable {
            var id: Int64
            var title: String
            var name: String?
            var joinedOn: Date?
        }
        struct Ambiguous: Decodable {
            var id: Int64
        }
        let conn = try Self.library()
        let rows = try conn.fetchAll(
            Flat.self,
            sql: """
                SELECT loans.id, books.title, members.name, NULL AS joinedOn FROM loans
                JOIN books ON books.id = loans.bookId LEFT JOIN members ON members.id = loans.memberId
                ORDER BY loans.id
                """)
        // A NULL optional column is nil, as ever (an absent one throws: see
        // QuietConversionMissingColumnTests).
        #expect(
            rows == [
                Flat(id: 101, title: "Dune", name: "Ana", joinedOn: nil),
                Flat(id: 102, title: "Emma", name: "Bo", joinedOn: nil),
                Flat(id: 103, title: "Dune", name: nil, joinedOn: nil),
            ])
        // A name that two tables share is still refused, never picked.
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(Ambiguous.self, sql: SQL(stringLiteral: Self.joined))
        }
        #expect("\(error)".contains("appears 3 times"))
        // A nested value stored as JSON in a column of its name still reads that column.
        struct WithJSON: Decodable, Equatable {
            var id: Int64
            var book: Book
        }
        let json = try conn.fetchOne(
            WithJSON.self, sql: "SELECT 1 AS id, '{\"id\":5,\"title\":\"T\",\"year\":2000}' AS book")
        #expect(json == WithJSON(id: 1, book: Book(id: 5, title: "T", year: 2000)))
    }

    @Test func cursorsDecodeNestedValues() throws {
        let conn = try Self.library()
        let cursor = try conn.fetchCursor(LoanInfo.self, sql: SQL(stringLiteral: Self.joined))
        var read: [LoanInfo] = []
        while let info = try cursor.next() {
            read.append(info)
        }
        #expect(read == Self.expected)
        let scoped = try conn.fetchCursor(
            Managed.self, sql: "SELECT p.*, m.* FROM people p LEFT JOIN people m ON m.id = p.managerId ORDER BY p.id",
            scopes: [.columns(3, into: "person"), .columns(3, into: "manager")])
        var managers: [Int64?] = []
        while let row = try scoped.next() {
            managers.append(row.manager?.id)
        }
        #expect(managers == [nil, 1, 2])
    }

    @Test func databaseDecodesNestedValuesToo() async throws {
        let db = try Database.inMemory()
        try await db.write { conn in
            try conn.execute(
                script: """
                    CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER NOT NULL);
                    CREATE TABLE members (id INTEGER PRIMARY KEY, name TEXT NOT NULL, joinedOn TEXT);
                    CREATE TABLE loans (id INTEGER PRIMARY KEY, bookId INTEGER NOT NULL, memberId INTEGER, note TEXT);
                    CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, managerId INTEGER);
                    INSERT INTO books VALUES (11, 'Dune', 1965), (12, 'Emma', 1815);
                    INSERT INTO members VALUES (21, 'Ana', '2024-03-01 00:00:00.000'), (22, 'Bo', NULL);
                    INSERT INTO loans VALUES (101, 11, 21, 'first'), (102, 12, 22, NULL), (103, 11, NULL, 'walk-in');
                    INSERT INTO people VALUES (1, 'Ceo', NULL), (2, 'Mid', 1), (3, 'Low', 2);
                    """)
        }
        #expect(try await db.fetchAll(LoanInfo.self, sql: SQL(stringLiteral: Self.joined)) == Self.expected)
        let one = try await db.fetchOne(
            LoanInfo.self,
            sql: """
                SELECT loans.*, books.*, members.* FROM loans JOIN books ON books.id = loans.bookId
                LEFT JOIN members ON members.id = loans.memberId WHERE loans.id = \(102)
                """)
        #expect(one == Self.expected[1])
        let sql: SQL = "SELECT p.*, m.* FROM people p LEFT JOIN people m ON m.id = p.managerId ORDER BY p.id"
        let scopes: [RowScope] = [.record(Person.self, into: "person"), .record(Person.self, into: "manager")]
        let all = try await db.fetchAll(Managed.self, sql: sql, scopes: scopes)
        #expect(all.map(\.manager?.name) == [nil, "Ceo", "Mid"])
        let low = try await db.fetchOne(
            Managed.self,
            sql: "SELECT p.*, m.* FROM people p LEFT JOIN people m ON m.id = p.managerId WHERE p.id = \(3)",
            scopes: scopes)
        #expect(low?.manager?.id == 2)
        var names: [String] = []
        for try await row in db.fetchCursor(Managed.self, sql: sql, scopes: scopes) {
            names.append(row.person.name)
        }
        #expect(names == ["Ceo", "Mid", "Low"])
        var books: [Int64] = []
        for try await row in db.fetchCursor(LoanInfo.self, sql: SQL(stringLiteral: Self.joined)) {
            books.append(row.book.id)
        }
        #expect(books == [11, 12, 11])
    }
}
