import Foundation
import Testing

@testable import Bindery

/// The everyday data-access chores, each with its short answer.
@Suite struct DataAccessChoresTests {
    struct Student: Record, Equatable {
        static let tableName = "students"
        var id: Int64?
        var name: String
        var department: String
        var year: Int
        var email: String?
    }

    // MARK: Helpers

    /// Five students, ids 1 to 5 in this order.
    private let seed = [
        Student(id: nil, name: "Eve", department: "Physics", year: 2021, email: "eve@uni"),
        Student(id: nil, name: "Ana", department: "History", year: 2019, email: nil),
        Student(id: nil, name: "Dan", department: "Physics", year: 2022, email: "dan@uni"),
        Student(id: nil, name: "Bob", department: "Math", year: 2020, email: nil),
        Student(id: nil, name: "Cy", department: "Physics", year: 2023, email: "cy@uni"),
    ]

    private func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Student.self)
        try conn.insert(contentsOf: seed)
        return conn
    }

    private func stored(_ index: Int) -> Student {
        var student = seed[index]
        student.id = Int64(index + 1)
        return student
    }

    // MARK: Chores

    @Test func findByID() throws {
        let conn = try makeConnection()
        let dan = try conn.find(Student.self, id: 3)
        #expect(dan == stored(2))
        #expect(try conn.find(Student.self, id: 99) == nil)
    }

    @Test func firstMatchForACondition() throws {
        let conn = try makeConnection()
        let first = try conn.fetchOne(Student.self, where: "department = \("Physics")", orderBy: "year")
        #expect(first?.name == "Eve")
        #expect(try conn.fetchOne(Student.self, where: "department = \("Art")") == nil)
    }

    @Test func allMatchesForAConditionInAGivenOrder() throws {
        let conn = try makeConnection()
        let physics = try conn.fetchAll(Student.self, where: "department = \("Physics")", orderBy: "name")
        #expect(physics == [stored(4), stored(2), stored(0)])
    }

    @Test func allRows() throws {
        let conn = try makeConnection()
        let all = try conn.fetchAll(Student.self)
        #expect(all.sorted { ($0.id ?? 0) < ($1.id ?? 0) } == (0..<5).map(stored))
    }

    @Test func onePageOfRows() throws {
        let conn = try makeConnection()
        let page = try conn.fetchAll(Student.self, orderBy: "name", limit: 2, offset: 2)
        #expect(page.map(\.name) == ["Cy", "Dan"])
        let lastPage = try conn.fetchAll(Student.self, orderBy: "name", limit: 2, offset: 4)
        #expect(lastPage.map(\.name) == ["Eve"])
    }

    @Test func theValuesOfOneColumn() throws {
        let conn = try makeConnection()
        let names = try conn.fetchAll(String.self, sql: "SELECT name FROM students ORDER BY name")
        #expect(names == ["Ana", "Bob", "Cy", "Dan", "Eve"])
        let emails = try conn.fetchAll(String?.self, sql: "SELECT email FROM students ORDER BY id")
        #expect(emails == ["eve@uni", nil, "dan@uni", nil, "cy@uni"])
    }

    @Test func oneFieldOfOneRowByKey() throws {
        let conn = try makeConnection()
        let id: Int64 = 4
        let name = try conn.fetchOne(String.self, sql: "SELECT name FROM students WHERE id = \(id)")
        #expect(name == "Bob")
        #expect(try conn.fetchOne(String.self, sql: "SELECT name FROM students WHERE id = \(Int64(99))") == nil)
    }

    @Test func howManyRowsInAllAndMatching() throws {
        let conn = try makeConnection()
        #expect(try conn.count(Student.self) == 5)
        #expect(try conn.count(Student.self, where: "department = \("Physics")") == 3)
        #expect(try conn.count(Student.self, where: "year > \(2030)") == 0)
    }

    @Test func whetherAnyRowMatches() throws {
        let conn = try makeConnection()
        #expect(try conn.exists(Student.self, where: "year < \(2020)"))
        #expect(try conn.exists(Student.self, where: "year < \(2000)") == false)
    }

    @Test func whetherARowWithAGivenFieldValueExists() throws {
        let conn = try makeConnection()
        let email = "dan@uni"
        #expect(try conn.exists(Student.self, where: "email = \(email)"))
        #expect(try conn.exists(Student.self, where: "email = \("zed@uni")") == false)
    }

    @Test func deleteByID() throws {
        let conn = try makeConnection()
        #expect(try conn.delete(Student.self, id: 2))
        #expect(try conn.find(Student.self, id: 2) == nil)
        #expect(try conn.count(Student.self) == 4)
    }

    @Test func deleteByCondition() throws {
        let conn = try makeConnection()
        #expect(try conn.delete(Student.self, where: "department = \("Physics")") == 3)
        #expect(try conn.fetchAll(String.self, sql: "SELECT name FROM students ORDER BY name") == ["Ana", "Bob"])
    }

    @Test func updateByKey() throws {
        let conn = try makeConnection()
        var bob = try #require(try conn.find(Student.self, id: 4))
        bob.year = 2024
        try conn.update(bob)
        #expect(try conn.find(Student.self, id: 4)?.year == 2024)
        // Or one column, without fetching the row first.
        try conn.execute("UPDATE students SET email = \("bob@uni") WHERE id = \(4)")
        #expect(try conn.find(Student.self, id: 4)?.email == "bob@uni")
    }

    @Test func insertAndGetTheNewID() throws {
        let conn = try makeConnection()
        let id = try conn.insert(Student(id: nil, name: "Fay", department: "Art", year: 2024, email: nil)).id
        #expect(id == 6)
        #expect(try conn.find(Student.self, id: 6)?.name == "Fay")
    }
}
