import Bindery
import Foundation

// persistence: a type that persists itself. Its table is described by its properties (printed once
// as table-builder code and pasted into a migration), one property is kept out of storage, changes
// go through transactions with nested savepoints, and a migration grows the table when the type gains
// properties.
//
//     persistence [--db PATH]      default ./persistence.sqlite, recreated on every run

/// A note as version 1 of the app stores it.
struct Note: Record {
    static let tableName = "notes"

    var id: Int64?
    var title: String
    var body: String
    var createdAt: Date
    /// Transient: not in `CodingKeys`, so never stored; a note read back has the default.
    var isSelected = false

    enum CodingKeys: String, CodingKey {
        case id, title, body, createdAt
    }
}

/// The same table as version 2 of the app sees it: two optional properties more.
struct NoteV2: Record {
    static let tableName = "notes"

    var id: Int64?
    var title: String
    var body: String
    var createdAt: Date
    var pinned: Bool?
    var tags: [String]?
}

/// The migrations of both versions; version 1 of the app registered only the first. Each holds the
/// schema as it was: the first is the code `createTableCode(for: Note.self)` printed once, so a fresh
/// install and an upgrade end with the same table whatever the struct becomes.
func makeMigrator() -> Migrator {
    var migrator = Migrator()
    migrator.register("create table notes") { conn in
        try conn.create(table: "notes") { t in
            t.column("id", .integer).primaryKey()
            t.column("title", .text).notNull()
            t.column("body", .text).notNull()
            t.column("createdAt", .text).notNull()
        }
    }
    migrator.register("notes: add pinned and tags") { conn in
        try conn.alter(table: "notes") { t in
            t.add(column: "pinned", .integer)
            t.add(column: "tags", .text)
        }
    }
    return migrator
}

/// The columns of `table`, as SQLite reports them.
func columns(of table: String, in db: Database) async throws -> [String] {
    try await db.read { conn in
        try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info(\(table)) ORDER BY cid")
    }
}

/// The titles of the notes, in id order.
func titles(in db: Database) async throws -> [String] {
    try await db.fetchAll(Note.self, orderBy: "id").map(\.title)
}

var path = "persistence.sqlite"
if let index = CommandLine.arguments.firstIndex(of: "--db"), index + 1 < CommandLine.arguments.count {
    path = CommandLine.arguments[index + 1]
}
for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
    try FileManager.default.removeItem(atPath: path + suffix)
}

let db = try Database(path: path)
let migrator = makeMigrator()

print("1. The table as the type describes it, printed once and pasted into the first migration:")
print(
    try await db.read { conn in try conn.createTableCode(for: Note.self) }.split(separator: "\n").map { "  " + $0 }
        .joined(separator: "\n"))
print("  migrated: \(try await migrator.migrate(db, upTo: "create table notes").joined(separator: ", "))")
print("  columns: \(try await columns(of: "notes", in: db).joined(separator: ", "))")

print("\n2. A property outside CodingKeys is not stored:")
let created = Date(timeIntervalSince1970: 1_718_000_000)  // 2024-06-10 06:13:20 UTC
var draft = Note(title: "Groceries", body: "eggs, flour", createdAt: created)
draft.isSelected = true
let saved = try await db.insert(draft)
print("  inserted #\(saved.id.map(String.init) ?? "?") with isSelected = \(draft.isSelected)")
let reloaded = try await db.find(Note.self, id: saved.id)
print("  read back: isSelected = \(reloaded?.isSelected.description ?? "no row")")

print("\n3. Transactions with nested savepoints:")
/// The error that rolls back the inner savepoint below.
struct ChangedMyMind: Error {}
try await db.write { conn in  // the outer transaction
    try conn.insert(Note(title: "Outer: kept", body: "", createdAt: created))
    try conn.transaction { conn in  // a savepoint that commits with the outer transaction
        _ = try conn.insert(Note(title: "Inner savepoint: kept", body: "", createdAt: created))
    }
    do {
        try conn.transaction { conn in  // a savepoint rolled back alone
            try conn.insert(Note(title: "Inner savepoint: rolled back", body: "", createdAt: created))
            throw ChangedMyMind()
        }
    } catch is ChangedMyMind {
        print("  the second savepoint threw and was rolled back; the outer transaction goes on")
    }
}
print("  committed: \(try await titles(in: db))")
struct Abandon: Error {}
do {
    try await db.write { conn in
        try conn.insert(Note(title: "Never stored", body: "", createdAt: created))
        throw Abandon()
    }
} catch is Abandon {
    print("  a write that throws stores nothing: \(try await titles(in: db).count) notes")
}

print("\n4. Version 2 gains optional properties; a migration grows the table:")
for migration in try await migrator.preview(db) {
    print(migration.description.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
}
try await migrator.migrate(db)
print("  columns: \(try await columns(of: "notes", in: db).joined(separator: ", "))")
let old = try await db.find(NoteV2.self, id: saved.id)
let oldPinned = String(describing: old?.pinned)
print("  an old row read as NoteV2: pinned = \(oldPinned), tags = \(String(describing: old?.tags))")
if var note = old {
    note.pinned = true
    note.tags = ["home", "weekly"]
    try await db.update(note)
}
let pinned = try await db.fetchAll(NoteV2.self, where: "pinned = \(true)")
print("  pinned: \(pinned.map { "\($0.title) (\(($0.tags ?? []).joined(separator: ", ")))" })")
print("  pending now: \(try await migrator.pendingIdentifiers(in: db).count)")
try await db.close()
