import Foundation
import Testing

@testable import Bindery

/// A field-wise merge, or a resolver's merged record, whose write fails otherwise than by a constraint
/// (here a trigger that raises a runtime error on the merged values alone): the pull stops, as it
/// must, but its error named no row ("cannot be applied to row  of :"), since the changeset's apply,
/// which threw it, cannot tell. It now names the table and the row's key.
@Suite struct SyncMergeWriteErrorTests {
    struct Span: Record, Equatable {
        static let tableName = "spans"
        var id: String
        var start: Int
        var end: Int
    }

    static let schema = """
        CREATE TABLE spans(id TEXT PRIMARY KEY NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL);
        CREATE TRIGGER refuse AFTER UPDATE ON spans WHEN NEW.start = 5 AND NEW."end" = 3
        BEGIN SELECT abs(-9223372036854775807 - 1); END;
        """

    static let mergingResolver = SyncPolicy.resolve(Span.self) { conflict in
        guard let local = conflict.local, let remote = conflict.remote else { return .keepRemote }
        return .merged(Span(id: local.id, start: max(local.start, remote.start), end: min(local.end, remote.end)))
    }

    @Test(arguments: ["fieldWise", "resolver"])
    func aMergedWriteThatFailsNamesItsRow(policy: String) async throws {
        let hub = try await SyncHub.inMemory()
        var copies: [SyncCopy] = []
        for _ in 0..<2 {
            var options = Database.Options()
            let syncPolicy = policy == "fieldWise" ? SyncPolicy.fieldWise : Self.mergingResolver
            options.sync = SyncConfiguration(tables: [SyncTable(Span.self, policy: syncPolicy)])
            let db = try Database.inMemory(options: options)
            try await db.write { conn in try conn.execute(script: Self.schema) }
            copies.append(try await SyncCopy(database: db, transport: InProcessSyncTransport(hub: hub)))
        }
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
