import Bindery
import Foundation

// student-registry: a command-line register of students kept in one SQLite file.
//
//     student-registry [--db PATH] add <register-number> <name> <department> <year>
//     student-registry [--db PATH] find <register-number>
//     student-registry [--db PATH] list [department]
//     student-registry [--db PATH] delete <register-number>
//     student-registry [--db PATH] course <code> <title>
//     student-registry [--db PATH] enroll <register-number> <course-code>
//     student-registry [--db PATH] courses [register-number]
//     student-registry [--db PATH] roster <course-code>
//
// The database file (default ./students.sqlite) is created and migrated on the first run.

/// A student, one row of the `students` table, keyed by register number.
struct Student: Record {
    static let tableName = "students"
    static let primaryKey = ["registerNumber"]

    var registerNumber: String
    var name: String
    var department: String
    var year: Int

    /// The courses the student is enrolled in, through the `enrollments` join table.
    static let courses = hasMany(Course.self, through: Enrollment.self)
}

/// A course, one row of the `courses` table, keyed by its code.
struct Course: Record {
    static let tableName = "courses"
    static let primaryKey = ["code"]

    var code: String
    var title: String

    /// The students enrolled in the course.
    static let students = hasMany(Student.self, through: Enrollment.self)
}

/// A student's enrollment in a course: a row of the join table, whose foreign keys (declared in the
/// migration) are what the associations above follow.
struct Enrollment: Record {
    static let tableName = "enrollments"
    static let primaryKey = ["registerNumber", "courseCode"]

    var registerNumber: String
    var courseCode: String
}

/// A student with the courses they take: decoded from a request that includes `Student.courses`.
struct StudentCourses: Decodable, Sendable {
    var student: Student
    var courses: [Course]
}

/// A course with its students.
struct CourseRoster: Decodable, Sendable {
    var course: Course
    var students: [Student]
}

/// A course with how many students take it (`Course.students.count` goes into `studentCount`).
struct CourseCount: Decodable, Sendable {
    var course: Course
    var studentCount: Int
}

/// The schema, grown from code: each migration runs once per database file, in this order.
func makeMigrator() -> Migrator {
    var migrator = Migrator()
    migrator.register("create table students") { conn in  // createTableCode(for: Student.self), pasted
        try conn.create(table: "students") { t in
            t.column("registerNumber", .text).primaryKey().notNull()
            t.column("name", .text).notNull()
            t.column("department", .text).notNull()
            t.column("year", .integer).notNull()
        }
    }
    migrator.register("index students by department") { conn in
        try conn.execute("CREATE INDEX students_department ON students(department, registerNumber)")
    }
    migrator.register("create table courses") { conn in  // createTableCode(for: Course.self), pasted
        try conn.create(table: "courses") { t in
            t.column("code", .text).primaryKey().notNull()
            t.column("title", .text).notNull()
        }
    }
    migrator.register("create table enrollments") { conn in
        // Foreign keys to both sides: the associations read them, and deleting a student drops
        // their enrollments.
        try conn.execute(
            script: """
                CREATE TABLE enrollments (
                    registerNumber TEXT NOT NULL REFERENCES students (registerNumber) ON DELETE CASCADE,
                    courseCode TEXT NOT NULL REFERENCES courses (code),
                    PRIMARY KEY (registerNumber, courseCode));
                CREATE INDEX enrollments_course ON enrollments(courseCode);
                """)
    }
    return migrator
}

/// A mistake in the command line: printed with the usage, exit status 2.
struct UsageError: Error {
    var message: String
}

/// A command that could not be carried out (no such student, a duplicate): exit status 1.
struct CommandError: Error {
    var message: String
}

let usage = """
    usage: student-registry [--db PATH] <command>
      add <register-number> <name> <department> <year>
      find <register-number>
      list [department]
      delete <register-number>
      course <code> <title>
      enroll <register-number> <course-code>
      courses [register-number]
      roster <course-code>
    """

/// Splits `--db PATH` from the command and its arguments.
func parse(_ arguments: [String]) throws -> (path: String, command: [String]) {
    var path = "students.sqlite"
    var command: [String] = []
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        if argument == "--db" {
            guard let value = rest.popFirst() else { throw UsageError(message: "--db needs a path") }
            path = value
        } else {
            command.append(argument)
        }
    }
    return (path, command)
}

