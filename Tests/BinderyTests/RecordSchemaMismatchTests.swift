import Foundation
import Testing

@testable import Bindery

/// Quoted names, record types that do not match their table, and transient properties.
@Suite struct RecordSchemaMismatchTests {
    /// A table and a column named after SQL keywords.
    struct Order: Record, Equatable {
        static let tableName = "order"
        var id: Int64?
        var group: String
        var select: Int?
    }

    /// A table name that needs its quotes escaped.
    struct Odd: Record, Equatable {
        static let tableName = #"odd "table" name"#
        var id: Int64?
        var value: String
    }

    /// A type with a coding key, `nickname`, that its table lacks.
    struct Person: Record, Equatable {
        static let tableName = "people"
        var id: Int64?
        var name: String
        var nickname: String
    }

    /// A type with a transient property, left out of its coding keys.
    struct Draft: Record, Equatable {
        static let tableName = "drafts"
        var id: Int64?
        var title: String
        var isSelected = false

        enum CodingKeys: String, CodingKey {
            case id, title
        }
    }

    // MARK: Quoting

    @Test func aKeywordTableAndColumnWork() throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Order.self)
        let first = try conn.insert(Order(id: nil, group: "a", select: 1))
        #expect(first == Order(id: 1, group: "a", select: 1))
        try conn.insert(contentsOf: [Order(id: nil, group: "b", select: nil), Order(id: nil, group: "a", select: 3)])
        #expect(try conn.find(Order.self, id: 2) == Order(id: 2, group: "b", select: nil))

        let groupA = try conn.fetchAll(Order.self, where: "\(identifier: "group") = \("a")", orderBy: "\"select\" DESC")
        #expect(groupA.map(\.id) == [3, 1])
        #expect(try conn.fetchOne(Order.self, where: "\"group\" = \("b")")?.id == 2)
        #expect(try conn.count(Order.self, where: "\"group\" = \("a")") == 2)
        #expect(try conn.exists(Order.self, where: "\"select\" = \(3)"))

        try conn.update(Order(id: 2, group: "c", select: 5))
        try conn.update(Order(id: 1, group: "z", select: 9), columns: ["select"])
        #expect(try conn.upsert(Order(id: 3, group: "d", select: nil)) == Order(id: 3, group: "d", select: nil))
        #expect(
            try conn.fetchAll(Order.self, orderBy: "id") == [
                Order(id: 1, group: "a", select: 9), Order(id: 2, group: "c", select: 5),
                Order(id: 3, group: "d", select: nil),
            ])
        #expect(try conn.fetchCursor(Order.self, orderBy: "\"group\"").collect().map(\.group) == ["a", "c", "d"])

        #expect(try conn.delete(Order(id: 1, group: "a", select: 9)))
        #expect(try conn.delete(Order.self, id: 2))
        #expect(try conn.delete(Order.self, where: "\"group\" = \("d")") == 1)
        try conn.insert(Order(id: nil, group: "e", select: nil))
        #expect(try conn.deleteAll(Order.self) == 1)
    }

    @Test func aTableNameWithQuotesWorks() throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Odd.self)
        #expect(try conn.insert(Odd(id: nil, value: "x")) == Odd(id: 1, value: "x"))
        try conn.update(Odd(id: 1, value: "y"))
        #expect(try conn.fetchAll(Odd.self) == [Odd(id: 1, value: "y")])
        #expect(try conn.count(Odd.self) == 1)
        #expect(try conn.delete(Odd.self, id: 1))
    }

    // MARK: A type that does not match its table

    private func makePeopleTable() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO people (name) VALUES ('Ana'), ('Bob');
                """)
        return conn
    }

    @Test func insertIntoATableWithoutAColumnNamesTheColumn() throws {
        let conn = try makePeopleTable()
        let person = Person(id: nil, name: "Cy", nickname: "C")
        let error = #expect(throws: SQLiteError.self) {
            try conn.insert(person)
        }
        #expect(error?.message.contains("nickname") == true)
        let bulk = #expect(throws: SQLiteError.self) {
            try conn.insert(contentsOf: [person])
        }
        #expect(bulk?.message.contains("nickname") == true)
        let upsert = #expect(throws: SQLiteError.self) {
            try conn.upsert(person)
        }
        #expect(upsert?.message.contains("nickname") == true)
        let update = #expect(throws: SQLiteError.self) {
            try conn.update(Person(id: 1, name: "Ana", nickname: "A"))
        }
        #expect(update?.message.contains("nickname") == true)
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM people ORDER BY id") == ["Ana", "Bob"])
    }

    @Test func fetchFromATableWithoutAColumnThrowsKeyNotFound() throws {
        let conn = try makePeopleTable()
        let fetchAll = #expect(throws: DecodingError.self) {
            try conn.fetchAll(Person.self)
        }
        expectKeyNotFound(fetchAll, "nickname")
        let find = #expect(throws: DecodingError.self) {
            try conn.find(Person.self, id: 1)
        }
        expectKeyNotFound(find, "nickname")
        let cursor = try conn.fetchCursor(Person.self)
        let next = #expect(throws: DecodingError.self) {
            try cursor.next()
        }
        expectKeyNotFound(next, "nickname")
        // The connection goes on working.
        #expect(try conn.count(Person.self) == 2)
        #expect(try conn.fetchAll(Person.self, where: "id > \(5)").isEmpty)
    }

    private func expectKeyNotFound(
        _ error: DecodingError?, _ column: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .keyNotFound(let key, let context) = error else {
            Issue.record("expected keyNotFound, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(key.stringValue == column, sourceLocation: sourceLocation)
        #expect(context.debugDescription.contains(column), sourceLocation: sourceLocation)
    }

    // MARK: Transient properties

    @Test func aTransientPropertyIsNotStored() throws {
        let conn = try Connection.inMemory()
        let sql = try conn.createTableSQL(for: Draft.self)
        #expect(!sql.contains("isSelected"))
        try conn.createTable(for: Draft.self)
        let columns = try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info('drafts') ORDER BY cid")
        #expect(columns == ["id", "title"])

        var draft = Draft(id: nil, title: "Plan")
        draft.isSelected = true
        let saved = try conn.insert(draft)
        #expect(saved.id == 1)
        #expect(saved.isSelected == false)
        var changed = saved
        changed.title = "Plan B"
        changed.isSelected = true
        try conn.update(changed)
        #expect(try conn.fetchAll(Draft.self) == [Draft(id: 1, title: "Plan B")])
        #expect(throws: RecordError.unknownColumns(table: "drafts", columns: ["isSelected"])) {
            try conn.update(changed, columns: ["isSelected"])
        }
    }
}
