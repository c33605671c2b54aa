import Bindery
import Foundation

// todo-sync: one to-do list kept on several devices, each editing its own copy offline; `sync`
// brings a copy and the hub together, and every copy ends up with the same list.
//
//     todo-sync <device> add <title>           add a to-do (offline: only this copy has it)
//     todo-sync <device> done <title>          mark a to-do done
//     todo-sync <device> rename <title> <new>  rename a to-do
//     todo-sync <device> remove <title>        delete a to-do
//     todo-sync <device> list                  the to-dos this copy has now
//     todo-sync <device> sync                  push this copy's changes, pull everyone's
//     todo-sync <device> status                pending changes, last hub sequence, conflicts
//
// Each device's copy is the file <device>.sqlite; the hub is hub.sqlite, both in the current folder
// (FileSyncTransport: processes on one machine share the hub file; a real app would reach its hub
// over HTTP through its own transport).

/// One to-do: a UUID key, so that two devices never give one id to two different to-dos.
struct Todo: Record {
    static let tableName = "todos"

    var id: UUID
    var title: String
    var done: Bool
}

/// A mistake on the command line or a to-do that is not there: exit status 1.
struct CommandError: Error {
    var message: String
}

let usage = """
    usage: todo-sync <device> <command>
      add <title> | done <title> | rename <title> <new title> | remove <title>
      list | sync | status
    """

/// The schema, frozen in a migration.
var migrator: Migrator {
    var migrator = Migrator()
    migrator.register("create todos") { conn in
        try conn.execute(script: "CREATE TABLE todos(id TEXT PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL)")
    }
    return migrator
}

/// Opens the device's copy with the `todos` table synced field by field: a title renamed on one
/// device and a to-do marked done on another both survive.
func openCopy(device: String) async throws -> SyncCopy {
    var options = Database.Options()
    options.sync = SyncConfiguration(tables: [SyncTable(Todo.self, policy: .fieldWise)])
    let db = try Database(path: "\(device).sqlite", options: options)
    try await migrator.migrate(db)
    return try await SyncCopy(database: db, transport: FileSyncTransport(hubPath: "hub.sqlite"))
}

func todo(titled title: String, in db: Database) async throws -> Todo {
    guard let todo = try await db.fetchOne(Todo.self, where: "title = \(title)") else {
        throw CommandError(message: "no to-do titled \"\(title)\"")
    }
    return todo
}

func run(device: String, command: [String]) async throws {
    let copy = try await openCopy(device: device)
    let db = copy.database
    defer { print() }
    switch command.first {
    case "add" where command.count == 2:
        try await db.insert(Todo(id: UUID(), title: command[1], done: false))
        print("\(device): added \"\(command[1])\"", terminator: "")
    case "done" where command.count == 2:
        var item = try await todo(titled: command[1], in: db)
        item.done = true
        try await db.update(item)
        print("\(device): done \"\(command[1])\"", terminator: "")
    case "rename" where command.count == 3:
        var item = try await todo(titled: command[1], in: db)
        item.title = command[2]
        try await db.update(item)
        print("\(device): renamed \"\(command[1])\" to \"\(command[2])\"", terminator: "")
    case "remove" where command.count == 2:
        let item = try await todo(titled: command[1], in: db)
        try await db.delete(Todo.self, id: item.id)
        print("\(device): removed \"\(command[1])\"", terminator: "")
    case "list" where command.count == 1:
        let todos = try await db.fetchAll(Todo.self, orderBy: "title")
        let lines = todos.map { "[\($0.done ? "x" : " ")] \($0.title)" }
        print("\(device): \(todos.count) to-do(s)" + lines.map { "\n  " + $0 }.joined(), terminator: "")
    case "sync" where command.count == 1:
        let pushed = try await copy.push()
        let pulled = try await copy.pull()
        try await copy.push()  // what the pull rebased
        print("\(device): pushed \(pushed), pulled \(pulled)", terminator: "")
    case "status" where command.count == 1:
        let status = try await copy.status()
        let conflicts = try await copy.conflicts()
        print(
            "\(device): \(status.pendingChangesets) pending, hub sequence \(status.lastAppliedSequence), "
                + "\(conflicts.count) conflict(s)" + conflicts.map { "\n  \($0.kind): \($0.decision)" }.joined(),
            terminator: "")
    default:
        throw CommandError(message: usage)
    }
    try await db.close()
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    guard arguments.count >= 2 else { throw CommandError(message: usage) }
    try await run(device: arguments[0], command: Array(arguments.dropFirst()))
} catch let error as CommandError {
    FileHandle.standardError.write(Data((error.message + "\n").utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
