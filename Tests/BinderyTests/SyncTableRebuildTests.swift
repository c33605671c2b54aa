import Foundation
import Testing

@testable import Bindery

/// Sync meeting table rebuilds by `alter(table:)` on one copy only: a CHECK added, the columns put in
/// another order, a column's collation changed. Rows written after the rebuild must reach the other
/// copy with each value in its own column (compared by name through plain SQL), or the pull must
/// throw; never a value in another column.
@Suite struct SyncTableRebuildTests {
    private static func values(_ db: Database) async throws -> [String] {
        try await db.read { conn in
            try conn.fetchAll(
                String.self,
                sql:
                    "SELECT hex(id) || ' ' || quote(title) || ' ' || quote(done) || ' ' || quote(rank) FROM todos ORDER BY id"
            )
        }
    }

    private static func seed(_ fixture: SyncFixture) async throws {
        try await fixture.copies[0].database.write { conn in
            try conn.insert(
                contentsOf: (1...5).map { SyncTodo(id: "t\($0)", title: "title \($0)", done: false, rank: $0) })
        }
        try await fixture.settle()
    }

    @Test func aRebuildThatKeepsTheColumnsKeepsSyncing() async throws {
        let fixture = try await SyncFixture.make()
        try await Self.seed(fixture)
        let (a, b) = (fixture.copies[0].database, fixture.copies[1].database)
        try await a.write { conn in
            try conn.alter(table: "todos") { t in t.check("rank >= \(0)") }
        }
        try await a.write { conn in
            try conn.update(SyncTodo(id: "t1", title: "one", done: true, rank: 10))
            try conn.insert(SyncTodo(id: "t9", title: "nine", done: false, rank: 9))
            _ = try conn.delete(SyncTodo.self, id: "t2")
        }
        try await b.write { conn in try conn.update(SyncTodo(id: "t3", title: "three", done: true, rank: 30)) }
        try await fixture.settle()
        #expect(try await Self.values(a) == Self.values(b))
        #expect(try await b.find(SyncTodo.self, id: "t1") == SyncTodo(id: "t1", title: "one", done: true, rank: 10))
        #expect(try await a.find(SyncTodo.self, id: "t3") == SyncTodo(id: "t3", title: "three", done: true, rank: 30))
        #expect(try await b.find(SyncTodo.self, id: "t2") == nil)
    }

    @Test func columnsPutInAnotherOrderOrDroppedAreRefusedAndNothingChanges() async throws {
        let fixture = try await SyncFixture.make()
        try await Self.seed(fixture)
        let (a, b) = (fixture.copies[0].database, fixture.copies[1].database)
        let before = try await Self.values(a)
        let alterations: [(String, @Sendable (TableAlteration) -> Void)] = [
            ("title", { t in t.order(columns: ["id", "rank", "done", "title"]) }),
            ("title", { t in t.drop(column: "title") }),
            ("rank", { t in t.drop(column: "rank") }),
        ]
        for (column, alteration) in alterations {
            let error = await #expect(throws: SyncError.self) {
                try await a.write { conn in try conn.alter(table: "todos", alteration) }
            }
            guard case .unsupportedColumn(let table, let named, _) = error else {
                Issue.record("\(String(describing: error))")
                continue
            }
            #expect(table == "todos" && named == column)
        }
        let columns = try await a.read { conn in
            try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info('todos') ORDER BY cid")
        }
        #expect(columns == ["id", "title", "done", "rank"])
        #expect(try await Self.values(a) == before)
        // Syncing goes on, each value in its own column.
        try await a.write { conn in try conn.update(SyncTodo(id: "t1", title: "one", done: true, rank: 10)) }
        try await b.write { conn in try conn.update(SyncTodo(id: "t3", title: "three", done: true, rank: 30)) }
        try await fixture.settle()
        #expect(try await Self.values(a) == Self.values(b))
        #expect(try await a.find(SyncTodo.self, id: "t3") == SyncTodo(id: "t3", title: "three", done: true, rank: 30))
    }

    @Test func aColumnRenamedInPlaceOrAddedAtTheEndKeepsSyncing() async throws {
        let fixture = try await SyncFixture.make()
        try await Self.seed(fixture)
        let (a, b) = (fixture.copies[0].database, fixture.copies[1].database)
        for db in [a, b] {
            try await db.write { conn in
                try conn.alter(table: "todos") { t in
                    t.rename(column: "title", to: "label")
                    t.add(column: "note", .text)
                }
            }
        }
        try await a.write { conn in try conn.execute("UPDATE todos SET label = 'one', note = 'n' WHERE id = 't1'") }
        try await b.write { conn in try conn.execute("UPDATE todos SET rank = 30 WHERE id = 't3'") }
        try await fixture.settle()
        let rows = try await b.read { conn in
            try conn.fetchAll(
                String.self,
                sql: "SELECT id || ' ' || label || ' ' || rank || ' ' || ifnull(note, '-') FROM todos ORDER BY id")
        }
        #expect(rows == ["t1 one 1 n", "t2 title 2 2 -", "t3 title 3 30 -", "t4 title 4 4 -", "t5 title 5 5 -"])
        #expect(
            try await a.read { conn in
                try conn.fetchAll(
                    String.self,
                    sql: "SELECT id || ' ' || label || ' ' || rank || ' ' || ifnull(note, '-') FROM todos ORDER BY id")
            } == rows)
    }
}
