import Foundation
import Testing

@testable import Bindery

/// Key look-ups refuse a key value whose type cannot match the record's key column, instead of
/// finding nothing.
@Suite struct KeyTypeCheckTests {
    struct Member: Record, Equatable {
        var id: UUID
        var name: String
    }

    struct Book: Record, Equatable {
        var id: Int64?
        var title: String
    }

    enum Code: String, Codable, Sendable {
        case alpha, beta
    }

    struct Country: Record, Equatable {
        var id: Code
        var name: String
    }

    struct Reading: Record, Equatable {
        var id: Double
        var note: String
    }

    struct Enrollment: Record, Equatable {
        static let primaryKey = ["studentID", "courseID"]
        var studentID: Int
        var courseID: String
        var grade: Int?
    }

    static func mismatch(
        _ error: RecordError, record: String, column: String, expected: String, given: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            error == .keyTypeMismatch(record: record, column: column, expected: expected, given: given),
            sourceLocation: sourceLocation)
    }

    static func setUp() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Member.self)
        try conn.createTable(for: Book.self)
        try conn.createTable(for: Country.self)
        try conn.createTable(for: Reading.self)
        try conn.createTable(for: Enrollment.self)
        return conn
    }

    @Test func uuidKeyRefusesAnIntAndAString() throws {
        let conn = try Self.setUp()
        let member = Member(id: UUID(), name: "Ana")
        try conn.insert(member)
        let error = try #require(throws: RecordError.self) { try conn.find(Member.self, id: 42) }
        Self.mismatch(error, record: "Member", column: "id", expected: "UUID (TEXT)", given: "Int")
        #expect(error.description.contains("Member"))
        #expect(error.description.contains(#""id""#))
        #expect(error.description.contains("UUID (TEXT)"))
        #expect(error.description.contains("Int"))
        // An upper-case uuidString would match nothing: a String is refused too.
        let text = try #require(throws: RecordError.self) { try conn.find(Member.self, id: member.id.uuidString) }
        Self.mismatch(text, record: "Member", column: "id", expected: "UUID (TEXT)", given: "String")
        let deleting = try #require(throws: RecordError.self) { try conn.delete(Member.self, id: 42) }
        Self.mismatch(deleting, record: "Member", column: "id", expected: "UUID (TEXT)", given: "Int")
        #expect(try conn.count(Member.self) == 1)
        #expect(try conn.find(Member.self, id: member.id) == member)
        #expect(try conn.find(Member.self, id: Optional(member.id)) == member)
        #expect(try conn.delete(Member.self, id: member.id))
    }

    @Test func uuidBlobKey() throws {
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(uuidStrategy: .blob)
        try conn.createTable(for: Member.self)
        let member = Member(id: UUID(), name: "Ana")
        try conn.insert(member)
        #expect(try conn.find(Member.self, id: member.id) == member)
        let error = try #require(throws: RecordError.self) {
            try conn.find(Member.self, id: withUnsafeBytes(of: member.id.uuid) { Data($0) })
        }
        Self.mismatch(error, record: "Member", column: "id", expected: "UUID (BLOB)", given: "Data")
    }

    @Test func integerKeyTakesEveryIntegerWidthButNotTextDatesOrFractions() throws {
        let conn = try Self.setUp()
        let book = try conn.insert(Book(id: nil, title: "Dune"))
        #expect(try conn.find(Book.self, id: 1) == book)
        #expect(try conn.find(Book.self, id: Int32(1)) == book)
        #expect(try conn.find(Book.self, id: UInt8(1)) == book)
        #expect(try conn.find(Book.self, id: Int64?(1)) == book)
        #expect(try conn.find(Book.self, id: Int?.none) == nil)
        for (value, given) in [("1", "String"), (Date(), "Date"), (1.5, "Double"), (UUID(), "UUID")]
            as [(any Encodable & Sendable, String)]
        {
            let error = try #require(throws: RecordError.self) { try conn.find(Book.self, id: value) }
            Self.mismatch(error, record: "Book", column: "id", expected: "Int64 (INTEGER)", given: given)
            let deleting = try #require(throws: RecordError.self) { try conn.delete(Book.self, id: value) }
            Self.mismatch(deleting, record: "Book", column: "id", expected: "Int64 (INTEGER)", given: given)
        }
        #expect(try conn.count(Book.self) == 1)
    }

    @Test func rawValueEnumKeyTakesItsRawType() throws {
        let conn = try Self.setUp()
        let country = Country(id: .beta, name: "B")
        try conn.insert(country)
        #expect(try conn.find(Country.self, id: Code.beta) == country)
        #expect(try conn.find(Country.self, id: "beta") == country)
        let error = try #require(throws: RecordError.self) { try conn.find(Country.self, id: 1) }
        Self.mismatch(error, record: "Country", column: "id", expected: "Code (TEXT)", given: "Int")
    }

    enum Level: Int, Codable, Sendable {
        case low = 1, high
    }

    struct Rank: Record, Equatable {
        var id: Level
        var name: String
    }

    struct Flag: Record, Equatable {
        var id: Bool
        var name: String
    }

    struct Label: Record, Equatable {
        var id: String
        var name: String
    }

    @Test func boolMatchesOnlyABoolKey() throws {
        let conn = try Self.setUp()
        try conn.createTable(for: Flag.self)
        let book = try conn.insert(Book(id: nil, title: "Dune"))
        #expect(try conn.find(Book.self, id: 1) == book)
        let error = try #require(throws: RecordError.self) { try conn.find(Book.self, id: true) }
        Self.mismatch(error, record: "Book", column: "id", expected: "Int64 (INTEGER)", given: "Bool")
        let deleting = try #require(throws: RecordError.self) { try conn.delete(Book.self, id: Bool?(true)) }
        Self.mismatch(deleting, record: "Book", column: "id", expected: "Int64 (INTEGER)", given: "Bool")
        let flag = Flag(id: true, name: "on")
        try conn.insert(flag)
        #expect(try conn.find(Flag.self, id: true) == flag)
        #expect(try conn.find(Flag.self, id: false) == nil)
        #expect(try conn.count(Book.self) == 1)
    }

    @Test func rawValueEnumMatchesOnlyItsOwnKey() throws {
        let conn = try Self.setUp()
        try conn.createTable(for: Rank.self)
        try conn.createTable(for: Label.self)
        let book = try conn.insert(Book(id: nil, title: "Dune"))
        #expect(try conn.find(Book.self, id: 1) == book)
        let error = try #require(throws: RecordError.self) { try conn.find(Book.self, id: Level.low) }
        Self.mismatch(error, record: "Book", column: "id", expected: "Int64 (INTEGER)", given: "Level")
        let label = Label(id: "alpha", name: "A")
        try conn.insert(label)
        #expect(try conn.find(Label.self, id: "alpha") == label)
        let text = try #require(throws: RecordError.self) { try conn.find(Label.self, id: Code.alpha) }
        Self.mismatch(text, record: "Label", column: "id", expected: "String (TEXT)", given: "Code")
        let rank = Rank(id: .high, name: "H")
        try conn.insert(rank)
        #expect(try conn.find(Rank.self, id: Level.high) == rank)
        #expect(try conn.find(Rank.self, id: 2) == rank)
        #expect(try conn.find(Rank.self, id: Int64(2)) == rank)
        let other = try #require(throws: RecordError.self) { try conn.find(Rank.self, id: Code.beta) }
        Self.mismatch(other, record: "Rank", column: "id", expected: "Level (INTEGER)", given: "Code")
        let flag = try #require(throws: RecordError.self) { try conn.find(Rank.self, id: true) }
        Self.mismatch(flag, record: "Rank", column: "id", expected: "Level (INTEGER)", given: "Bool")
    }

    @Test func realKeyTakesIntegers() throws {
        let conn = try Self.setUp()
        let reading = Reading(id: 2, note: "two")
        try conn.insert(reading)
        #expect(try conn.find(Reading.self, id: 2) == reading)
        #expect(try conn.find(Reading.self, id: 2.0) == reading)
        let error = try #require(throws: RecordError.self) { try conn.find(Reading.self, id: "2") }
        Self.mismatch(error, record: "Reading", column: "id", expected: "Double (REAL)", given: "String")
    }

    @Test func dateKeyTakesOnlyDates() throws {
        struct Day: Record, Equatable {
            var id: Date
            var note: String
        }
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(dateStrategy: .unixSeconds)
        try conn.createTable(for: Day.self)
        let day = Day(id: Date(timeIntervalSince1970: 86_400), note: "one")
        try conn.insert(day)
        #expect(try conn.find(Day.self, id: day.id) == day)
        let error = try #require(throws: RecordError.self) { try conn.find(Day.self, id: 86_400.0) }
        Self.mismatch(error, record: "Day", column: "id", expected: "Date (REAL)", given: "Double")
    }

    @Test func compositeKeyChecksEachComponent() throws {
        let conn = try Self.setUp()
        let row = Enrollment(studentID: 1, courseID: "7", grade: 5)
        try conn.insert(row)
        #expect(try conn.find(Enrollment.self, key: ["studentID": 1, "courseID": "7"]) == row)
        #expect(try conn.find(Enrollment.self, key: ["studentID": Int64(1), "courseID": "7"]) == row)
        let wrongCourse = try #require(throws: RecordError.self) {
            try conn.find(Enrollment.self, key: ["studentID": 1, "courseID": 7])
        }
        Self.mismatch(wrongCourse, record: "Enrollment", column: "courseID", expected: "String (TEXT)", given: "Int")
        let wrongStudent = try #require(throws: RecordError.self) {
            try conn.delete(Enrollment.self, key: ["studentID": "1", "courseID": "7"])
        }
        Self.mismatch(
            wrongStudent, record: "Enrollment", column: "studentID", expected: "Int (INTEGER)", given: "String")
        #expect(try conn.count(Enrollment.self) == 1)
        #expect(try conn.delete(Enrollment.self, key: ["studentID": 1, "courseID": "7"]))
    }

    @Test func compositeKeyWithAMissingOrAnExtraComponent() throws {
        let conn = try Self.setUp()
        let key = ["studentID", "courseID"]
        let missing = try #require(throws: RecordError.self) {
            try conn.find(Enrollment.self, key: ["studentID": 1])
        }
        #expect(missing == .incompleteKey(table: "enrollment", key: key, missing: ["courseID"]))
        #expect(missing.description == #"the key of "enrollment" is (studentID, courseID); "courseID" is missing"#)
        let none = try #require(throws: RecordError.self) { try conn.delete(Enrollment.self, key: [:]) }
        #expect(none == .incompleteKey(table: "enrollment", key: key, missing: key))
        #expect(
            none.description
                == #"the key of "enrollment" is (studentID, courseID); "studentID", "courseID" are missing"#)
        let extra = try #require(throws: RecordError.self) {
            try conn.delete(Enrollment.self, key: ["studentID": 1, "courseID": "7", "grade": 5])
        }
        #expect(extra == .notKeyColumns(table: "enrollment", key: key, columns: ["grade"]))
        #expect(extra.description == #"the key of "enrollment" is (studentID, courseID); "grade" is not a key column"#)
        let renamed = try #require(throws: RecordError.self) {
            try conn.find(Enrollment.self, key: ["studentID": 1, "course": "7"])
        }
        #expect(renamed == .notKeyColumns(table: "enrollment", key: key, columns: ["course"]))
        let twice = try #require(throws: RecordError.self) {
            try conn.find(Enrollment.self, key: ["studentID": 1, "STUDENTID": 1, "courseID": "7"])
        }
        #expect(twice == .notKeyColumns(table: "enrollment", key: key, columns: ["STUDENTID"]))
        let single = try #require(throws: RecordError.self) { try conn.find(Enrollment.self, id: 1) }
        #expect(single == .compositeKey(table: "enrollment", key: key))
        #expect(
            single.description
                == #""enrollment" has a 2-column key (studentID, courseID): use find(_:key:) or delete(_:key:)"#)
        let deleting = try #require(throws: RecordError.self) { try conn.delete(Enrollment.self, id: 1) }
        #expect(deleting == .compositeKey(table: "enrollment", key: key))
    }

    @Test func databaseKeyOperations() async throws {
        let db = try Database.inMemory()
        try await db.createTable(for: Member.self)
        try await db.createTable(for: Enrollment.self)
        let member = Member(id: UUID(), name: "Ana")
        try await db.insert(member)
        await #expect(
            throws: RecordError.keyTypeMismatch(
                record: "Member", column: "id", expected: "UUID (TEXT)", given: "Int")
        ) {
            try await db.find(Member.self, id: 42)
        }
        await #expect(
            throws: RecordError.keyTypeMismatch(
                record: "Member", column: "id", expected: "UUID (TEXT)", given: "Int")
        ) {
            try await db.delete(Member.self, id: 42)
        }
        let expected = RecordError.keyTypeMismatch(
            record: "Enrollment", column: "courseID", expected: "String (TEXT)", given: "Int")
        await #expect(throws: expected) { try await db.find(Enrollment.self, key: ["studentID": 1, "courseID": 7]) }
        await #expect(throws: expected) { try await db.delete(Enrollment.self, key: ["studentID": 1, "courseID": 7]) }
        #expect(try await db.find(Member.self, id: member.id) == member)
    }

    @Test func typeThatCannotBeProbedIsNotChecked() throws {
        struct Account: Record, Equatable {
            var id: Int64?
            var email: String

            init(id: Int64?, email: String) {
                self.id = id
                self.email = email
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decodeIfPresent(Int64.self, forKey: .id)
                email = try container.decode(String.self, forKey: .email)
                guard email.contains("@") else {
                    throw DecodingError.dataCorruptedError(forKey: .email, in: container, debugDescription: "no @")
                }
            }
        }
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE account (id INTEGER PRIMARY KEY, email TEXT NOT NULL)")
        let saved = try conn.insert(Account(id: nil, email: "a@b.c"))
        // Not checked: SQLite's INTEGER affinity turns the text into 1.
        #expect(try conn.find(Account.self, id: "1") == saved)
        #expect(try conn.find(Account.self, id: 1) == saved)
    }
}
