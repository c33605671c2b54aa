import Foundation
import Testing

@testable import Bindery

/// Every record operation on a record whose `Int64?` id SQLite assigns.
@Suite struct RecordOperationTests {
    struct Student: Record, Equatable {
        static let tableName = "students"
        var id: Int64?
        var name: String
        var department: String
        var year: Int
        var score: Double?
        var tags: [String]
    }

    /// A record whose table gives `createdAt` a default, filled in by SQLite on insert.
    struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64?
        var body: String
        var createdAt: Date?
    }

    // MARK: Helpers

    private func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Student.self)
        return conn
    }

    private func student(_ name: String, year: Int = 2024, score: Double? = nil, id: Int64? = nil) -> Student {
        Student(id: id, name: name, department: "Physics", year: year, score: score, tags: ["t-\(name)"])
    }

    /// Every row of the table, by id.
    private func allRows(_ conn: Connection) throws -> [Student] {
        try conn.fetchAll(Student.self, orderBy: "id")
    }

    // MARK: Insert

    @Test func insertAssignsNilIDAndReturnsTheStoredRow() throws {
        let conn = try makeConnection()
        let ana = try conn.insert(student("Ana", score: 1.5))
        let bob = try conn.insert(student("Bob"))
        #expect(ana.id == 1)
        #expect(bob.id == 2)
        #expect(conn.lastInsertRowID == 2)
        var expected = student("Ana", score: 1.5)
        expected.id = 1
        #expect(ana == expected)
        #expect(try conn.find(Student.self, id: 1) == ana)
        #expect(try conn.find(Student.self, id: 2) == bob)
        #expect(try conn.find(Student.self, id: 3) == nil)
        #expect(try conn.fetchOne(String.self, sql: "SELECT tags FROM students WHERE id = 1") == #"["t-Ana"]"#)
    }

    @Test func insertKeepsAnExplicitID() throws {
        let conn = try makeConnection()
        let saved = try conn.insert(student("Cy", id: 42))
        #expect(saved.id == 42)
        #expect(try conn.insert(student("Di")).id == 43)
        #expect(try conn.fetchAll(Int64.self, sql: "SELECT id FROM students ORDER BY id") == [42, 43])
    }

    @Test func insertReturnsColumnDefaults() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE notes (
                    id INTEGER PRIMARY KEY,
                    body TEXT NOT NULL,
                    createdAt TEXT DEFAULT CURRENT_TIMESTAMP
                )
                """)
        let before = Date()
        let saved = try conn.insert(Note(id: nil, body: "hello", createdAt: nil))
        let after = Date()
        #expect(saved.id == 1)
        #expect(saved.body == "hello")
        let created = try #require(saved.createdAt)
        // CURRENT_TIMESTAMP has whole seconds.
        #expect(created >= before.addingTimeInterval(-1.5))
        #expect(created <= after.addingTimeInterval(0.5))
        #expect(try conn.find(Note.self, id: 1) == saved)

        // A value given is stored instead of the default.
        let given = Date(timeIntervalSince1970: 1_000_000_000.25)
        let explicit = try conn.insert(Note(id: nil, body: "dated", createdAt: given))
        #expect(explicit.createdAt == given)
    }

    // MARK: Update

    @Test func updateWritesEveryColumn() throws {
        let conn = try makeConnection()
        var ana = try conn.insert(student("Ana"))
        let bob = try conn.insert(student("Bob"))
        ana.name = "Ana Maria"
        ana.year = 2025
        ana.score = 9.5
        ana.tags = ["x", "y"]
        try conn.update(ana)
        #expect(conn.changes == 1)
        #expect(try allRows(conn) == [ana, bob])
    }

    @Test func updateSetsNullWhenAPropertyBecameNil() throws {
        let conn = try makeConnection()
        var ana = try conn.insert(student("Ana", score: 2.5))
        ana.score = nil
        try conn.update(ana)
        #expect(try conn.find(Student.self, id: ana.id)?.score == nil)
        #expect(try conn.fetchOne(String.self, sql: "SELECT typeof(score) FROM students") == "null")
    }

    @Test func updateOfAMissingRowThrowsNotFoundAndChangesNothing() throws {
        let conn = try makeConnection()
        try conn.insert(student("Ana"))
        try conn.insert(student("Bob", score: 3))
        let before = try allRows(conn)
        #expect(throws: RecordError.notFound(table: "students", key: ["id": .integer(99)])) {
            try conn.update(student("Ghost", id: 99))
        }
        #expect(throws: RecordError.notFound(table: "students", key: ["id": .integer(99)])) {
            try conn.update(student("Ghost", id: 99), columns: ["name"])
        }
        #expect(try allRows(conn) == before)
    }

    @Test func updateWithoutAnIDThrowsMissingPrimaryKey() throws {
        let conn = try makeConnection()
        try conn.insert(student("Ana"))
        let before = try allRows(conn)
        #expect(throws: RecordError.missingPrimaryKey(table: "students", column: "id")) {
            try conn.update(student("Nobody"))
        }
        #expect(try allRows(conn) == before)
    }

    @Test func updateColumnsWritesOnlyThoseColumns() throws {
        let conn = try makeConnection()
        let saved = try conn.insert(student("Ana", year: 2020, score: 1))
        var changed = saved
        changed.name = "Not written"
        changed.year = 2030
        changed.score = nil
        try conn.update(changed, columns: ["year", "score"])
        var expected = saved
        expected.year = 2030
        expected.score = nil
        #expect(try allRows(conn) == [expected])
    }

    @Test func updateColumnsWithAnUnknownNameThrowsAndChangesNothing() throws {
        let conn = try makeConnection()
        var saved = try conn.insert(student("Ana"))
        saved.name = "Changed"
        #expect(throws: RecordError.unknownColumns(table: "students", columns: ["nmae"])) {
            try conn.update(saved, columns: ["name", "nmae"])
        }
        #expect(try conn.find(Student.self, id: saved.id)?.name == "Ana")
    }

    // MARK: Upsert

    @Test func upsertTwiceLeavesOneRowWithTheSecondValues() throws {
        let conn = try makeConnection()
        let first = try conn.upsert(student("Ana", year: 2020, score: 4, id: 7))
        #expect(first == student("Ana", year: 2020, score: 4, id: 7))
        var second = student("Ana B", year: 2021, score: nil, id: 7)
        second.tags = ["second"]
        let stored = try conn.upsert(second)
        #expect(stored == second)
        #expect(try allRows(conn) == [second])
        #expect(try conn.fetchOne(String.self, sql: "SELECT typeof(score) FROM students") == "null")
    }

    @Test func upsertOfANewRowInserts() throws {
        let conn = try makeConnection()
        try conn.insert(student("Ana"))
        let withID = try conn.upsert(student("Bob", id: 10))
        #expect(withID.id == 10)
        let withoutID = try conn.upsert(student("Cy"))
        #expect(withoutID.id == 11)
        #expect(try allRows(conn).map(\.name) == ["Ana", "Bob", "Cy"])
    }

    // MARK: Bulk insert

    @Test func insertContentsOfInsertsEveryRecordWithOneStatement() throws {
        let conn = try makeConnection()
        let records = (0..<10_000).map { student("s\($0)", year: 2000 + $0 % 25, score: Double($0)) }
        // BEGIN and COMMIT are cached statements too: prepare them first, so that only the INSERT counts.
        try conn.transaction(.immediate) { _ in }
        let prepared = conn.prepareCount
        let inserted = try conn.insert(contentsOf: records)
        #expect(inserted == 10_000)
        // The multi-row INSERT and its batches' SAVEPOINT and RELEASE, each prepared once, and the five
        // reads of the table's schema after `PRAGMA schema_version` that tell whether its batches may be
        // `INSERT OR FAIL` (BulkInserter+Groups.swift), read once for the type.
        #expect(conn.prepareCount - prepared <= 9)
        // Again: every statement is cached, and the schema is not read again.
        let again = (0..<1_000).map { student("t\($0)", year: 2000, score: Double($0)) }
        let preparedAgain = conn.prepareCount
        #expect(try conn.insert(contentsOf: again) == 1_000)
        #expect(conn.prepareCount == preparedAgain)
        try conn.delete(Student.self, where: "name LIKE 't%'")
        #expect(!conn.isInTransaction)
        #expect(try conn.count(Student.self) == 10_000)
        let stored = try allRows(conn)
        #expect(stored.map(\.id) == (1...10_000).map { Optional(Int64($0)) })
        #expect(stored.map(\.name) == records.map(\.name))
        var last = records[9_999]
        last.id = 10_000
        #expect(stored.last == last)
    }

    @Test func insertContentsOfIsAtomic() throws {
        let conn = try makeConnection()
        try conn.insert(student("Existing", id: 5))
        let records = [student("a", id: 1), student("b", id: 2), student("dup", id: 5), student("c", id: 6)]
        let error = #expect(throws: SQLiteError.self) {
            try conn.insert(contentsOf: records)
        }
        #expect(error?.code == .constraint)
        #expect(!conn.isInTransaction)
        #expect(try allRows(conn).map(\.name) == ["Existing"])

        // A record that cannot be encoded (NaN) fails the call the same way.
        #expect(throws: EncodingError.self) {
            try conn.insert(contentsOf: [student("a"), student("nan", score: .nan), student("c")])
        }
        #expect(!conn.isInTransaction)
        #expect(try allRows(conn).map(\.name) == ["Existing"])
    }

    @Test func insertContentsOfInsideATransactionUndoesOnlyItself() throws {
        let conn = try makeConnection()
        try conn.transaction { conn in
            try conn.insert(student("Before", id: 1))
            #expect(throws: SQLiteError.self) {
                try conn.insert(contentsOf: [student("a", id: 2), student("dup", id: 1), student("c", id: 3)])
            }
            #expect(conn.isInTransaction)
            try conn.insert(student("After", id: 4))
        }
        #expect(try allRows(conn).map(\.name) == ["Before", "After"])
    }

    @Test func insertContentsOfWithDifferentNilColumns() throws {
        let conn = try makeConnection()
        let records = [
            student("a"), student("b", score: 1), student("c", id: 50), student("d", score: 2, id: 60),
            student("e"), student("f", score: 3),
        ]
        #expect(try conn.insert(contentsOf: records) == 6)
        let stored = try conn.fetchAll(Student.self, orderBy: "name")
        #expect(stored.map(\.name) == ["a", "b", "c", "d", "e", "f"])
        #expect(stored.map(\.score) == [nil, 1, nil, 2, nil, 3])
        #expect(stored.map(\.id) == [1, 2, 50, 60, 61, 62])
        #expect(try conn.insert(contentsOf: [Student]()) == 0)

        // Two shapes, alternating: each statement is prepared once and re-bound. The first batch tried
        // also reads the table's schema once for the type (`PRAGMA schema_version` and five reads, see
        // BulkInserter+Groups.swift).
        let alternating = (0..<1_000).map { student("x\($0)", score: $0 % 2 == 0 ? nil : Double($0)) }
        let prepared = conn.prepareCount
        #expect(try conn.insert(contentsOf: alternating) == 1_000)
        #expect(conn.prepareCount - prepared <= 2 + 6)
        let preparedAgain = conn.prepareCount
        #expect(try conn.insert(contentsOf: alternating.map { student("y" + $0.name, score: $0.score) }) == 1_000)
        #expect(conn.prepareCount == preparedAgain)
        #expect(try conn.count(Student.self, where: "score IS NULL AND name LIKE 'x%'") == 500)
    }

    // MARK: Delete

    @Test func deleteVariantsReturnWhatWent() throws {
        let conn = try makeConnection()
        let records = (1...10).map { student("s\($0)", year: 2010 + $0) }
        try conn.insert(contentsOf: records)
        let first = try #require(try conn.find(Student.self, id: 1))

        #expect(try conn.delete(first))
        #expect(try conn.delete(first) == false)
        #expect(try conn.delete(Student.self, id: 2))
        #expect(try conn.delete(Student.self, id: 2) == false)
        #expect(try conn.delete(Student.self, where: "year >= \(2018)") == 3)
        #expect(try conn.delete(Student.self, where: "year >= \(2018)") == 0)
        #expect(try conn.fetchAll(Int64.self, sql: "SELECT id FROM students ORDER BY id") == [3, 4, 5, 6, 7])
        #expect(try conn.deleteAll(Student.self) == 5)
        #expect(try conn.count(Student.self) == 0)
        #expect(try conn.deleteAll(Student.self) == 0)
    }

    @Test func deleteOfARecordWithoutAnIDThrows() throws {
        let conn = try makeConnection()
        try conn.insert(student("Ana"))
        #expect(throws: RecordError.missingPrimaryKey(table: "students", column: "id")) {
            try conn.delete(student("Ana"))
        }
        #expect(try conn.count(Student.self) == 1)
    }

    // MARK: Queries

    @Test func queriesByConditionOrderAndPage() throws {
        let conn = try makeConnection()
        try conn.insert(contentsOf: [
            student("Eve", year: 2021), student("Ana", year: 2019), student("Dan", year: 2022),
            student("Bob", year: 2020), student("Cy", year: 2023),
        ])
        #expect(try conn.fetchAll(Student.self).count == 5)
        let recent = try conn.fetchAll(Student.self, where: "year >= \(2021)", orderBy: "name")
        #expect(recent.map(\.name) == ["Cy", "Dan", "Eve"])
        let page = try conn.fetchAll(Student.self, orderBy: "year DESC", limit: 2, offset: 1)
        #expect(page.map(\.name) == ["Dan", "Eve"])
        let skipped = try conn.fetchAll(Student.self, orderBy: "name", offset: 3)
        #expect(skipped.map(\.name) == ["Dan", "Eve"])
        #expect(try conn.fetchOne(Student.self, where: "year < \(2021)", orderBy: "year")?.name == "Ana")
        #expect(try conn.fetchOne(Student.self, where: "year > \(3000)") == nil)
        #expect(try conn.count(Student.self) == 5)
        #expect(try conn.count(Student.self, where: "year BETWEEN \(2020) AND \(2022)") == 3)
        #expect(try conn.exists(Student.self, where: "name = \("Cy")"))
        #expect(try conn.exists(Student.self, where: "name = \("Zed")") == false)
        #expect(try conn.exists(Student.self))
        try conn.deleteAll(Student.self)
        #expect(try conn.exists(Student.self) == false)
    }

    // MARK: Cursors

    @Test func fetchCursorYieldsEveryRecordInOrder() throws {
        let conn = try makeConnection()
        try conn.insert(contentsOf: (0..<10_000).map { student("s\($0)", year: $0) })
        let cursor = try conn.fetchCursor(Student.self, orderBy: "id")
        var expectedID: Int64 = 1
        while let record = try cursor.next() {
            #expect(record.id == expectedID)
            #expect(record.year == Int(expectedID) - 1)
            expectedID += 1
        }
        #expect(expectedID == 10_001)
        #expect(try cursor.next() == nil)

        let filtered = try conn.fetchCursor(Student.self, where: "year < \(3)", orderBy: "year DESC")
        #expect(try filtered.collect().map(\.year) == [2, 1, 0])
    }

    @Test func anAbandonedCursorReleasesItsStatement() throws {
        let conn = try makeConnection()
        try conn.insert(contentsOf: (0..<10_000).map { student("s\($0)", year: $0) })
        do {
            let cursor = try conn.fetchCursor(Student.self, orderBy: "id")
            for _ in 0..<5_000 {
                _ = try cursor.next()
            }
        }
        // The statement went back to the cache, reset: the same query starts again from the first row
        // without preparing anything, and the table can be written.
        let prepared = conn.prepareCount
        let again = try conn.fetchCursor(Student.self, orderBy: "id")
        #expect(try again.next()?.id == 1)
        #expect(conn.prepareCount == prepared)
        var count = 1
        while try again.next() != nil {
            count += 1
        }
        #expect(count == 10_000)
        #expect(try conn.delete(Student.self, where: "year >= \(5_000)") == 5_000)
        try conn.execute(script: "DROP TABLE students")
    }
}
