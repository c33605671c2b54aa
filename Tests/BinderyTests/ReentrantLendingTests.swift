import Foundation
import Testing

@testable import Bindery

/// `insert` and `update` lend the connection's record context, the record type's state and the cached
/// statement without counting references: the connection and its statement cache keep each alive
/// until the call ends. These tests have `encode(to:)` drop each of them while it is lent, on the path
/// that binds the record to the cached INSERT as it is encoded (the second insert of a shape, in a
/// transaction): the statement cache emptied, the coding options (and with them the record context)
/// replaced, the connection closed. Each call ends with the right row or a clear error, never a
/// read of freed memory (`scripts/asan` runs this suite under the address sanitizer).
@Suite struct ReentrantLendingTests {
    /// What `encode(to:)` does to the connection, once, at the record whose `n` is `at`.
    final class Meddler: @unchecked Sendable {
        // @unchecked: each meddler is used by one test, on one thread.
        enum Action { case clearStatementCache, replaceCodingOptions, close }

        /// Weak: the connection's coding options hold the meddler.
        weak var connection: Connection?
        let action: Action
        let at: Int
        var done = false
        /// What the connection kept alive right after the action: replaced extension states (the
        /// record context), and statements the cache no longer holds but had lent out.
        var retiredAfterAction = 0
        var unheldAfterAction = 0

        init(_ action: Action, at: Int) {
            self.action = action
            self.at = at
        }

        static let key = CodingUserInfoKey(rawValue: "bindery.meddler")

        /// Runs the action when `n` is the chosen record's, the first time only.
        func encoding(_ n: Int) {
            guard n == at, !done, let connection else { return }
            done = true
            switch action {
            case .clearStatementCache: connection.clearStatementCache()
            case .replaceCodingOptions: connection.codingOptions = CodingOptions(userInfo: Self.userInfo(self))
            case .close: connection.close()
            }
            retiredAfterAction = connection.retiredExtensionCount
            unheldAfterAction = connection.statementsLentUnheld
        }

        static func userInfo(_ meddler: Meddler) -> [CodingUserInfoKey: any Sendable] {
            key.map { [$0: meddler] } ?? [:]
        }
    }

    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var n: Int
        var label: String

        enum CodingKeys: String, CodingKey { case id, n, label }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(n, forKey: .n)
            // The action runs between two bound values: the statement is lent and half bound.
            (Meddler.key.flatMap { encoder.userInfo[$0] } as? Meddler)?.encoding(n)
            try container.encode(label, forKey: .label)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A connection to a new in-memory database with `items`, whose `encode(to:)` gets `meddler`.
    static func open(_ meddler: Meddler, path: String = ":memory:") throws -> Connection {
        let conn = try Connection(path: path)
        conn.codingOptions = CodingOptions(userInfo: Meddler.userInfo(meddler))
        try conn.execute(
            script: "CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, label TEXT NOT NULL)")
        meddler.connection = conn
        return conn
    }

    static func items(_ conn: Connection) throws -> [Item] {
        try conn.fetchAll(Item.self, sql: "SELECT * FROM items ORDER BY id")
    }

    @Test(arguments: [Meddler.Action.clearStatementCache, .replaceCodingOptions])
    func insertsStoreTheRightRowsWhenEncodeDropsWhatTheyBorrowed(_ action: Meddler.Action) throws {
        let meddler = Meddler(action, at: 2)
        let conn = try Self.open(meddler)
        let saved = try conn.transaction(.immediate) { conn in
            try (1...4).map { try conn.insert(Item(id: nil, n: $0, label: "item \($0)")) }
        }
        #expect(meddler.done)
        // The context replaced, or the INSERT being bound dropped by the cache, was kept alive while
        // lent, and is freed once the call ended.
        #expect(meddler.retiredAfterAction == (action == .replaceCodingOptions ? 1 : 0))
        #expect(meddler.unheldAfterAction == 1)
        #expect(conn.retiredExtensionCount == 0 && conn.statementsLentUnheld == 0)
        #expect(saved.map(\.id) == [1, 2, 3, 4])
        #expect(try Self.items(conn) == (1...4).map { Item(id: Int64($0), n: $0, label: "item \($0)") })
    }

    @Test(arguments: [Meddler.Action.clearStatementCache, .replaceCodingOptions])
    func updatesStoreTheRightRowsWhenEncodeDropsWhatTheyBorrowed(_ action: Meddler.Action) throws {
        let meddler = Meddler(action, at: -2)
        let conn = try Self.open(meddler)
        try conn.transaction(.immediate) { conn in
            for n in 1...4 {
                try conn.insert(Item(id: nil, n: n, label: "item \(n)"))
            }
            for n in 1...4 {
                try conn.update(Item(id: Int64(n), n: -n, label: "changed \(n)"))
            }
        }
        #expect(meddler.done)
        #expect(meddler.retiredAfterAction == (action == .replaceCodingOptions ? 1 : 0))
        #expect(conn.retiredExtensionCount == 0 && conn.statementsLentUnheld == 0)
        #expect(try Self.items(conn) == (1...4).map { Item(id: Int64($0), n: -$0, label: "changed \($0)") })
    }

    /// Closes the connection while the second insert of a transaction is encoded, bound as it goes:
    /// that insert throws `.misuse` and nothing of the transaction is committed.
    static func closeWhileTheStatementIsLent() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-lend-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
        let meddler = Meddler(.close, at: 2)
        let conn = try Self.open(meddler, path: path)
        var thrown: (any Error)?
        do {
            try conn.transaction(.immediate) { conn in
                for n in 1...3 {
                    try conn.insert(Item(id: nil, n: n, label: "item \(n)"))
                }
            }
        } catch {
            thrown = error
        }
        guard let error = thrown as? SQLiteError, error.code == .misuse, conn.isClosed else {
            throw Failure(description: "no misuse error: \(String(describing: thrown))")
        }
        // The record context and the INSERT being bound, dropped by close(), were kept alive while lent.
        guard meddler.retiredAfterAction >= 1, meddler.unheldAfterAction >= 1,
            conn.retiredExtensionCount == 0, conn.statementsLentUnheld == 0
        else {
            throw Failure(description: "close() freed what the insert had borrowed, or kept it after")
        }
        let reopened = try Connection(path: path)
        defer { reopened.close() }
        guard try reopened.fetchOne(Int.self, sql: "SELECT count(*) FROM items") == 0 else {
            throw Failure(description: "rows were committed")
        }
    }

    @Test func closingWhileTheStatementIsLentThrowsMisuseAndCommitsNothing() async {
        await #expect(processExitsWith: .success) { try ReentrantLendingTests.closeWhileTheStatementIsLent() }
        // And in this process, where the address sanitizer sees it (scripts/asan).
        #expect(throws: Never.self) { try Self.closeWhileTheStatementIsLent() }
    }
}
