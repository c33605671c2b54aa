import Foundation
import Testing

@testable import Bindery

/// A record's own column absent from the row throws `DecodingError.keyNotFound` naming it, optional
/// property or not: nil means NULL, not "not selected".
@Suite struct QuietConversionMissingColumnTests {
    enum Status: String, Codable, Sendable { case open, shut }

    struct Item: Record, Equatable {
        static let tableName = "item"
        var id: Int64?
        var name: String?
        var count: Int?
        var seen: Date?
        var status: Status?
        var extra: SQLiteValue?
    }

    static let schema = """
        CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, count INTEGER, seen TEXT, status TEXT, extra);
        INSERT INTO item (name) VALUES ('a');
        """

    @Test(arguments: ["name", "count", "seen", "status", "extra"])
    func anAbsentColumnThrows(column: String) throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        let selected = ["id", "name", "count", "seen", "status", "extra"].filter { $0 != column }
        let sql = SQL(text: "SELECT \(selected.joined(separator: ", ")) FROM item")
        do {
            let items = try conn.fetchAll(Item.self, sql: sql)
            Issue.record("read \(items) without \(column)")
        } catch DecodingError.keyNotFound(let key, let context) {
            #expect(key.stringValue == column)
            #expect(context.debugDescription.contains("no column \"\(column)\""), "\(context.debugDescription)")
        }
    }

    @Test func everyColumnNullReadsNil() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.schema)
        let items = try conn.fetchAll(Item.self, sql: "SELECT * FROM item")
        #expect(items == [Item(id: 1, name: "a", count: nil, seen: nil, status: nil, extra: nil)])
    }
}
