import Bindery
import Foundation

// accounts: accounts kept in a database that starts as a copy of a template file.
//
//     accounts [--db PATH] [--template PATH] setup            builds the template (with its seed accounts)
//     accounts [--db PATH] [--template PATH] all | count
//     accounts [--db PATH] [--template PATH] get <id>
//     accounts [--db PATH] [--template PATH] save <id> <gender> <name>    insert, or replace the account
//     accounts [--db PATH] [--template PATH] delete <id>
//
// Defaults: --db ./accounts.sqlite, --template ./accounts-template.sqlite. The first command after
// `setup` finds no database file and copies the template into place (`Database.Options.templatePath`).

/// How an account's gender is stored: its raw value, as TEXT.
enum Gender: String, Codable, Sendable {
    case female, male, other
}

/// An account, one row of the `accounts` table.
struct Account: Record {
    static let tableName = "accounts"

    var id: Int64
    var gender: Gender
    var userName: String
}

/// A mistake in the command line: printed with the usage, exit status 2.
struct UsageError: Error {
    var message: String
}

/// A command that could not be carried out: exit status 1.
struct CommandError: Error {
    var message: String
}

let usage = """
    usage: accounts [--db PATH] [--template PATH] <command>
      setup                        create the template database with seed accounts
      all | count
      get <id>
      save <id> <female|male|other> <user-name>
      delete <id>
    """

/// The command line: file paths and the command with its arguments.
struct Invocation {
    var databasePath = "accounts.sqlite"
    var templatePath = "accounts-template.sqlite"
    var command: [String] = []

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--db", "--template":
                guard let value = rest.popFirst() else { throw UsageError(message: "\(argument) needs a path") }
                if argument == "--db" { databasePath = value } else { templatePath = value }
            default:
                command.append(argument)
            }
        }
    }
}

/// Builds the template file: the schema and the seed accounts every new database starts with.
func setUpTemplate(at path: String) throws {
    let files = FileManager.default
    for suffix in ["", "-journal", "-wal", "-shm"] where files.fileExists(atPath: path + suffix) {
        try files.removeItem(atPath: path + suffix)
    }
    let conn = try Connection(path: path)
    defer { conn.close() }
    try conn.createTable(for: Account.self)
    try conn.insert(contentsOf: [
        Account(id: 1, gender: .female, userName: "ada"),
        Account(id: 2, gender: .male, userName: "alan"),
        Account(id: 3, gender: .other, userName: "sam"),
    ])
    print("template \(path) created with \(try conn.count(Account.self)) accounts")
}

/// An id from the command line.
func accountID(_ text: String) throws -> Int64 {
    guard let id = Int64(text) else { throw UsageError(message: "an id is a number: \(text)") }
    return id
}

/// One line describing an account.
func describe(_ account: Account) -> String {
    "\(account.id)  \(account.gender.rawValue)  \(account.userName)"
}

/// Runs one command other than `setup` against the database.
func run(_ command: [String], in db: Database) async throws {
    switch (command.first, command.count) {
    case ("all", 1):
        let accounts = try await db.fetchAll(Account.self, orderBy: "id")
        accounts.forEach { print(describe($0)) }
    case ("count", 1):
        print("\(try await db.count(Account.self)) account(s)")
    case ("get", 2):
        let id = try accountID(command[1])
        guard let account = try await db.find(Account.self, id: id) else {
            throw CommandError(message: "no account \(id)")
        }
        print(describe(account))
    case ("save", 4):
        guard let gender = Gender(rawValue: command[2]) else {
            throw UsageError(message: "gender is one of female, male, other: \(command[2])")
        }
        let account = Account(id: try accountID(command[1]), gender: gender, userName: command[3])
        // One write transaction: the check and the upsert see the same database.
        let existed = try await db.write { conn in
            let existed = try conn.exists(Account.self, where: "id = \(account.id)")
            try conn.upsert(account)
            return existed
        }
        print("\(existed ? "replaced" : "inserted") \(describe(account))")
    case ("delete", 2):
        let id = try accountID(command[1])
        guard try await db.delete(Account.self, id: id) else {
            throw CommandError(message: "no account \(id)")
        }
        print("deleted \(id)")
    default:
        throw UsageError(message: "unknown command or wrong number of arguments: \(command.joined(separator: " "))")
    }
}

/// Prints `message` on standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

do {
    let invocation = try Invocation(Array(CommandLine.arguments.dropFirst()))
    switch invocation.command.first {
    case nil:
        throw UsageError(message: "no command given")
    case "setup":
        try setUpTemplate(at: invocation.templatePath)
    default:
        let files = FileManager.default
        guard files.fileExists(atPath: invocation.databasePath) || files.fileExists(atPath: invocation.templatePath)
        else {
            throw CommandError(
                message: "no database and no template at \(invocation.templatePath): run `accounts setup`")
        }
        let isNew = !files.fileExists(atPath: invocation.databasePath)
        let db = try Database(path: invocation.databasePath, options: .init(templatePath: invocation.templatePath))
        if isNew {
            print("created \(invocation.databasePath) from the template \(invocation.templatePath)")
        }
        do {
            try await run(invocation.command, in: db)
            try await db.close()
        } catch {
            try await db.close()
            throw error
        }
    }
} catch let error as UsageError {
    printError("accounts: \(error.message)\n\(usage)")
    exit(2)
} catch let error as CommandError {
    printError("accounts: \(error.message)")
    exit(1)
} catch {
    printError("accounts: \(error)")
    exit(1)
}
