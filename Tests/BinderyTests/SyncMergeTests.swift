import Bindery
import Foundation
import Testing

/// A to-do of the sync tests: a TEXT key chosen by the app.
struct SyncTodo: Record, Equatable {
    static let tableName = "todos"
    var id: String
    var title: String
    var done: Bool
    var rank: Int
}

/// Two or more copies of a synced database and one in-memory hub.
struct SyncFixture {
    let hub: SyncHub
    let copies: [SyncCopy]

    static func make(
        copies count: Int = 2, policy: SyncPolicy = .lastWriterWins, extraSchema: String = "",
        tables: [SyncTable]? = nil
    ) async throws -> SyncFixture {
        let hub = try await SyncHub.inMemory()
        var copies: [SyncCopy] = []
        for _ in 0..<count {
            var options = Database.Options()
            options.sync = SyncConfiguration(tables: tables ?? [SyncTable(SyncTodo.self, policy: policy)])
            let db = try Database.inMemory(options: options)
            try await db.write { conn in
                try conn.execute(
                    script: """
                        CREATE TABLE todos(id TEXT PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL,
                                           rank INTEGER NOT NULL);
                        \(extraSchema)
                        """)
            }
            copies.append(try await SyncCopy(database: db, transport: InProcessSyncTransport(hub: hub)))
        }
        return SyncFixture(hub: hub, copies: copies)
    }

    func todos(_ index: Int) async throws -> [SyncTodo] {
        try await copies[index].database.fetchAll(SyncTodo.self, orderBy: "id")
    }

    /// Every copy syncs, then every copy pulls once more, so that all have everything.
    func settle() async throws {
        for copy in copies {
            try await copy.sync()
        }
        for copy in copies {
            try await copy.pull()
        }
    }
}

@Suite("Sync merge")
struct SyncMergeTests {
    @Test func insertsUpdatesAndDeletesReachEveryCopy() async throws {
        let fixture = try await SyncFixture.make(copies: 3)
        let a = fixture.copies[0].database
        try await a.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await a.insert(SyncTodo(id: "2", title: "bread", done: false, rank: 2))
        try await fixture.settle()
        #expect(try await fixture.todos(2).map(\.title) == ["milk", "bread"])
        try await fixture.copies[1].database.update(SyncTodo(id: "1", title: "milk", done: true, rank: 1))
        try await fixture.copies[2].database.delete(SyncTodo.self, id: "2")
        try await fixture.settle()
        for index in 0..<3 {
            #expect(try await fixture.todos(index) == [SyncTodo(id: "1", title: "milk", done: true, rank: 1)])
        }
        let status = try await fixture.copies[0].status()
        #expect(status.pendingChangesets == 0)
        #expect(status.lastAppliedSequence == 4)
        #expect(status.lastError == nil)
        #expect(try await fixture.hub.head() == 4)
    }

    @Test func aCompositeKeyInAnotherOrderThanItsColumnsSyncs() async throws {
        // SQLite's apply compares the changeset's key positions with the table's and skips the table
        // silently when they differ: the rewritten (full-row) changesets must keep them.
        let fixture = try await SyncFixture.make(
            extraSchema: "CREATE TABLE pairs(a TEXT, b TEXT, v TEXT, PRIMARY KEY (b, a));",
            tables: [SyncTable(SyncTodo.self), SyncTable("pairs")])
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.write { try $0.execute("INSERT INTO pairs VALUES ('x', 'y', 'one')", arguments: []) }
        try await a.database.write { try $0.execute("UPDATE pairs SET v = 'two' WHERE a = 'x'", arguments: []) }
        try await fixture.settle()
        let rows = try await b.database.read { try $0.rows("SELECT a, b, v FROM pairs", arguments: []) }
        #expect(rows.map(\.values) == [[.text("x"), .text("y"), .text("two")]])
    }

    @Test func lastWriterWinsTakesTheWholeLaterRow() async throws {
        let fixture = try await SyncFixture.make(policy: .lastWriterWins)
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await fixture.settle()
        // Offline: a changes the title, b the rank; a pushes first, so b's row is later.
        try await a.database.update(SyncTodo(id: "1", title: "oat milk", done: false, rank: 1))
        try await b.database.update(SyncTodo(id: "1", title: "milk", done: false, rank: 9))
        try await a.push()
        try await fixture.settle()
        let expected = [SyncTodo(id: "1", title: "milk", done: false, rank: 9)]
        #expect(try await fixture.todos(0) == expected)
        #expect(try await fixture.todos(1) == expected)
        let conflicts = try await a.conflicts()
        #expect(conflicts.map(\.kind) == ["update of a changed row"])
        // a's title, overwritten by b's whole row, is what the decision dropped.
        #expect(conflicts.first?.dropped == "id = '1', title = 'oat milk', done = 0, rank = 1")
    }

    @Test func fieldWiseKeepsEachSidesColumns() async throws {
        let fixture = try await SyncFixture.make(policy: .fieldWise)
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await fixture.settle()
        try await a.database.update(SyncTodo(id: "1", title: "oat milk", done: false, rank: 2))
        try await b.database.update(SyncTodo(id: "1", title: "milk", done: true, rank: 3))
        try await a.push()
        try await fixture.settle()
        // title: a only; done: b only; rank: both, b's is later.
        let expected = [SyncTodo(id: "1", title: "oat milk", done: true, rank: 3)]
        #expect(try await fixture.todos(0) == expected)
        #expect(try await fixture.todos(1) == expected)
        // Only a's rank, which both changed, was dropped.
        #expect(try await a.conflicts().map(\.dropped) == ["rank = 2"])
    }

