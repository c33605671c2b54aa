import Foundation
import Testing

@testable import Bindery

/// A `.columns(n)` scope whose width disagrees with the columns its value reads throws, naming the
/// scope: one column short no longer leaves its value's column to the next scope without an error.
@Suite struct QuietConversionScopeTests {
    struct Person: Decodable, Equatable {
        var id: Int64
        var name: String
        var managerId: Int64?
    }

    struct Managed: Decodable, Equatable {
        var person: Person
        var manager: Person?
    }

    static func people() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, managerId INTEGER);
                INSERT INTO people VALUES (1, 'Ceo', NULL), (2, 'Mid', 1), (3, 'Low', 2);
                """)
        return conn
    }

    static let sql: SQL = "SELECT p.*, m.* FROM people p LEFT JOIN people m ON m.id = p.managerId ORDER BY p.id"

    @Test func scopesOfTheRightWidthRead() throws {
        let conn = try Self.people()
        let rows = try conn.fetchAll(
            Managed.self, sql: Self.sql, scopes: [.columns(3, into: "person"), .columns(3, into: "manager")])
        #expect(rows.map(\.manager?.name) == [nil, "Ceo", "Mid"])
    }

    /// One column too wide: the scope names a column its value does not read.
    @Test func aScopeWiderThanItsValueThrows() throws {
        let conn = try Self.people()
        let error = try #require(throws: RowScopeError.self) {
            try conn.fetchAll(
                Managed.self,
                sql: "SELECT p.*, 'x' AS note, m.* FROM people p LEFT JOIN people m ON m.id = p.managerId",
                scopes: [.columns(4, into: "person"), .columns(3, into: "manager")])
        }
        guard case .invalidScope(let property, let reason) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(property == "person")
        #expect(reason.contains("has 4 columns, but Person reads 3"), "\(reason)")
    }

    /// One column short: the value's own column is absent from its scope (an optional property too).
    @Test func aScopeNarrowerThanItsValueThrows() throws {
        let conn = try Self.people()
        let error = try #require(throws: DecodingError.self) {
            try conn.fetchAll(
                Managed.self, sql: Self.sql, scopes: [.columns(2, into: "person"), .columns(4, into: "manager")])
        }
        guard case .keyNotFound(let key, let context) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(key.stringValue == "managerId")
        #expect(context.codingPath.first?.stringValue == "person")
    }
}
