import Foundation
import Testing

@testable import Bindery

/// SQL texts are told apart by their bytes, as SQLite reads them, wherever a text is kept to be used
/// again (the statement cache, the texts kept around a record call's condition, a plain request's
/// text, a search table's definition): never by Swift's canonical equivalence of `String`s, which holds
/// "café" composed and decomposed, or "K" and the Kelvin sign, equal. The expected answers are SQLite's
/// own (python3's sqlite3 module runs the same texts: `hex('café')` composed is 636166C3A9, decomposed
/// 63616665CC81; the two tables are two tables; the decomposed literal matches no composed name).
@Suite struct StatementTextExactnessTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    struct Item: Record {
        static let tableName = "item"
        var id: Int64?
        var name: String
    }

    private func hexOfLiteral(_ text: String, _ conn: Connection) throws -> String? {
        try conn.rows("SELECT hex('\(text)')", arguments: []).first.map { try $0[0] as String }
    }

    @Test func twoSpellingsOfALiteralAreTwoStatements() throws {
        let conn = try Connection.inMemory()
        #expect(try hexOfLiteral(Self.composed, conn) == "636166C3A9")
        #expect(try hexOfLiteral(Self.decomposed, conn) == "63616665CC81")
        #expect(try hexOfLiteral("K", conn) == "4B")
        #expect(try hexOfLiteral("\u{212A}", conn) == "E284AA")
        // Asked again, each finds its own statement.
        #expect(try hexOfLiteral(Self.composed, conn) == "636166C3A9")
    }

    @Test func twoSpellingsOfATableAreTwoTables() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE \"\(Self.composed)\"(x); CREATE TABLE \"\(Self.decomposed)\"(x)")
        try conn.execute("INSERT INTO \"\(Self.composed)\" VALUES (1)", arguments: [])
        try conn.execute("INSERT INTO \"\(Self.decomposed)\" VALUES (1)", arguments: [])
        try conn.execute("INSERT INTO \"\(Self.decomposed)\" VALUES (2)", arguments: [])
        let count = { (table: String) in
            try conn.rows("SELECT count(*) FROM \"\(table)\"", arguments: []).first?.values
        }
        #expect(try count(Self.composed) == [.integer(1)])
        #expect(try count(Self.decomposed) == [.integer(2)])
    }

    @Test func aRecordCallsConditionIsKeptByItsBytes() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT)")
        try conn.insert(Item(id: nil, name: Self.composed))
        let composedCondition = SQL(stringLiteral: "name = '\(Self.composed)'")
        let decomposedCondition = SQL(stringLiteral: "name = '\(Self.decomposed)'")
        #expect(try conn.count(Item.self, where: composedCondition) == 1)
        #expect(try conn.count(Item.self, where: decomposedCondition) == 0)
        #expect(try conn.exists(Item.self, where: composedCondition))
        #expect(try !conn.exists(Item.self, where: decomposedCondition))
        #expect(try conn.fetchOne(Item.self, where: composedCondition)?.name == Self.composed)
        #expect(try conn.fetchOne(Item.self, where: decomposedCondition) == nil)
        #expect(try conn.delete(Item.self, where: decomposedCondition) == 0)
        #expect(try conn.rows("SELECT count(*) FROM item", arguments: []).first?.values == [.integer(1)])
    }

    @Test func aPlainRequestsTextIsKeptByItsBytes() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT)")
        try conn.insert(Item(id: nil, name: Self.composed))
        let composed = Item.all().filter(SQL(stringLiteral: "name = '\(Self.composed)'"))
        let decomposed = Item.all().filter(SQL(stringLiteral: "name = '\(Self.decomposed)'"))
        #expect(try conn.fetchOne(composed)?.name == Self.composed)
        #expect(try conn.fetchOne(decomposed) == nil)
        #expect(try conn.fetchAll(decomposed).isEmpty)
    }

    @Test func aSearchTableOverAnotherSpeltColumnIsAnotherDefinition() throws {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: "CREATE TABLE notes(id INTEGER PRIMARY KEY, \"\(Self.composed)\" TEXT, \"\(Self.decomposed)\" TEXT)"
        )
        try conn.create(searchTable: "notes_fts", on: "notes", columns: [Self.composed])
        #expect(throws: SearchTableError.self) {
            try conn.create(searchTable: "notes_fts", on: "notes", columns: [Self.decomposed], ifNotExists: true)
        }
    }
}
