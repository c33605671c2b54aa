import Foundation
import Testing

@testable import Bindery

/// Cancels racing jobs that run, finish, and call `close()` on their connection, on the writer and on
/// readers: the cancelling thread interrupts a connection while the job's thread uses, lends back or
/// refuses to close it. Run under ThreadSanitizer:
/// `swift test --sanitize=thread --scratch-path .build/tsan --filter Stress`.
@Suite(.timeLimit(.minutes(3)))
struct InterruptStressTests {
    private struct Item: Record {
        static let tableName = "items"
        var id: Int64?
        var n: Int
    }

    private func hammer(_ db: Database, rounds: Int) async throws {
        try await db.createTable(for: Item.self)
        let steady = Task {
            for n in 0..<rounds / 2 {
                try await db.insert(Item(id: nil, n: n))
                _ = try await db.count(Item.self)
            }
        }
        var outcomes: [String: Int] = [:]
        for round in 0..<rounds {
            let victim = Task {
                switch round % 5 {
                case 0:
                    try await db.write { conn in
                        try conn.insert(Item(id: nil, n: -1))
                        if round % 10 == 0 { conn.close() }
                    }
                case 1:
                    _ = try await db.read { conn in
                        if round % 3 == 0 { conn.close() }
                        return try conn.fetchAll(Item.self, sql: "SELECT * FROM items")
                    }
                case 2:
                    try await db.writeWithoutTransaction { conn in
                        try conn.execute(script: "INSERT INTO items(n) VALUES (-2); DELETE FROM items WHERE n = -2")
                    }
                case 3:
                    for try await _ in db.fetchCursor(Item.self, sql: "SELECT * FROM items") {}
                default:
                    _ = try await db.read { conn in
                        try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM items a, items b")
                    }
                }
            }
            // Cancelled before it starts, as it starts, or while it runs.
            switch round % 3 {
            case 0: break
            case 1: await Task.yield()
            default: try? await Task.sleep(for: .microseconds(100 * (round % 7)))
            }
            victim.cancel()
            switch await victim.result {
            case .success:
                outcomes["success", default: 0] += 1
            case .failure(let error as SQLiteError) where error.code == .misuse:
                outcomes["refused close", default: 0] += 1
            case .failure(let error):
                #expect(error is CancellationError, "\(error)")
                outcomes["cancelled", default: 0] += 1
            }
        }
        try await steady.value
        #expect(try await db.count(Item.self, where: "n >= \(0)") == rounds / 2)
        let inTransaction = try await db.writeWithoutTransaction { conn in conn.isInTransaction }
        #expect(!inTransaction)
        #expect(outcomes["cancelled", default: 0] > 0, "\(outcomes)")
        #expect(outcomes["success", default: 0] + outcomes["refused close", default: 0] > 0, "\(outcomes)")
    }

    @Test func cancellingJobsThatRunAndCloseOnReadersAndTheWriter() async throws {
        try await DatabaseTestSupport.withDatabase(options: Database.Options(readerCount: 2)) { db in
            try await hammer(db, rounds: 400)
        }
    }

    @Test func cancellingJobsThatRunAndCloseOnAnInMemoryDatabase() async throws {
        let db = try Database.inMemory()
        try await hammer(db, rounds: 400)
        try await db.close()
    }
}
