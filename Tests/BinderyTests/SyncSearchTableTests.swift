import Foundation
import Testing

@testable import Bindery

/// Sync meeting a search table kept by triggers over a synced table with a TEXT key: rows that pulls
/// apply (inserts, updates, deletes, a last-writer-wins conflict) are indexed on the copy that pulls
/// them, as a LIKE scan finds them, and FTS5's integrity check passes on both copies.
@Suite struct SyncSearchTableTests {
    static let words = ["milk", "bread", "eggs", "tea"]

    private static func copies(_ hub: SyncHub) async throws -> [SyncCopy] {
        var copies: [SyncCopy] = []
        for _ in 0..<2 {
            var options = Database.Options()
            options.sync = SyncConfiguration(tables: [SyncTable(SyncTodo.self)])
            options.schemaTrust = .trustedSchema
            let db = try Database.inMemory(options: options)
            try await db.write { conn in
                try conn.execute(
                    "CREATE TABLE todos(id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL, done INTEGER NOT NULL, rank INTEGER NOT NULL)"
                )
                try conn.create(searchTable: "todos_fts", on: "todos", columns: ["title"])
            }
            copies.append(try await SyncCopy(database: db, transport: InProcessSyncTransport(hub: hub)))
        }
        return copies
    }

    private static func check(_ db: Database, _ step: String) async throws {
        try await db.read { conn in
            for word in words {
                let pattern = try #require(SearchPattern.all(word))
                let found = try conn.fetchAll(
                    SyncTodo.all().matching(pattern, in: "todos_fts", ranked: false).order("id"))
                let like = "%" + word + "%"
                let scanned = try conn.fetchAll(SyncTodo.all().filter("title LIKE \(like)").order("id"))
                #expect(found == scanned, "\(word) after \(step)")
            }
        }
        try await db.write { conn in try conn.checkIntegrity(searchTable: "todos_fts") }
    }

    @Test func pulledRowsAreIndexed() async throws {
        let hub = try await SyncHub.inMemory()
        let copies = try await Self.copies(hub)
        let (a, b) = (copies[0].database, copies[1].database)
        func settle() async throws {
            for copy in copies { try await copy.sync() }
            for copy in copies { try await copy.pull() }
        }
        try await a.write { conn in
            try conn.insert(contentsOf: [
                SyncTodo(id: "1", title: "milk and bread", done: false, rank: 1),
                SyncTodo(id: "2", title: "eggs", done: false, rank: 2),
                SyncTodo(id: "3", title: "tea", done: false, rank: 3),
            ])
        }
        try await settle()
        try await Self.check(b, "insert")
        try await a.update(SyncTodo(id: "1", title: "tea and eggs", done: false, rank: 1))
        try await b.update(SyncTodo(id: "1", title: "bread only", done: true, rank: 1))
        _ = try await b.delete(SyncTodo.self, id: "3")
        try await copies[0].push()
        try await settle()
        for db in [a, b] { try await Self.check(db, "conflict") }
        let first = try await a.fetchAll(SyncTodo.self, orderBy: "id")
        #expect(try await b.fetchAll(SyncTodo.self, orderBy: "id") == first)
    }
}
