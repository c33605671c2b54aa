import Foundation
import Testing

@testable import Bindery

/// Interpolated values are bound, never spliced, in every method that takes `SQL`; identifiers are
/// quoted; `raw:` splices; fragments concatenate; and hostile coding keys make a working table.
@Suite struct SQLInterpolationTests {
    struct Student: Record, Equatable {
        static let tableName = "students"
        var id: Int64?
        var name: String
    }

    static let hostile = "Robert'); DROP TABLE students;--"
    static let withNUL = "before\u{0}after'); DROP TABLE students;--"
    static let values = [hostile, withNUL]

    /// A connection whose `students` table holds each hostile value once, and one harmless row.
    static func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Student.self)
        for name in values + ["Ana"] {
            try conn.insert(Student(id: nil, name: name))
        }
        return conn
    }

    /// The table is still there, with `count` rows.
    static func expectTableSurvives(
        _ conn: Connection, rows count: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let tables = try conn.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema WHERE type = 'table'")
        #expect(tables == ["students"], sourceLocation: sourceLocation)
        #expect(try conn.count(Student.self) == count, sourceLocation: sourceLocation)
    }

    @Test(arguments: values)
    func executeBindsTheValue(_ value: String) throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Student.self)
        try conn.execute("INSERT INTO students (name) VALUES (\(value))")
        try Self.expectTableSurvives(conn, rows: 1)
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM students") == [value])
        let bytes = try conn.fetchOne(Int.self, sql: "SELECT length(CAST(name AS BLOB)) FROM students")
        #expect(bytes == value.utf8.count)
        try conn.execute("UPDATE students SET name = \(value + "!") WHERE name = \(value)")
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM students") == [value + "!"])
        try Self.expectTableSurvives(conn, rows: 1)
    }

    @Test(arguments: values)
    func rowsBindsTheValue(_ value: String) throws {
        let conn = try Self.makeConnection()
        let rows = try conn.rows("SELECT id, name FROM students WHERE name = \(value)")
        #expect(rows.count == 1)
        #expect(try rows.first?["name"] as String? == value)
        try Self.expectTableSurvives(conn, rows: 3)
    }

    @Test(arguments: values)
    func fetchAllWithSQLBindsTheValue(_ value: String) throws {
        let conn = try Self.makeConnection()
        let found = try conn.fetchAll(Student.self, sql: "SELECT * FROM students WHERE name = \(value)")
        #expect(found.map(\.name) == [value])
        #expect(try conn.fetchAll(String.self, sql: "SELECT \(value)") == [value])
        try Self.expectTableSurvives(conn, rows: 3)
    }

    @Test(arguments: values)
    func fetchOneWithSQLBindsTheValue(_ value: String) throws {
        let conn = try Self.makeConnection()
        #expect(try conn.fetchOne(Student.self, sql: "SELECT * FROM students WHERE name = \(value)")?.name == value)
        #expect(try conn.fetchOne(String.self, sql: "SELECT \(value)") == value)
        try Self.expectTableSurvives(conn, rows: 3)
    }

    @Test(arguments: values)
    func fetchCursorWithSQLBindsTheValue(_ value: String) throws {
        let conn = try Self.makeConnection()
        let cursor = try conn.fetchCursor(Student.self, sql: "SELECT * FROM students WHERE name = \(value)")
        var names: [String] = []
        while let student = try cursor.next() {
            names.append(student.name)
        }
        #expect(names == [value])
        try Self.expectTableSurvives(conn, rows: 3)
    }

    @Test(arguments: values)
    func fetchAllWhereBindsTheValue(_ value: String) throws {
        let conn = try Self.makeConnection()
        #expect(try conn.fetchAll(Student.self, where: "name = \(value)").map(\.name) == [value])
        #expect(try conn.fetchAll(Student.self, where: "name = \(value)", orderBy: "id", limit: 1).count == 1)
        try Self.expectTableSurvives(conn, rows: 3)
    }

    @Test(arguments: values)
    func fetchOneWhereBindsTheValue(_ value: String) throws {
        let conn = try Self.makeConnection()
        #expect(try conn.fetchOne(Student.self, where: "name = \(value)")?.name == value)
        try Self.expectTableSurvives(conn, rows: 3)
    }

    @Test(arguments: values)
    func fetchCursorWhereBindsTheValue(_ value: String) throws {
        let conn = try Self.makeConnection()
        let cursor = try conn.fetchCursor(Student.self, where: "name = \(value)")
        #expect(try cursor.next()?.name == value)
        #expect(try cursor.next() == nil)
        try Self.expectTableSurvives(conn, rows: 3)
    }

    @Test(arguments: values)
    func countWhereBindsTheValue(_ value: String) throws {
        let conn = try Self.makeConnection()
        #expect(try conn.count(Student.self, where: "name = \(value)") == 1)
        #expect(try conn.count(Student.self, where: "name <> \(value)") == 2)
        try Self.expectTableSurvives(conn, rows: 3)
    }

    @Test(arguments: values)
    func existsWhereBindsTheValue(_ value: String) throws {
        let conn = try Self.makeConnection()
        #expect(try conn.exists(Student.self, where: "name = \(value)"))
        #expect(try !conn.exists(Student.self, where: "name = \(value + "x")"))
        try Self.expectTableSurvives(conn, rows: 3)
    }

    @Test(arguments: values)
    func deleteWhereBindsTheValue(_ value: String) throws {
        let conn = try Self.makeConnection()
        #expect(try conn.delete(Student.self, where: "name = \(value)") == 1)
        try Self.expectTableSurvives(conn, rows: 2)
        #expect(try !conn.exists(Student.self, where: "name = \(value)"))
        #expect(try conn.exists(Student.self, where: "name = \("Ana")"))
    }

    @Test func identifierIsQuoted() throws {
        let conn = try Connection.inMemory()
        let table = #"we"ird; name"#
        let column = "it's -- a \"column\""
        try conn.execute("CREATE TABLE \(identifier: table) (\(identifier: column) TEXT)")
        try conn.execute("INSERT INTO \(identifier: table) (\(identifier: column)) VALUES (\(Self.hostile))")
        #expect(
            try conn.fetchAll(String.self, sql: "SELECT \(identifier: column) FROM \(identifier: table)") == [
                Self.hostile
            ])
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema") == [table])
        let sql: SQL = "SELECT * FROM \(identifier: table)"
        #expect(sql.text == #"SELECT * FROM "we""ird; name""#)
        #expect(sql.valueCount == 0)
        #expect(SQL.quote(identifier: "plain") == "\"plain\"")
    }

    @Test func recordWithHostileTableName() throws {
        struct Weird: Record, Equatable {
            static let tableName = #"we"ird; DROP TABLE x;--"#
            var id: Int64?
            var value: String
        }
        let conn = try Connection.inMemory()
        try conn.createTable(for: Weird.self)
        let saved = try conn.insert(Weird(id: nil, value: Self.hostile))
        #expect(try conn.find(Weird.self, id: try #require(saved.id)) == saved)
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema") == [Weird.tableName])
    }

    @Test func rawIsSpliced() throws {
        let conn = try Connection.inMemory()
        let sql: SQL = "SELECT \(raw: "1 + 2") AS three, \(4)"
        #expect(sql.text == "SELECT 1 + 2 AS three, ?")
        #expect(sql.valueCount == 1)
        #expect(try conn.fetchOne(Int.self, sql: sql) == 3)
        let order = "name DESC"
        try conn.execute(script: "CREATE TABLE t (name TEXT); INSERT INTO t VALUES ('a'), ('b')")
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM t ORDER BY \(raw: order)") == ["b", "a"])
        // The same text interpolated as a value is bound, so it orders nothing.
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM t ORDER BY \(order), name") == ["a", "b"])
    }

    @Test func concatenationKeepsValuesInOrder() throws {
        let conn = try Connection.inMemory()
        let head: SQL = "SELECT \(1) AS a, \("two") AS b"
        let tail: SQL = ", \(3.5) AS c, \(Self.hostile) AS d"
        var sql = head + tail
        #expect(sql.text == "SELECT ? AS a, ? AS b, ? AS c, ? AS d")
        #expect(sql.valueCount == 4)
        sql += ", \(Int64(5)) AS e"
        let embedded: SQL = "SELECT * FROM (\(sql)) WHERE a = \(1)"
        #expect(embedded.valueCount == 6)
        let row = try #require(try conn.rows(embedded).first)
        #expect(try row["a"] as Int == 1)
        #expect(try row["b"] as String == "two")
        #expect(try row["c"] as Double == 3.5)
        #expect(try row["d"] as String == Self.hostile)
        #expect(try row["e"] as Int64 == 5)
        #expect(String(describing: embedded).contains(Self.hostile) == false)
    }

    @Test func optionalsBindNull() throws {
        let conn = try Connection.inMemory()
        let none: String? = nil
        let some: Int? = 4
        #expect(try conn.fetchOne(String.self, sql: "SELECT typeof(\(none))") == "null")
        #expect(try conn.fetchOne(Int.self, sql: "SELECT \(some)") == 4)
    }

    enum Mood: String, Codable, Sendable, CaseIterable {
        case calm, stormy
    }

    enum Priority: Int, Codable, Sendable, CaseIterable {
        case low = 1
        case high = 2
    }

    struct Entry: Record, Equatable {
        var id: Int64?
        var at: Date
        var token: UUID
        var mood: Mood
        var priority: Priority
        var amount: Decimal
        var link: URL
    }

    static func entry() throws -> Entry {
        Entry(
            id: nil, at: Date(timeIntervalSince1970: 1_700_000_000.123), token: UUID(), mood: .stormy,
            priority: .high, amount: try #require(Decimal(string: "10.25", locale: nil)),
            link: try #require(URL(string: "https://example.com/x?y=1")))
    }

    @Test(arguments: [
        CodingOptions(), CodingOptions(dateStrategy: .unixMilliseconds, uuidStrategy: .blob),
        CodingOptions(dateStrategy: .julianDay), CodingOptions(dateStrategy: .unixSeconds),
    ])
    func interpolatedValuesMatchWhatInsertStored(_ options: CodingOptions) throws {
        let conn = try Connection.inMemory()
        conn.codingOptions = options
        try conn.createTable(for: Entry.self)
        let value = try Self.entry()
        let saved = try conn.insert(value)
        try conn.insert(
            Entry(id: nil, at: Date(), token: UUID(), mood: .calm, priority: .low, amount: 1, link: value.link))
        #expect(try conn.fetchAll(Entry.self, where: "at = \(value.at)") == [saved])
        #expect(try conn.fetchAll(Entry.self, where: "token = \(value.token)") == [saved])
        #expect(try conn.fetchAll(Entry.self, where: "mood = \(Mood.stormy)") == [saved])
        #expect(try conn.fetchAll(Entry.self, where: "priority = \(Priority.high)") == [saved])
        #expect(try conn.fetchAll(Entry.self, where: "amount = \(value.amount)") == [saved])
        #expect(try conn.count(Entry.self, where: "link = \(value.link)") == 2)
        #expect(try conn.exists(Entry.self, where: "at = \(value.at) AND token = \(value.token)"))
        #expect(try conn.fetchOne(Date.self, sql: "SELECT at FROM entry WHERE at = \(value.at)") == saved.at)
        #expect(try conn.delete(Entry.self, where: "mood = \(Mood.stormy) AND priority = \(Priority.high)") == 1)
        #expect(try conn.count(Entry.self) == 1)
    }

    /// Coding keys made of quotes, semicolons and comment markers.
    struct HostileKeys: Record, Equatable {
        static let tableName = "hostile"
        var id: Int64?
        var quoted: String
        var statement: Int
        var comment: String?
        var apostrophe: [String]

        enum CodingKeys: String, CodingKey {
            case id
            case quoted = #"a "quoted" column"#
            case statement = "x); DROP TABLE hostile; --"
            case comment = "-- not a comment"
            case apostrophe = "it's; /* here */"
        }
    }

    @Test func hostileCodingKeysMakeAWorkingTable() throws {
        let conn = try Connection.inMemory()
        try conn.createTable(for: HostileKeys.self)
        let columns = try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info('hostile') ORDER BY cid")
        #expect(
            columns == [
                "id", #"a "quoted" column"#, "x); DROP TABLE hostile; --", "-- not a comment", "it's; /* here */",
            ])
        let value = HostileKeys(
            id: nil, quoted: Self.hostile, statement: 7, comment: Self.withNUL, apostrophe: ["'", "\""])
        let saved = try conn.insert(value)
        let id = try #require(saved.id)
        #expect(
            saved
                == HostileKeys(
                    id: id, quoted: value.quoted, statement: 7, comment: value.comment, apostrophe: value.apostrophe))
        #expect(try conn.find(HostileKeys.self, id: id) == saved)
        #expect(
            try conn.fetchAll(HostileKeys.self, where: "\(identifier: "x); DROP TABLE hostile; --") = \(7)") == [saved])
        var changed = saved
        changed.comment = nil
        try conn.update(changed)
        #expect(try conn.fetchAll(HostileKeys.self) == [changed])
        try conn.upsert(saved)
        #expect(try conn.fetchAll(HostileKeys.self) == [saved])
        #expect(try conn.delete(HostileKeys.self, id: id))
        #expect(try conn.count(HostileKeys.self) == 0)
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema") == ["hostile"])
    }
}
