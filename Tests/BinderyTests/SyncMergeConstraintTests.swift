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

    static func copies(policy: SyncPolicy) async throws -> [SyncCopy] {
        let hub = try await SyncHub.inMemory()
        var copies: [SyncCopy] = []
        for _ in 0..<2 {
            var options = Database.Options()
            options.sync = SyncConfiguration(tables: [SyncTable(Span.self, policy: policy)])
            let db = try Database.inMemory(options: options)
            try await db.write { conn in try conn.execute(script: Self.schema) }
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
}
