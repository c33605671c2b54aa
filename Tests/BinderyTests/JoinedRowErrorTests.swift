import Foundation
import Testing

@testable import Bindery

/// A joined row that does not split into the nested values a type asks for throws a typed error
/// naming the property (the scope) at fault; nothing is decoded wrong.
@Suite struct JoinedRowErrorTests {
    typealias Book = JoinedRowTests.Book
    typealias Member = JoinedRowTests.Member
    typealias Loan = JoinedRowTests.Loan
    typealias LoanInfo = JoinedRowTests.LoanInfo
    typealias Person = JoinedRowTests.Person
    typealias Managed = JoinedRowTests.Managed

    static let selfJoin: SQL = "SELECT p.*, m.* FROM people p LEFT JOIN people m ON m.id = p.managerId"

    static func scopeError(
        _ conn: Connection, _ sql: SQL, _ scopes: [RowScope], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RowScopeError {
        try #require(throws: RowScopeError.self, sourceLocation: sourceLocation) {
            try conn.fetchAll(Managed.self, sql: sql, scopes: scopes)
        }
    }

    @Test func columnsLeftOverAfterTheLastScope() throws {
        let conn = try JoinedRowTests.library()
        let error = try Self.scopeError(conn, Self.selfJoin, [.columns(3, into: "person")])
        #expect(error == .columnsLeftOver(columns: ["id", "name", "managerId"]))
        #expect(error.localizedDescription == error.description)
        #expect(error.description.contains("3 columns left over"))
    }

    @Test func scopeTakingMoreColumnsThanTheRowHas() throws {
        let conn = try JoinedRowTests.library()
        let error = try Self.scopeError(
            conn, Self.selfJoin, [.columns(3, into: "person"), .columns(4, into: "manager")])
        #expect(error == .scopeOverrunsRow(property: "manager", wanted: 4, available: 3))
        #expect(error.description.contains("\"manager\""))
    }

    @Test func tableScopeOverColumnsOfAnotherTable() throws {
        let conn = try JoinedRowTests.library()
        let error = try Self.scopeError(
            conn, "SELECT p.*, b.* FROM people p, books b",
            [.table("people", into: "person"), .table("people", into: "manager")])
        #expect(error == .tableMismatch(property: "manager", table: "people", position: 3, found: "id", expected: "id"))
        let reordered = try Self.scopeError(
            conn, "SELECT p.name, p.id, p.managerId, m.* FROM people p, people m",
            [.table("people", into: "person"), .table("people", into: "manager")])
        #expect(
            reordered == .tableMismatch(property: "person", table: "people", position: 0, found: "name", expected: "id")
        )
    }

    @Test func unknownTableAndInvalidScopes() throws {
        let conn = try JoinedRowTests.library()
        #expect(
            try Self.scopeError(conn, Self.selfJoin, [.table("nope", into: "person")])
                == .unknownTable(property: "person", table: "nope"))
        #expect(
            try Self.scopeError(conn, Self.selfJoin, [.columns(0, into: "person"), .columns(6, into: "manager")])
                == .invalidScope(property: "person", reason: "takes 0 columns"))
        #expect(
            try Self.scopeError(conn, Self.selfJoin, [.columns(3, into: "person"), .columns(3, into: "person")])
                == .invalidScope(property: "person", reason: "is given twice"))
    }

    @Test func nestedRecordWhoseColumnsAreMissing() throws {
        let conn = try JoinedRowTests.library()
        // Required: no column of the books table is selected.
        let required = try #require(throws: RowScopeError.self) {
            try conn.fetchAll(LoanInfo.self, sql: "SELECT loans.*, members.* FROM loans, members")
        }
        #expect(required == .missingColumns(property: "book", type: "Book", table: "books"))
        // Optional: forgetting `members.*` is no LEFT JOIN miss, and is not taken for one.
        let optional = try #require(throws: RowScopeError.self) {
            try conn.fetchAll(LoanInfo.self, sql: "SELECT loans.*, books.* FROM loans, books")
        }
        #expect(optional == .missingColumns(property: "member", type: "Member", table: "members"))
        #expect(optional.description.contains("\"member\""))
    }

    @Test func propertyMissingFromTheGivenScopes() throws {
        let conn = try JoinedRowTests.library()
        #expect(
            try Self.scopeError(conn, "SELECT * FROM people", [.columns(3, into: "manager")])
                == .missingColumns(property: "person", type: "Person", table: nil))
        // A misspelt scope leaves the optional manager out: an error, not nil on every row.
        #expect(
            try Self.scopeError(conn, Self.selfJoin, [.columns(3, into: "person"), .columns(3, into: "manger")])
                == .missingColumns(property: "manager", type: "Person", table: nil))
    }

    @Test func columnMissingInsideAScopeNamesTheScope() throws {
        let conn = try JoinedRowTests.library()
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(
                LoanInfo.self,
                sql: """
                    SELECT loans.*, books.id, books.title, members.* FROM loans JOIN books ON books.id = loans.bookId
                    LEFT JOIN members ON members.id = loans.memberId
                    """)
        }
        guard case .keyNotFound(let key, let context) = error else {
            Issue.record("expected keyNotFound, got \(error)")
            return
        }
        #expect(key.stringValue == "year")
        #expect(context.codingPath.map(\.stringValue) == ["book"])
        #expect(context.debugDescription.contains("no column \"year\" in the columns of \"book\" (columns: id, title)"))
    }

    @Test func badValueInsideAScopeNamesThePath() throws {
        let conn = try JoinedRowTests.library()
        try conn.execute("UPDATE books SET year = 'unknown' WHERE id = 12")
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(LoanInfo.self, sql: SQL(stringLiteral: JoinedRowTests.joined))
        }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("expected typeMismatch, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["book", "year"])
    }

    @Test func columnNameTwiceInOneScopeStillThrows() throws {
        struct Solo: Decodable {
            var person: Person
        }
        let conn = try JoinedRowTests.library()
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(Solo.self, sql: Self.selfJoin, scopes: [.columns(6, into: "person")])
        }
        #expect("\(error)".contains("column \"id\" appears 2 times in the row (positions 0 and 3)"))
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["person", "id"])
    }

    @Test func scopeForAValueThatIsNotKeyed() throws {
        struct Stamped: Decodable {
            var person: Person
            var when: Date
        }
        struct Listed: Decodable {
            var person: Person
            var names: Names
        }
        struct Names: Decodable {
            var all: [String]
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                all = [try container.decode(String.self)]
            }
        }
        let conn = try JoinedRowTests.library()
        let sql: SQL = "SELECT p.*, 'x' FROM people p"
        let scalar = try #require(throws: RowScopeError.self) {
            try conn.fetchAll(Stamped.self, sql: sql, scopes: [.columns(3, into: "person"), .columns(1, into: "when")])
        }
        #expect(scalar == .notKeyed(property: "when", type: "Date"))
        let unkeyed = try #require(throws: RowScopeError.self) {
            try conn.fetchAll(Listed.self, sql: sql, scopes: [.columns(3, into: "person"), .columns(1, into: "names")])
        }
        #expect(unkeyed == .notKeyed(property: "names", type: "Names"))
    }
}
