import Foundation
import Testing

@testable import Bindery

/// `close()` called on the connection a `Database` lends to a job (`write`, `read`,
/// `writeWithoutTransaction`, a decoder during `fetchAll`): the connection belongs to the database
/// and stays open, the job throws `.misuse` naming this, its transaction rolls back, and the next job
/// works.
@Suite struct CloseInsideDatabaseJobTests {
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var n: Int
    }

    /// Closes the connection it finds in `userInfo` while it is decoded.
    struct Closing: Decodable, Sendable {
        var n: Int

        enum CodingKeys: String, CodingKey { case n }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            n = try container.decode(Int.self, forKey: .n)
            if n == 1 {
                CloseWhileInUseTests.Closer.from(decoder.userInfo)?.tick()
            }
        }
    }

    private func expectRefusedClose(_ result: Result<some Any, any Error>) {
        guard case .failure(let error) = result else {
            Issue.record("the job succeeded after close()")
            return
        }
        guard let error = error as? SQLiteError else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(error.code == .misuse)
        #expect(error.message.contains("close() was called inside a Database job"), "\(error.message)")
    }

    @Test(arguments: [0, 2])
    func closeInsideAWriteRollsBackAndTheDatabaseStaysUsable(readerCount: Int) async throws {
        try await DatabaseTestSupport.withDatabase(options: Database.Options(readerCount: readerCount)) { db in
            try await db.createTable(for: Item.self)
            let closedAndWentOn = await Result {
                try await db.write { conn in
                    try conn.insert(Item(id: nil, n: 1))
                    conn.close()
                    #expect(!conn.isClosed)
                    try conn.insert(Item(id: nil, n: 2))
                }
            }
            expectRefusedClose(closedAndWentOn)
            let closedAndReturned = await Result {
                try await db.write { conn in
                    try conn.insert(Item(id: nil, n: 3))
                    conn.close()
                }
            }
            expectRefusedClose(closedAndReturned)
            let closedAndCaught = await Result {
                try await db.write { conn in
                    conn.close()
                    _ = try? conn.insert(Item(id: nil, n: 4))
                }
            }
            expectRefusedClose(closedAndCaught)
            #expect(try await db.count(Item.self) == 0)
            try await db.insert(Item(id: nil, n: 5))
            #expect(try await db.fetchAll(Item.self).map(\.n) == [5])
            let inTransaction = try await db.writeWithoutTransaction { conn in conn.isInTransaction }
            #expect(!inTransaction)
        }
    }

    @Test func closeInsideWriteWithoutTransactionKeepsWhatRanBefore() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Item.self)
            let result = await Result {
                try await db.writeWithoutTransaction { conn in
                    try conn.insert(Item(id: nil, n: 1))
                    conn.close()
                    try conn.insert(Item(id: nil, n: 2))
                }
            }
            expectRefusedClose(result)
            #expect(try await db.fetchAll(Item.self).map(\.n) == [1])
            try await db.insert(Item(id: nil, n: 3))
            #expect(try await db.count(Item.self) == 2)
        }
    }

    @Test(arguments: [0, 2])
    func closeInsideAReadThrowsAndTheNextReadWorks(readerCount: Int) async throws {
        try await DatabaseTestSupport.withDatabase(options: Database.Options(readerCount: readerCount)) { db in
            try await db.createTable(for: Item.self)
            try await db.insert(Item(id: nil, n: 1))
            for _ in 0..<3 {
                let result = await Result {
                    try await db.read { conn in
                        conn.close()
                        return try conn.count(Item.self)
                    }
                }
                expectRefusedClose(result)
            }
            #expect(try await db.count(Item.self) == 1)
            #expect(try await db.read { conn in try conn.count(Item.self) } == 1)
        }
    }

    @Test(arguments: [0, 2])
    func closeFromInitFromDuringADatabaseFetchThrows(readerCount: Int) async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let closer = CloseWhileInUseTests.Closer(at: 1)
            var options = Database.Options(readerCount: readerCount)
            options.coding = CodingOptions(userInfo: CloseWhileInUseTests.Closer.userInfo(closer))
            let db = try Database(path: directory.appendingPathComponent("db.sqlite").path, options: options)
            try await db.createTable(for: Item.self)
            try await db.insert(contentsOf: (0..<4).map { Item(id: nil, n: $0) })
            let result = await Result {
                try await db.read { conn in
                    closer.connection = conn
                    defer { closer.connection = nil }
                    return try conn.fetchAll(Closing.self, sql: "SELECT n FROM items ORDER BY n").map(\.n)
                }
            }
            expectRefusedClose(result)
            #expect(try await db.fetchAll(Item.self, orderBy: "n").map(\.n) == [0, 1, 2, 3])
            try await db.insert(Item(id: nil, n: 4))
            #expect(try await db.count(Item.self) == 5)
            try await db.close()
        }
    }
}

extension Result where Failure == any Error {
    /// The outcome of an `async` throwing call.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
