import Foundation
import Testing

@testable import Bindery

/// Databases made from one template (`Database.Options.templatePath`) that was itself a synced
/// database: each must be a copy of its own. With the template's copy id, a copy that pulled another's
/// changeset took it for its own pending one of the same sequence, dropped that one unpushed and undid
/// its rows: its writes vanished on every copy, with no error.
@Suite(.timeLimit(.minutes(1))) struct SyncTemplateCopyTests {
    static let schema = """
        CREATE TABLE todos(id TEXT PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL, rank INTEGER NOT NULL);
        """

    private static func options() -> Database.Options {
        var options = Database.Options()
        options.sync = SyncConfiguration(tables: [SyncTable(SyncTodo.self)])
        return options
    }

    /// A synced template at `path`: its table, a seed row pushed to `hub`, and a row written after.
    private static func makeTemplate(at path: String, hub: SyncHub) async throws {
        let template = try Database(path: path, options: options())
        try await template.writeWithoutTransaction { conn in try conn.execute(script: schema) }
        let copy = try await SyncCopy(database: template, transport: InProcessSyncTransport(hub: hub))
        try await template.insert(SyncTodo(id: "seed", title: "pushed", done: false, rank: 0))
        try await copy.sync()
        try await template.insert(SyncTodo(id: "local", title: "unpushed", done: false, rank: 0))
        try await template.close()
    }

    @Test func copiesMadeFromOneSyncedTemplateKeepEachOthersWrites() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let hub = try await SyncHub.inMemory()
            let templatePath = directory.appendingPathComponent("template.sqlite").path
            try await Self.makeTemplate(at: templatePath, hub: hub)
            var options = Self.options()
            options.templatePath = templatePath
            let a = try Database(path: directory.appendingPathComponent("a.sqlite").path, options: options)
            let b = try Database(path: directory.appendingPathComponent("b.sqlite").path, options: options)
            let copyA = try await SyncCopy(database: a, transport: InProcessSyncTransport(hub: hub))
            let copyB = try await SyncCopy(database: b, transport: InProcessSyncTransport(hub: hub))
            #expect(try await copyA.status().copyID != copyB.status().copyID)
            try await a.insert(SyncTodo(id: "a", title: "from a", done: false, rank: 1))
            try await b.insert(SyncTodo(id: "b", title: "from b", done: false, rank: 1))
            try await copyA.sync()
            // b pulls a's changesets before it pushes its own.
            _ = try await copyB.pull()
            try await copyB.sync()
            try await copyA.sync()
            let expected = ["a", "b", "local", "seed"]
            #expect(try await a.fetchAll(SyncTodo.self, orderBy: "id").map(\.id) == expected)
            #expect(try await b.fetchAll(SyncTodo.self, orderBy: "id").map(\.id) == expected)
            #expect(try await copyA.status().pendingChangesets == 0)
            #expect(try await copyB.status().pendingChangesets == 0)
            #expect(try await copyB.status().lastError == nil)
            try await a.close()
            try await b.close()
        }
    }
}
