import Foundation
import Testing

@testable import Bindery

/// SQL written as one literal with at most one value after it stays the literal (``SQLText``), its
/// `?` written only when the text is read: every way of reading, joining, comparing and running it
/// sees the same text as one built as a `String` (issue 39).
@Suite struct SQLLiteralTextTests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64
        var a: Int64
        var b: Int64
    }

    static func items() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER)")
        try conn.insert(contentsOf: [Item(id: 1, a: 10, b: 20), Item(id: 2, a: 20, b: 10), Item(id: 3, a: 1, b: 1)])
        return conn
    }

    @Test func aLiteralReadsAsItsText() throws {
        let lone: SQL = "a = \(10)"
        #expect(lone.text == "a = ?")
        #expect(lone.valueCount == 1)
        guard case .literal(_, placeholder: true) = lone.storage else {
            Issue.record("a lone literal with one value became a String: \(lone.storage)")
            return
        }
        let plain: SQL = "a = 1"
        #expect(plain.text == "a = 1")
        let long: SQL = "SELECT * FROM items WHERE a = \(10)"
        #expect(long.text == "SELECT * FROM items WHERE a = ?")
        #expect(long.storage.utf8Count == long.text.utf8.count)
        // A literal of one Unicode scalar, which the compiler may hand over without bytes in memory.
        let one: SQL = "1"
        #expect(one.text == "1")
        let accented: SQL = "é"
        #expect(accented.text == "é")
        let empty: SQL = ""
        #expect(empty.text.isEmpty)
        #expect(empty.storage.isEmpty)
        // From a String, not a literal.
        let written = "a = 1 AND b = 2"
        #expect(SQL(stringLiteral: written).text == written)
    }

    @Test func textWrittenAfterTheLiteralIsAppended() throws {
        let two: SQL = "a = \(1) AND b = \(2)"
        #expect(two.text == "a = ? AND b = ?")
        #expect(two.valueCount == 2)
        let after: SQL = "a = \(1) LIMIT 1"
        #expect(after.text == "a = ? LIMIT 1")
        let joined: SQL = "a = \(1)" + " AND b = \(2)"
        #expect(joined.text == "a = ? AND b = ?")
        let empty: SQL = ""
        #expect((empty + "a = \(1)").text == "a = ?")
        let inner: SQL = "b = \(2)"
        #expect(("a = \(1) AND \(inner)" as SQL).text == "a = ? AND b = ?")
        #expect(("x = \(raw: "y") AND a = \(1)" as SQL).text == "x = y AND a = ?")
        #expect(("\(identifier: "my col") = \(1)" as SQL).text == "\"my col\" = ?")
        #expect(("a IN \(list: [1, 2, 3])" as SQL).text == "a IN (?, ?, ?, ?)")
        #expect(("a IN (\(1), \(2))" as SQL).text == "a IN (?, ?)")
        // Values first, values one after another, and optional values, which bind NULL when nil.
        #expect(("\(1) = a" as SQL).text == "? = a")
        #expect(("\(1)\(2)" as SQL).text == "??")
        let some: Int64? = 10
        let none: Int64? = nil
        #expect(("a = \(some)" as SQL).text == "a = ?")
        #expect(("a IS \(none) AND b = \(some)" as SQL).text == "a IS ? AND b = ?")
        let conn = try Self.items()
        #expect(try conn.fetchAll(Item.self, where: "a = \(some)").map(\.id) == [1])
        #expect(try conn.fetchAll(Item.self, where: "\(some) = b").map(\.id) == [2])
        #expect(try conn.fetchAll(Item.self, where: "a IS \(none)").isEmpty)
        #expect(try conn.fetchAll(Item.self, where: "a = \(10) OR b = \(10) ORDER BY id").map(\.id) == [1, 2])
        #expect(try conn.fetchAll(Item.self, where: "a IN (\(1), \(20)) ORDER BY id").map(\.id) == [2, 3])
    }

    @Test func aValueRightAfterINInALiteralStillThrows() throws {
        let conn = try Self.items()
        #expect(throws: EncodingError.self) {
            try conn.fetchAll(Item.self, where: "a IN \(10)")
        }
        #expect(throws: EncodingError.self) {
            try conn.fetchAll(Item.self, where: "a in\n\(10)")
        }
    }

    @Test func literalsAreComparedByTheirBytes() {
        func lone(_ sql: SQL) -> SQLText { sql.storage }
        let first = lone("a = \(1)")
        // Another literal of the same bytes, elsewhere in the binary.
        let same = lone("a = \(2)")
        #expect(SQLText.same(first, knownIsASCII: true, same))
        #expect(!SQLText.same(first, knownIsASCII: true, lone("b = \(1)")))
        #expect(!SQLText.same(first, knownIsASCII: true, lone("a = 1")))
        #expect(!SQLText.same(first, knownIsASCII: true, lone("a =  \(1)")))
        // A literal and a String of the same text are the same text.
        #expect(SQLText.same(first, knownIsASCII: true, SQL(text: "a = ?", values: [1]).storage))
        #expect(SQLText.same(SQL(text: "a = ?", values: [1]).storage, knownIsASCII: true, first))
        // Bytes, not canonical equivalence: "é" composed and decomposed are two texts.
        let composed = lone("name = 'caf\u{E9}' AND a = \(1)")
        let decomposed = lone("name = 'cafe\u{301}' AND a = \(1)")
        #expect(!SQLText.same(composed, knownIsASCII: false, decomposed))
    }

    @Test func conditionCallsAlternatingBetweenLiteralsFindTheRightRows() throws {
        let conn = try Self.items()
        for round in 0..<3 {
            // The same value each time: only the texts tell the calls apart.
            let value: Int64 = 10
            #expect(try conn.fetchOne(Item.self, where: "a = \(value)")?.id == 1, "round \(round)")
            #expect(try conn.fetchOne(Item.self, where: "b = \(value)")?.id == 2, "round \(round)")
            #expect(try conn.fetchOne(Item.self, where: SQL(text: "a = ?", values: [value]))?.id == 1)
            #expect(try conn.fetchOne(Item.self, where: "a = 1")?.id == 3)
            #expect(try conn.fetchOne(Item.filter("b = \(value)"))?.id == 2)
            #expect(try conn.fetchOne(Item.filter("a = \(value)"))?.id == 1)
            #expect(try conn.count(Item.self, where: "a = \(value)") == 1)
            #expect(try conn.count(Item.self, where: "a >= \(value)") == 2)
            #expect(try conn.exists(Item.self, where: "b = \(Int64(1))"))
            #expect(try !conn.exists(Item.self, where: "a = \(Int64(2))"))
        }
        // A request of two conditions, each a literal, made again with the conditions swapped.
        #expect(try conn.fetchOne(Item.filter("a = \(10)").filter("b = \(20)"))?.id == 1)
        #expect(try conn.fetchOne(Item.filter("b = \(10)").filter("a = \(20)"))?.id == 2)
        #expect(try conn.fetchOne(Item.filter("b = \(10)").filter("a = \(10)")) == nil)
    }
}
