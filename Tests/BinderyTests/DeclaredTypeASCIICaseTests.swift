import Foundation
import Testing

@testable import Bindery

/// SQLite reads declared types and keywords with ASCII case folding only: `ınteger` (dotless ı,
/// U+0131) is not `INTEGER`, and `ﬂoat` (the ligature U+FB02) is not `FLOAT`, though Swift's
/// `uppercased()` maps both to those words. Bindery reads them as SQLite does.
@Suite struct DeclaredTypeASCIICaseTests {
    struct Item: Record, Equatable {
        static let tableName = "item"
        var id: Int64?
        var name: String
    }

    /// `id ınteger PRIMARY KEY` is no alias of the rowid: an id left nil is stored as NULL, and
    /// ``Connection/insert(_:onConflict:)`` must not report the rowid as the id.
    @Test func aDottlessIntegerKeyIsNoRowidAlias() throws {
        let conn = try Connection(path: ":memory:")
        try conn.execute(script: "CREATE TABLE item (id \u{131}nteger PRIMARY KEY, name TEXT NOT NULL)")
        let stored = try conn.insert(Item(id: nil, name: "a"))
        let inserted = try conn.insert(Item(id: nil, name: "b"))
        let rows = try conn.fetchAll(Item.self, sql: "SELECT id, name FROM item ORDER BY rowid")
        #expect(rows == [Item(id: nil, name: "a"), Item(id: nil, name: "b")])
        #expect(stored == rows[0])
        #expect(inserted == rows[1])
    }

    /// `ﬂoat` has NUMERIC affinity (no REAL): 2.0 is stored as the INTEGER 2, and a `SQLiteValue`
    /// property comes back as SQLite stored it.
    @Test func aLigatureFloatColumnHasNumericAffinity() throws {
        struct Measure: Record, Equatable {
            static let tableName = "measure"
            var id: Int64
            var value: SQLiteValue
        }
        let conn = try Connection(path: ":memory:")
        try conn.execute(script: "CREATE TABLE measure (id INTEGER PRIMARY KEY, value \u{FB02}oat)")
        let stored = try conn.insert(Measure(id: 1, value: .real(2)))
        let read = try conn.find(Measure.self, id: 1)
        #expect(read?.value == .integer(2))
        #expect(stored == read)
    }

    /// `varchar` with a combining accent after its `r` holds `CHAR` in its bytes, where SQLite looks:
    /// TEXT affinity, so the INTEGER 5 is stored as the TEXT "5" (a search by characters missed it).
    @Test func aTypeIsSearchedInItsBytes() throws {
        struct Note: Record, Equatable {
            static let tableName = "note"
            var id: Int64
            var value: SQLiteValue
        }
        let conn = try Connection(path: ":memory:")
        try conn.execute(script: "CREATE TABLE note (id INTEGER PRIMARY KEY, value varchar\u{301})")
        let stored = try conn.insert(Note(id: 1, value: .integer(5)))
        let read = try conn.find(Note.self, id: 1)
        #expect(read?.value == .text("5"))
        #expect(stored == read)
    }
}
