import Bindery
import Foundation

// user-dal: a generic data-access type (DataAccess.swift) used on a `User` record; each helper runs
// once and prints its result, then a full-text search of the users from typed text. The database is
// in memory, so every run prints the same thing.

/// A user of some service, one row of the `users` table.
struct User: Record {
    static let tableName = "users"

    var id: Int64?
    var name: String
    var email: String
    var age: Int
    var joinedAt: Date
    var bio: String
}

/// A search hit: the user's name and the words of the bio around what matched.
struct Found: Decodable, Sendable {
    var name: String
    var excerpt: String?
}

// The search table's triggers write to an FTS5 table, which SQLite runs only on connections that
// trust the schema: fine for a database this program creates itself.
let db = try Database.inMemory(options: .init(schemaTrust: .trustedSchema))
var migrator = Migrator()
migrator.register("create users") { conn in
    try conn.execute(
        script: """
            CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE,
                               age INTEGER NOT NULL, joinedAt TEXT NOT NULL, bio TEXT NOT NULL)
            """)
}
migrator.register("search users") { conn in
    try conn.create(
        searchTable: "users_fts", on: "users", columns: ["name", "bio"], tokenizer: .unicode61(removeDiacritics: true),
        weights: ["name": 5])
}
try await migrator.migrate(db)
let users = DataAccess<User>(db: db)

let joined = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14 22:13:20 UTC
let people = [
    ("Ana", 31, "Writes Swift servers backed by SQLite."), ("Bo", 25, "Designs posters; café regular."),
    ("Chidi", 40, "Teaches ethics at the café; reads SQL manuals."), ("Dana", 25, "Swift and Kotlin on phones."),
    ("Eli", 58, "Retired sailor; SQLite for the logbook."),
]
for (name, age, bio) in people {
    let id = try await users.insert(
        User(id: nil, name: name, email: "\(name.lowercased())@example.org", age: age, joinedAt: joined, bio: bio))
    print("insert \(name) -> id \(id)")
}

/// One line describing a user, or "nil".
func describe(_ user: User?) -> String {
    guard let user else { return "nil" }
    return "#\(user.id.map(String.init) ?? "?") \(user.name) <\(user.email)> age \(user.age)"
}

print("find(id: 3) -> \(describe(try await users.find(id: 3)))")
print("find(id: 99) -> \(describe(try await users.find(id: 99)))")
print("findOne(email = bo@example.org) -> \(describe(try await users.findOne(where: "email = \("bo@example.org")")))")
let young = try await users.find(where: "age < \(35)", orderBy: "age, name")
print("find(age < 35, by age, name) -> \(young.map(\.name))")
print("all -> \(try await users.all(orderBy: "name").map(\.name))")
print("page 1, size 2 -> \(try await users.page(1, size: 2, orderBy: "id").map(\.name))")
print("fieldList(email) -> \(try await users.fieldList("email", as: String.self))")
print("fieldList(name, age = 25) -> \(try await users.fieldList("name", as: String.self, where: "age = \(25)"))")
print("count -> \(try await users.count())")
print("count(age >= 40) -> \(try await users.count(where: "age >= \(40)"))")
print("exists(name = Eli) -> \(try await users.exists(where: "name = \("Eli")"))")
print("exists(name = Zed) -> \(try await users.exists(where: "name = \("Zed")"))")

if var chidi = try await users.find(id: 3) {
    chidi.email = "chidi@philosophy.example.org"
    chidi.age = 41
    try await users.update(chidi, columns: ["email"])  // only the email is written
    print("update(#3, columns: email) -> \(describe(try await users.find(id: 3)))")
    try await users.update(chidi)
    print("update(#3) -> \(describe(try await users.find(id: 3)))")
}
do {
    try await users.update(User(id: 99, name: "Nobody", email: "", age: 0, joinedAt: joined, bio: ""))
} catch let error as RecordError {
    print("update(#99) -> \(error)")
}

print("delete(id: 2) -> \(try await users.delete(id: 2))")
print("delete(id: 2) again -> \(try await users.delete(id: 2))")
print("delete(age > 50) -> \(try await users.delete(where: "age > \(50)")) row(s)")
print("remaining -> \(try await users.all(orderBy: "id").map(\.name))")

// Full-text search: what someone typed into a search box, quotes and all, becomes a pattern that
// cannot break the query; the best matches come first, with the words around them.
for typed in ["sql \"swift", "CAFE", "((", "kotlin"] {
    guard let pattern = SearchPattern.prefix(typed) else {
        print("search(\(typed)) -> no words to search for")
        continue
    }
    let excerpt = SQL.snippet(in: "users_fts", column: 1, before: "[", after: "]", tokens: 6)
    let found = try await db.fetchAll(
        Found.self, User.all().matching(pattern, in: "users_fts").limit(10).select("name, \(excerpt) AS excerpt"))
    let lines = found.map { "\($0.name): \($0.excerpt ?? "")" }
    print("search(\(typed)) -> \(lines.isEmpty ? "nothing" : lines.joined(separator: " | "))")
}
try await db.close()
