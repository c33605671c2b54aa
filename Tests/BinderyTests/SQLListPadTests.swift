import Foundation
import Testing

@testable import Bindery

/// The placeholders that pad a list after `IN`, kept with the built text (``SQLText``): they must
/// follow the text and the values wherever fragments are joined, and leave a literal nothing to carry.
@Suite struct SQLListPadTests {
    static var encoder: ValueEncoder { ValueEncoder(options: CodingOptions()) }

    @Test func twoPaddedListsJoinedKeepBothPads() throws {
        let joined: SQL = "a IN \(list: [1, 2, 3])" + " AND b IN \(list: [4, 5, 6])"
        #expect(joined.text == "a IN (?, ?, ?, ?) AND b IN (?, ?, ?, ?)")
        #expect(joined.withoutListPadding.text == "a IN (?, ?, ?) AND b IN (?, ?, ?)")
        #expect(joined.withoutListPadding.valueDescriptions == ["1", "2", "3", "4", "5", "6"])
        #expect(try joined.inlined(encoder: Self.encoder) == "a IN (1, 2, 3) AND b IN (4, 5, 6)")
    }

    @Test func aListAfterValuesWithoutTextShiftsItsPadPastThem() throws {
        // Empty text with values, then a padded list: the pad's text offset stays, its value index moves.
        let values = SQL(text: "", values: [Int64(7), Int64(8)])
        let joined = values + "b IN \(list: [1, 2, 3])"
        #expect(joined.text == "b IN (?, ?, ?, ?)")
        #expect(joined.withoutListPadding.text == "b IN (?, ?, ?)")
        #expect(joined.withoutListPadding.valueDescriptions == ["7", "8", "1", "2", "3"])
    }

    @Test func aPaddedListJoinedToEmptySQLKeepsItsPad() throws {
        var sql: SQL = ""
        sql += "b NOT IN \(list: ["x", "y", "z"])"
        #expect(sql.text == "b NOT IN (?, ?, ?, ?)")
        #expect(try sql.inlined(encoder: Self.encoder) == "b NOT IN ('x', 'y', 'z')")
    }

    @Test func aPaddedListEmbeddedAndAppendedToMovesItsPad() throws {
        let list: SQL = "b IN \(list: [10, 20, 30])"
        let embedded: SQL = "a = \(Int64(1)) OR \(list) OR c = \("é")"
        #expect(embedded.text == "a = ? OR b IN (?, ?, ?, ?) OR c = ?")
        #expect(embedded.withoutListPadding.text == "a = ? OR b IN (?, ?, ?) OR c = ?")
        #expect(try embedded.inlined(encoder: Self.encoder) == "a = 1 OR b IN (10, 20, 30) OR c = 'é'")
        let appended = embedded + " AND d IN \(list: [5, 6, 7, 8, 9])"
        #expect(
            try appended.inlined(encoder: Self.encoder)
                == "a = 1 OR b IN (10, 20, 30) OR c = 'é' AND d IN (5, 6, 7, 8, 9)")
        // The first fragment is unchanged by what was appended to its copy.
        #expect(try embedded.inlined(encoder: Self.encoder) == "a = 1 OR b IN (10, 20, 30) OR c = 'é'")
    }

    @Test func paddedListsRunAsWritten() throws {
        let conn = try Connection.inMemory()
        try conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT)")
        try conn.execute("INSERT INTO t VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 3, 'z'), (4, 4, 'w')")
        let condition: SQL = "a IN \(list: [1, 2, 3])" + " AND b NOT IN \(list: ["y", "q", "r"])"
        let ids = try conn.fetchAll(Int64.self, sql: "SELECT id FROM t WHERE \(condition) ORDER BY id")
        #expect(ids == [1, 3])
    }
}