    @Test func resolverSeesRecordsAndItsMergeReachesEveryCopy() async throws {
        let policy = SyncPolicy.resolve(SyncTodo.self) { conflict in
            guard let local = conflict.local, let remote = conflict.remote, let base = conflict.base else {
                return .keepRemote
            }
            #expect(base.title == "milk")
            return .merged(SyncTodo(id: local.id, title: local.title + "+" + remote.title, done: false, rank: 0))
        }
        let fixture = try await SyncFixture.make(policy: policy)
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await fixture.settle()
        try await a.database.update(SyncTodo(id: "1", title: "A", done: false, rank: 1))
        try await b.database.update(SyncTodo(id: "1", title: "B", done: false, rank: 1))
        try await a.push()
        try await fixture.settle()
        let first = try await fixture.todos(0)
        #expect(first.count == 1)
        #expect(try await fixture.todos(1) == first)
        #expect(first.first?.title.contains("+") == true)
    }

    @Test func updateAgainstDeleteTheDeleteWins() async throws {
        let fixture = try await SyncFixture.make(policy: .lastWriterWins)
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await fixture.settle()
        try await a.database.delete(SyncTodo.self, id: "1")
        try await b.database.update(SyncTodo(id: "1", title: "milk", done: true, rank: 1))
        try await a.push()
        try await fixture.settle()
        #expect(try await fixture.todos(0).isEmpty)
        #expect(try await fixture.todos(1).isEmpty)
        #expect(
            try await b.conflicts().contains {
                $0.decision == "the delete wins" && $0.dropped == "id = '1', title = 'milk', done = 1, rank = 1"
            })
    }

    @Test func deleteAfterAnUpdateStillDeletes() async throws {
        let fixture = try await SyncFixture.make(policy: .fieldWise)
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await fixture.settle()
        try await a.database.update(SyncTodo(id: "1", title: "milk", done: true, rank: 1))
        try await b.database.delete(SyncTodo.self, id: "1")
        try await a.push()
        try await fixture.settle()
        #expect(try await fixture.todos(0).isEmpty)
        #expect(try await fixture.todos(1).isEmpty)
    }

    @Test func insertAgainstInsertTheLaterWins() async throws {
        let fixture = try await SyncFixture.make(policy: .lastWriterWins)
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "from a", done: false, rank: 1))
        try await b.database.insert(SyncTodo(id: "1", title: "from b", done: false, rank: 2))
        try await a.push()
        try await fixture.settle()
        let expected = [SyncTodo(id: "1", title: "from b", done: false, rank: 2)]
        #expect(try await fixture.todos(0) == expected)
        #expect(try await fixture.todos(1) == expected)
    }

    @Test func uniqueViolationDropsTheLaterChange() async throws {
        let fixture = try await SyncFixture.make(extraSchema: "CREATE UNIQUE INDEX todos_title ON todos(title);")
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await b.database.insert(SyncTodo(id: "2", title: "milk", done: false, rank: 2))
        try await a.push()
        try await fixture.settle()
        let expected = [SyncTodo(id: "1", title: "milk", done: false, rank: 1)]
        #expect(try await fixture.todos(0) == expected)
        #expect(try await fixture.todos(1) == expected)
        let logged = try await b.conflicts()
        #expect(logged.contains { $0.kind == "constraint" && $0.key == "'2'" })
    }

    /// Copies that sync to-dos and their notes (a foreign key to todos).
    static func notesFixture() async throws -> SyncFixture {
        try await SyncFixture.make(
            extraSchema: "CREATE TABLE notes(id TEXT PRIMARY KEY, todo TEXT NOT NULL REFERENCES todos(id), body TEXT);",
            tables: [SyncTable(SyncTodo.self), SyncTable("notes")])
    }

    @Test func childOfADeletedParentIsDeleted() async throws {
        let fixture = try await Self.notesFixture()
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await fixture.settle()
        try await a.database.delete(SyncTodo.self, id: "1")
        try await b.database.write { try $0.execute("INSERT INTO notes VALUES ('n1', '1', 'skimmed')") }
        try await a.push()
        try await fixture.settle()
        for copy in fixture.copies {
            let notes = try await copy.database.read { try $0.rows("SELECT id FROM notes", arguments: []) }
            #expect(notes.isEmpty)
            let violations = try await copy.database.read { try $0.rows("PRAGMA foreign_key_check", arguments: []) }
            #expect(violations.isEmpty)
        }
        #expect(try await b.conflicts().contains { $0.kind == "row without its parent" && $0.table == "notes" })
    }

    @Test func aTempTableNamedLikeTheParentDoesNotMakeOrphans() async throws {
        // A TEMP table on the pulling copy's writer, named like the parent table and empty: the search
        // for rows without parent must look at the synced tables, in the main schema.
        let fixture = try await Self.notesFixture()
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await a.database.insert(SyncTodo(id: "2", title: "bread", done: false, rank: 2))
        try await fixture.settle()
        try await b.database.write { try $0.execute(script: "CREATE TEMP TABLE todos(id TEXT PRIMARY KEY)") }
        try await a.database.delete(SyncTodo.self, id: "1")
        try await b.database.write {
            try $0.execute("INSERT INTO notes VALUES ('n1', '1', 'skimmed'), ('n2', '2', 'rye')", arguments: [])
        }
        try await a.push()
        try await fixture.settle()
        for copy in fixture.copies {
            let notes = try await copy.database.read { try $0.rows("SELECT id FROM main.notes", arguments: []) }
            #expect(notes.map(\.values) == [[.text("n2")]])
        }
    }
}
