import Bindery
import Foundation

// bindery-demo: the tour of Bindery in one screen of output.
// Run it with `swift run bindery-demo`; it keeps its data in ./bindery-demo.sqlite.

/// A student, stored as one row of the `students` table.
struct Student: Record, Equatable {
    static let tableName = "students"

    var id: Int64?
    var name: String
    var department: String
    var year: Int
    var enrolledAt: Date
    var tags: [String]
}

/// Prints rows as a small table with aligned columns.
func printTable(_ header: [String], _ rows: [[String]]) {
    let widths = header.indices.map { column in
        ([header[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
    }
    func line(_ cells: [String]) -> String {
        let padded = zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
        return String(padded.joined(separator: " | ").reversed().drop { $0 == " " }.reversed())
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-"))
    rows.forEach { print(line($0)) }
}

let path = FileManager.default.currentDirectoryPath + "/bindery-demo.sqlite"
print("Bindery demo — database file: \(path)\n")

let db = try Database(path: path)

var migrator = Migrator()
migrator.register("create table students") { conn in
    try conn.create(table: "students") { t in
        t.column("id", .integer).primaryKey()
        t.column("name", .text).notNull()
        t.column("department", .text).notNull()
        t.column("year", .integer).notNull()
        t.column("enrolledAt", .text).notNull()
        t.column("tags", .text).notNull()
    }
}
migrator.register("index student names") { conn in
    try conn.create(index: "students_name", on: "students", columns: ["name"], ifNotExists: true)
}
let applied = try await migrator.migrate(db)
print("Migrations applied now: \(applied.isEmpty ? "none (already up to date)" : applied.joined(separator: ", "))")

// Start from a clean table so that every run prints the same thing.
try await db.deleteAll(Student.self)

let day: TimeInterval = 86_400
let start = Date(timeIntervalSince1970: 1_693_526_400)  // 2023-09-01 00:00:00 UTC
let students = [
    Student(id: nil, name: "Ana", department: "Physics", year: 2023, enrolledAt: start, tags: ["honours"]),
    Student(id: nil, name: "Bo", department: "History", year: 2021, enrolledAt: start - 730 * day, tags: []),
    Student(id: nil, name: "Chidi", department: "Philosophy", year: 2022, enrolledAt: start - 365 * day, tags: ["ta"]),
    Student(id: nil, name: "Dana", department: "Physics", year: 2024, enrolledAt: start + 366 * day, tags: []),
]
var saved: [Student] = []
for student in students {
    saved.append(try await db.insert(student))  // returns the row as stored, id assigned
}
print("Inserted \(saved.count) students; ids \(saved.compactMap(\.id).map(String.init).joined(separator: ", "))\n")

let recent = try await db.fetchAll(Student.self, where: "year >= \(2022)", orderBy: "name")
print("Students of year 2022 or later, by name:")
printTable(
    ["id", "name", "department", "year", "enrolled (UTC)", "tags"],
    recent.map { student in
        [
            student.id.map(String.init) ?? "", student.name, student.department, String(student.year),
            SQLiteDate.string(from: student.enrolledAt) ?? "", student.tags.joined(separator: ","),
        ]
    })

let physics = try await db.count(Student.self, where: "department = \("Physics")")
print("\nPhysics students: \(physics)")

// A write transaction: all or nothing. This one throws, so nothing in it is kept.
struct Oops: Error {}
do {
    try await db.write { conn in
        try conn.execute("UPDATE students SET year = year + 1")
        throw Oops()
    }
} catch is Oops {
    let years = try await db.fetchAll(Int.self, sql: "SELECT year FROM students ORDER BY id")
    print("After a rolled-back transaction the years are unchanged: \(years.map(String.init).joined(separator: ", "))")
}

// Reads run on reader connections and see one consistent snapshot.
let names: [String] = try await db.read { conn in
    try conn.fetchAll(String.self, sql: "SELECT name FROM students ORDER BY name")
}
print("Read on a reader connection: \(names.joined(separator: ", "))")

// Values interpolated into SQL are bound, never spliced: this name matches nothing and breaks nothing.
let hostile = "Robert'); DROP TABLE students;--"
let found = try await db.fetchOne(Student.self, where: "name = \(hostile)")
print("Looking up the name \u{201C}\(hostile)\u{201D}: \(found == nil ? "no match, the table is intact" : "a match?")")
print("Rows still there: \(try await db.count(Student.self))")

// An observation: the current result first, then a fresh one after each write that changes `students`.
var observedCounts: [Int] = []
for try await count in db.observe({ conn in try conn.count(Student.self) }) {
    observedCounts.append(count)
    guard observedCounts.count < 2 else { break }  // leaving the loop ends the observation
    try await db.insert(Student(id: nil, name: "Eve", department: "History", year: 2024, enrolledAt: start, tags: []))
}
print("Observed the student count: \(observedCounts.map(String.init).joined(separator: ", then "))")
try await db.close()
