import Bindery
import Foundation
import Testing

/// A transport that loses the answer of the first push after the hub stored it.
final class LossyTransport: SyncTransport, @unchecked Sendable {
    // @unchecked: `lost` is read and written under `lock` only.
    let hub: SyncHub
    private let lock = NSLock()
    private var lost = false

    init(hub: SyncHub) {
        self.hub = hub
    }

    struct Lost: Error {}

    func push(_ request: Data) async throws -> Data {
        let response = try await hub.handlePush(request)
        let loseIt = lock.withLock {
            defer { lost = true }
            return !lost
        }
        if loseIt {
            throw Lost()
        }
        return response
    }

    func pull(_ request: Data) async throws -> Data {
        try await hub.handlePull(request)
    }
}

/// Lines appended from a resolver, read by the test.
final class SyncLog: @unchecked Sendable {
    // @unchecked: `lines` is read and written under `lock` only.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    var entries: [String] { lock.withLock { lines } }
}

@Suite("Sync pull")
struct SyncPullTests {
    @Test func aRetriedPushIsStoredOnceAndRecognisedWhenPulled() async throws {
        let hub = try await SyncHub.inMemory()
        var options = Database.Options()
        options.sync = SyncConfiguration(tables: [SyncTable(SyncTodo.self)])
        let db = try Database.inMemory(options: options)
        try await db.write { conn in
            try conn.execute(script: "CREATE TABLE todos(id TEXT PRIMARY KEY, title TEXT, done INTEGER, rank INTEGER)")
        }
        let copy = try await SyncCopy(database: db, transport: LossyTransport(hub: hub))
        try await db.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        await #expect(throws: LossyTransport.Lost.self) { try await copy.push() }
        #expect(try await copy.status().unpushedChangesets == 1)
        #expect(try await copy.push() == 1)
        #expect(try await hub.head() == 1)
        #expect(try await copy.pull() == 1)
        let status = try await copy.status()
        #expect(status.pendingChangesets == 0)
        #expect(status.lastAppliedSequence == 1)
        #expect(try await db.fetchAll(SyncTodo.self) == [SyncTodo(id: "1", title: "milk", done: false, rank: 1)])
        // The outbox is empty now; the next changeset still gets a sequence of its own, which the hub
        // stores (the same sequence again would be a retry of changeset 1, with other bytes).
        try await db.insert(SyncTodo(id: "2", title: "bread", done: false, rank: 2))
        let sequences = try await db.read { try $0.rows("SELECT sequence FROM bindery_sync_outbox", arguments: []) }
        #expect(sequences.map(\.values) == [[.integer(2)]])
        #expect(try await copy.push() == 1)
        #expect(try await hub.head() == 2)
    }

    @Test func unpushedChangesAreRebasedAndTheResolverSeesWhichSideIsWhich() async throws {
        let seen = SyncLog()
        let policy = SyncPolicy.resolve(SyncTodo.self) { conflict in
            seen.append("\(conflict.local?.title ?? "-")/\(conflict.remote?.title ?? "-")")
            return .keepLocal
        }
        let fixture = try await SyncFixture.make(policy: policy)
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await fixture.settle()
        try await a.database.update(SyncTodo(id: "1", title: "A", done: false, rank: 1))
        try await a.push()
        try await b.database.update(SyncTodo(id: "1", title: "B", done: false, rank: 1))
        // b pulls before pushing: its change is rebased over a's, and b's resolver keeps b's.
        #expect(try await b.pull() == 1)
        #expect(seen.entries == ["B/A"])
        #expect(try await fixture.todos(1).map(\.title) == ["B"])
        #expect(try await b.status().pendingChangesets == 1)
        try await fixture.settle()
        #expect(try await fixture.todos(0).map(\.title) == ["B"])
        #expect(try await fixture.todos(1).map(\.title) == ["B"])
        // The rebased change no longer conflicts: no copy called the resolver again.
        #expect(seen.entries == ["B/A"])
    }

    @Test func aResolverThatThrowsLeavesTheWholeChangesetPending() async throws {
        struct Refused: Error {}
        let policy = SyncPolicy.resolve(SyncTodo.self) { _ in throw Refused() }
        let fixture = try await SyncFixture.make(policy: policy)
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await fixture.settle()
        try await b.database.update(SyncTodo(id: "1", title: "B", done: false, rank: 1))
        try await b.push()
        try await a.database.write { conn in
            try conn.update(SyncTodo(id: "1", title: "A", done: false, rank: 1))
            try conn.insert(SyncTodo(id: "2", title: "bread", done: false, rank: 2))
        }
        try await a.push()
        // b's pull meets a's changeset (sequence 3): row 1 conflicts and the resolver throws.
        do {
            try await b.pull()
            Issue.record("the pull applied a changeset its resolver refused")
        } catch SyncError.cannotApply(let sequence, let table, let key, let reason) {
            #expect(sequence == 3)
            #expect(table == "todos")
            #expect(key == "'1'")
            #expect(reason.contains("Refused"))
        }
        // Nothing of changeset 3 was applied (not even row 2); b's own change is still there.
        #expect(try await fixture.todos(1).map(\.title) == ["B"])
        let status = try await b.status()
        #expect(status.lastAppliedSequence == 2)
        #expect(status.lastError?.contains("changeset 3") == true)
    }

    @Test func aChangesetOfANewerSchemaIsHeldUntilTheCopyMigrates() async throws {
        let fixture = try await SyncFixture.make()
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        var first = Migrator()
        first.register("one") { _ in }
        var both = first
        both.register("add notes column") { conn in
            try conn.execute(script: "ALTER TABLE todos ADD COLUMN note TEXT")
        }
        try await both.migrate(a.database)
        try await first.migrate(b.database)
        try await a.database.write {
            try $0.execute("INSERT INTO todos VALUES ('1', 'milk', 0, 1, 'skim')", arguments: [])
        }
        try await a.push()
        do {
            try await b.pull()
            Issue.record("a changeset of a newer schema was applied")
        } catch SyncError.newerSchema(let sequence, let needed, let have) {
            #expect(sequence == 1)
            #expect(needed == 2)
            #expect(have == 1)
        }
        #expect(try await b.status().lastAppliedSequence == 0)
        #expect(try await b.status().lastError?.contains("migrate") == true)
        try await both.migrate(b.database)
        #expect(try await b.pull() == 1)
        let note = try await b.database.read { try $0.rows("SELECT note FROM todos", arguments: []) }
        #expect(note.first?.values == [.text("skim")])
        #expect(try await b.status().lastError == nil)
    }
}

@Suite("Sync resolver keys")
struct SyncResolverKeyTests {
    @Test func aMergedRecordWithAnotherKeyIsRefusedNotWrittenElsewhere() async throws {
        let policy = SyncPolicy.resolve(SyncTodo.self) { conflict in
            .merged(SyncTodo(id: "other", title: "merged", done: false, rank: 0))
        }
        let fixture = try await SyncFixture.make(policy: policy)
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await fixture.settle()
        try await a.database.update(SyncTodo(id: "1", title: "A", done: false, rank: 1))
        try await a.push()
        try await b.database.update(SyncTodo(id: "1", title: "B", done: false, rank: 1))
        try await b.push()
        do {
            try await a.pull()
            Issue.record("a merged record with another key was written")
        } catch SyncError.cannotApply(let sequence, let table, let key, let reason) {
            #expect(sequence == 3)
            #expect(table == "todos")
            #expect(key == "'1'")
            #expect(reason.contains("'other'"))
        }
        #expect(try await fixture.todos(0) == [SyncTodo(id: "1", title: "A", done: false, rank: 1)])
    }
}
