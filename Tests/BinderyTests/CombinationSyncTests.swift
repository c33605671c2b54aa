import Foundation
import Testing

@testable import Bindery

/// Sync's change capture meeting bulk writes (multi-row batches undone and redone one by one),
/// conflict policies, upserts and request-driven deletes and updates: every committed change reaches
/// the other copy, which ends equal to the one that wrote.
@Suite("Combination: sync with bulk writes and requests")
struct CombinationSyncTests {
    private static func todo(_ id: String, _ title: String, rank: Int = 0, done: Bool = false) -> SyncTodo {
        SyncTodo(id: id, title: title, done: done, rank: rank)
    }

    @Test func bulkWritesWithConflictPoliciesAndRequestWritesReachTheOtherCopy() async throws {
        let fixture = try await SyncFixture.make(
            copies: 2, extraSchema: "CREATE UNIQUE INDEX todos_title ON todos(title);")
        let a = fixture.copies[0].database
        try await a.write { conn in
            try conn.insert(contentsOf: (1...150).map { Self.todo("t\($0)", "title \($0)", rank: $0) })
        }
        try await fixture.settle()
        try await a.write { conn in
            // A batch where one record is ignored (its title is taken), another through its key.
            _ = try conn.insert(
                contentsOf: [Self.todo("n1", "title 3"), Self.todo("t4", "other"), Self.todo("n2", "new 2")]
                    + (3...60).map { Self.todo("m\($0)", "more \($0)") },
                onConflict: .ignore)
            // Replaces through the key and through the UNIQUE title, in one batch.
            _ = try conn.insert(
                contentsOf: [Self.todo("t5", "five again", rank: 5), Self.todo("r1", "title 6", rank: 66)]
                    + (3...40).map { Self.todo("r\($0)", "replaced \($0)") },
                onConflict: .replace)
            // The same key twice ends as the later record.
            try conn.upsert(contentsOf: [
                Self.todo("u1", "upserted", rank: 1), Self.todo("t7", "seven", rank: 7, done: true),
                Self.todo("u1", "upserted again", rank: 2),
            ])
            try conn.update(contentsOf: [Self.todo("t8", "eight", rank: 8, done: true)])
        }
        let counts = try await a.write { conn in
            [
                try conn.deleteAll(SyncTodo.all().filter("rank > \(100)").order("rank").reversed().limit(20)),
                try conn.updateAll(SyncTodo.all().filter(keys: ["t9", "t10", "t9", "none"]), set: "done = 1"),
                try conn.deleteAll(SyncTodo.all().filter(keys: ["t11", "t12"])),
            ]
        }
        #expect(counts == [20, 2, 2])
        try await fixture.settle()
        let first = try await fixture.todos(0)
        let second = try await fixture.todos(1)
        #expect(first.count == second.count)
        #expect(first == second)
        #expect(first.contains(Self.todo("u1", "upserted again", rank: 2)))
        #expect(!first.contains { $0.id == "t6" })
        #expect(!first.contains { $0.id == "n1" })
        #expect(first.first { $0.id == "t4" }?.title == "title 4")
    }
}
