import Foundation
import Testing

@testable import Bindery

/// A resolver stores its merged record by an upsert of its record type, in that type's table. Given to
/// another synced table (two tables of the same shape, one record type), its merges went to the type's
/// table — a row that never existed there — while the conflicting row kept the earlier change.
@Suite struct SyncResolverTableTests {
    static let archive = """
        CREATE TABLE archive(id TEXT PRIMARY KEY, title TEXT NOT NULL, done INTEGER NOT NULL, rank INTEGER NOT NULL);
        """

    static let concatenating = SyncPolicy.resolve(SyncTodo.self) { conflict in
        guard let local = conflict.local, let remote = conflict.remote else { return .keepRemote }
        return .merged(SyncTodo(id: local.id, title: local.title + "+" + remote.title, done: false, rank: 0))
    }

    @Test func aResolverOfARecordTypeStoredInAnotherTableIsRefusedWhenTheDatabaseOpens() throws {
        var options = Database.Options()
        options.sync = SyncConfiguration(tables: [
            SyncTable(SyncTodo.self), SyncTable("archive", policy: Self.concatenating),
        ])
        #expect(
            throws: SyncError.resolverOfAnotherTable(table: "archive", recordType: "SyncTodo", recordTable: "todos")
        ) {
            _ = try Database.inMemory(options: options)
        }
    }

    @Test func aResolverOfTheTablesOwnTypeSpeltInAnotherCaseMergesIntoTheTable() async throws {
        let fixture = try await SyncFixture.make(tables: [SyncTable("TODOS", policy: Self.concatenating)])
        let (a, b) = (fixture.copies[0], fixture.copies[1])
        try await a.database.insert(SyncTodo(id: "1", title: "milk", done: false, rank: 1))
        try await fixture.settle()
        try await a.database.update(SyncTodo(id: "1", title: "A", done: false, rank: 1))
        try await b.database.update(SyncTodo(id: "1", title: "B", done: false, rank: 1))
        try await a.push()
        try await fixture.settle()
        #expect(try await fixture.todos(0).map(\.title) == ["A+B"])
        #expect(try await fixture.todos(1).map(\.title) == ["A+B"])
    }
}
