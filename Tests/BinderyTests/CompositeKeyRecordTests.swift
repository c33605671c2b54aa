import Foundation
import Testing

@testable import Bindery

/// Every record operation on records whose primary key has two columns.
@Suite struct CompositeKeyRecordTests {
    struct Enrollment: Record, Equatable {
        static let tableName = "enrollments"
        static let primaryKey = ["studentID", "courseID"]
        var studentID: Int64
        var courseID: String
        var grade: String?
        var enrolledOn: Date
    }

    /// A join table whose every column is in the key: nothing to update, nothing to set on conflict.
    struct Membership: Record, Equatable {
        static let primaryKey = ["groupID", "userID"]
        var groupID: Int
        var userID: Int
    }

    /// A composite key under the snake-case key strategy: the key names the columns.
    struct Grade: Record, Equatable {
        static let tableName = "grades"
        static let primaryKey = ["student_id", "course_id"]
        var studentID: Int
        var courseID: Int
        var finalMark: Double?
    }

    // MARK: Helpers

    private func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Enrollment.self)
        try conn.createTable(for: Membership.self)
        return conn
    }

    private func enrollment(_ student: Int64, _ course: String, grade: String? = nil, day: Int = 0) -> Enrollment {
        Enrollment(
            studentID: student, courseID: course, grade: grade,
            enrolledOn: Date(timeIntervalSince1970: 1_700_000_000 + Double(day) * 86_400))
    }

    private func allRows(_ conn: Connection) throws -> [Enrollment] {
        try conn.fetchAll(Enrollment.self, orderBy: "studentID, courseID")
    }

    private func notFound(_ student: Int64, _ course: String) -> RecordError {
        .notFound(table: "enrollments", key: ["studentID": .integer(student), "courseID": .text(course)])
    }

    // MARK: Tests

    @Test func createTableDeclaresTheCompositeKey() throws {
        let conn = try Connection.inMemory()
        let sql = try conn.createTableSQL(for: Enrollment.self)
        #expect(sql.contains(#"PRIMARY KEY ("studentID", "courseID")"#))
        #expect(Membership.tableName == "membership")
    }

    @Test func insertAndFindByKey() throws {
        let conn = try makeConnection()
        let saved = try conn.insert(enrollment(1, "math", grade: "A"))
        #expect(saved == enrollment(1, "math", grade: "A"))
        try conn.insert(enrollment(1, "art"))
        try conn.insert(enrollment(2, "math"))
        #expect(try conn.find(Enrollment.self, key: ["studentID": 1, "courseID": "math"]) == saved)
        #expect(try conn.find(Enrollment.self, key: ["courseID": "art", "studentID": 1]) == enrollment(1, "art"))
        #expect(try conn.find(Enrollment.self, key: ["studentID": 2, "courseID": "art"]) == nil)
    }

    @Test func findWithAWrongKeyThrows() throws {
        let conn = try makeConnection()
        #expect(throws: RecordError.compositeKey(table: "enrollments", key: ["studentID", "courseID"])) {
            try conn.find(Enrollment.self, id: 1)
        }
        #expect(
            throws: RecordError.incompleteKey(
                table: "enrollments", key: ["studentID", "courseID"], missing: ["courseID"])
        ) {
            try conn.find(Enrollment.self, key: ["studentID": 1])
        }
        #expect(
            throws: RecordError.notKeyColumns(table: "enrollments", key: ["studentID", "courseID"], columns: ["room"])
        ) {
            try conn.find(Enrollment.self, key: ["studentID": 1, "room": 2])
        }
    }

    @Test func insertOfADuplicateKeyThrowsConstraint() throws {
        let conn = try makeConnection()
        try conn.insert(enrollment(1, "math"))
        let error = #expect(throws: SQLiteError.self) {
            try conn.insert(enrollment(1, "math", grade: "B"))
        }
        #expect(error?.code == .constraint)
        #expect(try allRows(conn) == [enrollment(1, "math")])
    }

    @Test func updateByCompositeKey() throws {
        let conn = try makeConnection()
        try conn.insert(contentsOf: [enrollment(1, "math", grade: "C"), enrollment(1, "art"), enrollment(2, "math")])
        try conn.update(enrollment(1, "math", grade: "A", day: 3))
        try conn.update(enrollment(2, "math", grade: nil, day: 5))
        #expect(
            try allRows(conn) == [
                enrollment(1, "art"), enrollment(1, "math", grade: "A", day: 3), enrollment(2, "math", day: 5),
            ])
    }

    @Test func updateOfAMissingRowThrowsNotFoundAndChangesNothing() throws {
        let conn = try makeConnection()
        try conn.insert(contentsOf: [enrollment(1, "math", grade: "C"), enrollment(2, "art")])
        let before = try allRows(conn)
        #expect(throws: notFound(1, "art")) {
            try conn.update(enrollment(1, "art", grade: "A"))
        }
        #expect(throws: notFound(2, "math")) {
            try conn.update(enrollment(2, "math", grade: "A"), columns: ["grade"])
        }
        #expect(try allRows(conn) == before)
    }

    @Test func updateColumnsWritesOnlyThoseColumns() throws {
        let conn = try makeConnection()
        try conn.insert(enrollment(1, "math", grade: "C", day: 1))
        try conn.update(enrollment(1, "math", grade: "B", day: 9), columns: ["grade"])
        #expect(try allRows(conn) == [enrollment(1, "math", grade: "B", day: 1)])
        #expect(throws: RecordError.unknownColumns(table: "enrollments", columns: ["score"])) {
            try conn.update(enrollment(1, "math", grade: "A"), columns: ["grade", "score"])
        }
        #expect(try allRows(conn) == [enrollment(1, "math", grade: "B", day: 1)])
    }

    @Test func upsertTwiceLeavesOneRowWithTheSecondValues() throws {
        let conn = try makeConnection()
        try conn.insert(enrollment(2, "math"))
        #expect(try conn.upsert(enrollment(1, "math", grade: "C")) == enrollment(1, "math", grade: "C"))
        #expect(try conn.upsert(enrollment(1, "math", day: 4)) == enrollment(1, "math", day: 4))
        #expect(try allRows(conn) == [enrollment(1, "math", day: 4), enrollment(2, "math")])
    }

    @Test func deleteVariants() throws {
        let conn = try makeConnection()
        try conn.insert(contentsOf: [
            enrollment(1, "math"), enrollment(1, "art"), enrollment(2, "math"), enrollment(2, "art"),
            enrollment(3, "math"), enrollment(3, "art"),
        ])
        #expect(try conn.delete(enrollment(1, "math")))
        #expect(try conn.delete(enrollment(1, "math")) == false)
        #expect(try conn.delete(Enrollment.self, key: ["studentID": 1, "courseID": "art"]))
        #expect(try conn.delete(Enrollment.self, key: ["studentID": 1, "courseID": "art"]) == false)
        #expect(try conn.delete(Enrollment.self, where: "courseID = \("art")") == 2)
        #expect(try allRows(conn) == [enrollment(2, "math"), enrollment(3, "math")])
        #expect(try conn.deleteAll(Enrollment.self) == 2)
        #expect(try conn.count(Enrollment.self) == 0)
    }

    @Test func deleteWithAnIncompleteKeyThrowsAndDeletesNothing() throws {
        let conn = try makeConnection()
        try conn.insert(enrollment(1, "math"))
        #expect(throws: RecordError.self) {
            try conn.delete(Enrollment.self, key: ["studentID": 1])
        }
        #expect(throws: RecordError.self) {
            try conn.delete(Enrollment.self, id: 1)
        }
        #expect(try conn.count(Enrollment.self) == 1)
    }

    @Test func queries() throws {
        let conn = try makeConnection()
        let all = (1...4).flatMap { student in
            ["art", "math"].map { enrollment(Int64(student), $0, grade: student % 2 == 0 ? "A" : nil) }
        }
        #expect(try conn.insert(contentsOf: all) == 8)
        #expect(try allRows(conn) == all)
        let math = try conn.fetchAll(Enrollment.self, where: "courseID = \("math")", orderBy: "studentID DESC")
        #expect(math.map(\.studentID) == [4, 3, 2, 1])
        let page = try conn.fetchAll(Enrollment.self, orderBy: "studentID, courseID", limit: 3, offset: 2)
        #expect(page == Array(all[2..<5]))
        #expect(try conn.fetchOne(Enrollment.self, where: "grade = \("A")", orderBy: "studentID") == all[2])
        #expect(try conn.count(Enrollment.self, where: "grade IS NULL") == 4)
        #expect(try conn.exists(Enrollment.self, where: "studentID = \(4) AND courseID = \("art")"))
        #expect(try conn.exists(Enrollment.self, where: "studentID = \(5)") == false)
        let cursor = try conn.fetchCursor(Enrollment.self, where: "studentID > \(2)", orderBy: "studentID, courseID")
        #expect(try cursor.collect() == Array(all[4...]))
    }

    @Test func aCompositeKeyUnderTheSnakeCaseStrategy() throws {
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(keyStrategy: .snakeCase)
        try conn.createTable(for: Grade.self)
        #expect(try conn.createTableSQL(for: Grade.self).contains(#"PRIMARY KEY ("student_id", "course_id")"#))
        try conn.insert(Grade(studentID: 1, courseID: 2, finalMark: 3.5))
        #expect(try conn.find(Grade.self, key: ["student_id": 1, "course_id": 2])?.finalMark == 3.5)
        try conn.update(Grade(studentID: 1, courseID: 2, finalMark: 4))
        #expect(try conn.upsert(Grade(studentID: 1, courseID: 2, finalMark: nil)).finalMark == nil)
        #expect(try conn.upsert(Grade(studentID: 1, courseID: 3, finalMark: 1)).finalMark == 1)
        #expect(try conn.fetchAll(Grade.self, where: "final_mark IS NULL").map(\.courseID) == [2])
        #expect(try conn.delete(Grade.self, key: ["student_id": 1, "course_id": 3]))
        #expect(try conn.fetchAll(Grade.self) == [Grade(studentID: 1, courseID: 2, finalMark: nil)])
    }

    @Test func aKeyOnlyRecordUpsertsUpdatesAndDeletes() throws {
        let conn = try makeConnection()
        #expect(try conn.insert(Membership(groupID: 1, userID: 2)) == Membership(groupID: 1, userID: 2))
        #expect(try conn.upsert(Membership(groupID: 1, userID: 2)) == Membership(groupID: 1, userID: 2))
        #expect(try conn.upsert(Membership(groupID: 1, userID: 3)) == Membership(groupID: 1, userID: 3))
        #expect(try conn.count(Membership.self) == 2)
        // Nothing to write, but the row has to exist.
        try conn.update(Membership(groupID: 1, userID: 2))
        let missing = RecordError.notFound(table: "membership", key: ["groupID": .integer(9), "userID": .integer(9)])
        #expect(throws: missing) {
            try conn.update(Membership(groupID: 9, userID: 9))
        }
        #expect(try conn.delete(Membership.self, key: ["groupID": 1, "userID": 3]))
        #expect(try conn.fetchAll(Membership.self) == [Membership(groupID: 1, userID: 2)])
    }
}
