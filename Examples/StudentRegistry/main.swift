import Bindery
import Foundation

// student-registry: a command-line register of students kept in one SQLite file.
//
//     student-registry [--db PATH] add <register-number> <name> <department> <year>
//     student-registry [--db PATH] find <register-number>
//     student-registry [--db PATH] list [department]
//     student-registry [--db PATH] delete <register-number>
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
