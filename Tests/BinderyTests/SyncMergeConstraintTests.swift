import Foundation
import Testing

@testable import Bindery

/// A field-wise merge, or a resolver's merged record, can make a row that neither change made alone and
/// that breaks a constraint: `start` raised on one copy and `end` lowered on another, under
/// `CHECK (start <= "end")`. The merge's write threw, the pull stopped at that changeset for good
/// ("cannot be applied to row  of :", naming no row), and the copies kept different rows while every
/// later change stayed pending. The later change is now dropped, as the rules say of a change that
/// breaks a constraint, and logged.
@Suite struct SyncMergeConstraintTests {
    struct Span: Record, Equatable {
        static let tableName = "spans"
        var id: String
        var start: Int
        var end: Int
    }

    static let schema = """
        CREATE TABLE spans(id TEXT PRIMARY KEY NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL,
                           CHECK (start <= "end"));
        """

    static let mergingResolver = SyncPolicy.resolve(Span.self) { conflict in
        guard let local = conflict.local, let remote = conflict.remote else { return .keepRemote }
        return .merged(Span(id: local.id, start: max(local.start, remote.start), end: min(local.end, remote.end)))
    }

    static func copies(policy: SyncPolicy, schema: String = Self.schema) async throws -> [SyncCopy] {
        let hub = try await SyncHub.inMemory()
        var copies: [SyncCopy] = []
        for _ in 0..<2 {
            var options = Database.Options()
            options.sync = SyncConfiguration(tables: [SyncTable(Span.self, policy: policy)])
            let db = try Database.inMemory(options: options)
            try await db.write { conn in try conn.execute(script: schema) }
            copies.append(try await SyncCopy(database: db, transport: InProcessSyncTransport(hub: hub)))
        }
        return copies
    }

    static func settle(_ copies: [SyncCopy]) async throws {
        for copy in copies {
            try await copy.sync()
        }
        for copy in copies {
            try await copy.pull()
        }
    }

    @Test(arguments: ["fieldWise", "resolver"])
    func aMergedRowThatBreaksACheckDropsTheLaterChange(policy: String) async throws {
        let copies = try await Self.copies(policy: policy == "fieldWise" ? .fieldWise : Self.mergingResolver)
        try await copies[0].database.insert(Span(id: "1", start: 1, end: 10))
        try await Self.settle(copies)
        try await copies[0].database.update(Span(id: "1", start: 5, end: 10))
        try await copies[1].database.update(Span(id: "1", start: 1, end: 3))
        try await Self.settle(copies)
        try await copies[1].database.insert(Span(id: "2", start: 2, end: 4))
        try await Self.settle(copies)
        for copy in copies {
            #expect(
                try await copy.database.fetchAll(Span.self, orderBy: "id") == [
                    Span(id: "1", start: 5, end: 10), Span(id: "2", start: 2, end: 4),
                ])
            let status = try await copy.status()
            #expect(status.lastError == nil)
            #expect(status.pendingChangesets == 0)
        }
        let logged = try await copies[0].conflicts().filter { $0.kind == "constraint" }
        #expect(logged.count == 1)
        #expect(logged.first?.key.contains("1") == true)
    }

    /// The same table without its CHECK, with a trigger that raises a runtime error ("integer overflow")
    /// on the merged values alone.
    static let failingTriggerSchema = """
        CREATE TABLE spans(id TEXT PRIMARY KEY NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL);
        CREATE TRIGGER refuse AFTER UPDATE ON spans WHEN NEW.start = 5 AND NEW."end" = 3
        BEGIN SELECT abs(-9223372036854775807 - 1); END;
        """

    /// A merged write that fails otherwise than by a constraint: the pull stops, as it must, but its
    /// error escaped as a bare `SQLiteError` naming no row (the changeset's apply, which threw it, cannot
    /// tell). It now names the table and the row's key.
    @Test(arguments: ["fieldWise", "resolver"])
    func aMergedWriteThatFailsNamesItsRow(policy: String) async throws {
        let copies = try await Self.copies(
            policy: policy == "fieldWise" ? .fieldWise : Self.mergingResolver, schema: Self.failingTriggerSchema)
        try await copies[0].database.insert(Span(id: "1", start: 1, end: 10))
        try await copies[0].sync()
        try await copies[1].pull()
        try await copies[0].database.update(Span(id: "1", start: 5, end: 10))
        try await copies[0].sync()
        try await copies[1].database.update(Span(id: "1", start: 1, end: 3))
        do {
            try await copies[1].sync()
        } catch let error as SyncError {
            guard case .cannotApply(_, let table, let key, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(table == "spans")
            #expect(key.contains("1"))
            #expect(reason.contains("integer overflow"))
        }
        let status = try await copies[1].status()
        #expect(status.lastError?.contains("spans") == true)
        // Nothing of the changeset was applied: the copy keeps its own row, its change still pending.
        #expect(try await copies[1].database.fetchAll(Span.self) == [Span(id: "1", start: 1, end: 3)])
        #expect(status.pendingChangesets == 1)
    }
}