/// One line describing a student.
func describe(_ student: Student) -> String {
    "\(student.registerNumber)  \(student.name)  \(student.department)  \(student.year)"
}

/// Runs one command against the database.
func run(_ command: [String], in db: Database) async throws {
    switch (command.first, command.count) {
    case ("add", 5):
        guard let year = Int(command[4]) else { throw UsageError(message: "year must be a number: \(command[4])") }
        let student = Student(registerNumber: command[1], name: command[2], department: command[3], year: year)
        do {
            try await db.insert(student)
        } catch let error as SQLiteError where error.code == .constraint {
            throw CommandError(message: "a student with register number \(student.registerNumber) already exists")
        }
        print("added \(describe(student))")
    case ("find", 2):
        guard let student = try await db.find(Student.self, id: command[1]) else {
            throw CommandError(message: "no student with register number \(command[1])")
        }
        print(describe(student))
    case ("list", 1), ("list", 2):
        let students: [Student]
        if command.count == 2 {
            students = try await db.fetchAll(
                Student.self, where: "department = \(command[1])", orderBy: "registerNumber")
        } else {
            students = try await db.fetchAll(Student.self, orderBy: "department, registerNumber")
        }
        students.forEach { print(describe($0)) }
        print("\(students.count) student(s)")
    case ("delete", 2):
        guard try await db.delete(Student.self, id: command[1]) else {
            throw CommandError(message: "no student with register number \(command[1])")
        }
        print("deleted \(command[1])")
    case ("course", 3):
        do {
            try await db.insert(Course(code: command[1], title: command[2]))
        } catch let error as SQLiteError where error.code == .constraint {
            throw CommandError(message: "a course with code \(command[1]) already exists")
        }
        print("added course \(command[1])  \(command[2])")
    case ("enroll", 3):
        do {
            try await db.insert(Enrollment(registerNumber: command[1], courseCode: command[2]))
        } catch let error as SQLiteError where error.code == .constraint {
            throw CommandError(
                message: "cannot enroll \(command[1]) in \(command[2]): no such student or course, or already enrolled")
        }
        print("enrolled \(command[1]) in \(command[2])")
    case ("courses", 2):
        // One query for the student, one more for their courses (through enrollments).
        let request = Student.all().filter("registerNumber = \(command[1])")
            .including(all: Student.courses.order("\(Student.courses.column("code"))"))
        guard let found = try await db.fetchOne(StudentCourses.self, request) else {
            throw CommandError(message: "no student with register number \(command[1])")
        }
        print("\(found.student.name): \(found.courses.map { "\($0.code) \($0.title)" }.joined(separator: ", "))")
        print("\(found.courses.count) course(s)")
    case ("courses", 1):
        // Each course with a count of its students, in one query.
        let counts = try await db.fetchAll(
            CourseCount.self, Course.all().annotated(with: Course.students.count).order("code"))
        counts.forEach { print("\($0.course.code)  \($0.course.title)  \($0.studentCount) student(s)") }
        print("\(counts.count) course(s)")
    case ("roster", 2):
        let request = Course.all().filter("code = \(command[1])")
            .including(all: Course.students.order("\(Course.students.column("registerNumber"))"))
        guard let roster = try await db.fetchOne(CourseRoster.self, request) else {
            throw CommandError(message: "no course with code \(command[1])")
        }
        print("\(roster.course.code)  \(roster.course.title)")
        roster.students.forEach { print("  " + describe($0)) }
        print("\(roster.students.count) student(s)")
    default:
        throw UsageError(message: "unknown command or wrong number of arguments: \(command.joined(separator: " "))")
    }
}

/// Prints `message` on standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

do {
    let (path, command) = try parse(Array(CommandLine.arguments.dropFirst()))
    guard !command.isEmpty else { throw UsageError(message: "no command given") }
    let db = try Database(path: path)
    let applied = try await makeMigrator().migrate(db)
    if !applied.isEmpty {
        print("migrated \(path): \(applied.joined(separator: ", "))")
    }
    do {
        try await run(command, in: db)
        try await db.close()
    } catch {
        try await db.close()
        throw error
    }
} catch let error as UsageError {
    printError("student-registry: \(error.message)\n\(usage)")
    exit(2)
} catch let error as CommandError {
    printError("student-registry: \(error.message)")
    exit(1)
} catch {
    printError("student-registry: \(error)")
    exit(1)
}
