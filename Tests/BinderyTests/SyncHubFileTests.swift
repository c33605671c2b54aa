import Foundation
import Testing

@testable import Bindery

/// A hub in a file: several hubs on one file, reopening, the hub's own tables.
@Suite struct SyncHubFileTests {
    private typealias Support = SyncHubTestSupport

    @Test func twoHubsOnOneFileStoreConcurrentPushesOnceInADenseOrder() async throws {
        try await Support.withHubPath { path in
            // Two transports, each with its own hub (its own connections) on the same file.
            let transports = [FileSyncTransport(hubPath: path), FileSyncTransport(hubPath: path)]
            let copies = ["a", "b", "c", "d"]
            let pushes = 20
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, copy) in copies.enumerated() {
                    group.addTask {
                        for push in 0..<pushes {
                            let sequences = [Int64(push * 2 + 1), Int64(push * 2 + 2)]
                            let body = try Support.pushBody(
                                copy: copy, sequences.map { ($0, Support.bytes("\(copy) \($0)")) })
                            let first = try SyncPushResponse.decode(
                                await transports[(index + push) % 2].push(body))
                            // A retry through the other hub gets the same sequences and stores nothing.
                            let retry = try SyncPushResponse.decode(
                                await transports[(index + push + 1) % 2].push(body))
                            #expect(retry.sequences == first.sequences)
                            #expect(first.sequences[1] == first.sequences[0] + 1)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let total = copies.count * pushes * 2
            for transport in transports {
                let entries = try await Support.pullAll(transport, limit: 13)
                #expect(entries.map(\.sequence) == Array(1...Int64(total)))
                for copy in copies {
                    let own = entries.filter { $0.copy == copy }
                    #expect(own.map(\.copySequence) == Array(1...Int64(pushes * 2)))
                    #expect(own.allSatisfy { $0.changeset == Support.bytes("\(copy) \($0.copySequence)") })
                }
            }
            for transport in transports {
                try await transport.close()
            }
            await #expect(throws: DatabaseError.closed) {
                _ = try await transports[0].pull(SyncPullRequest(after: 0, limit: 1).encoded())
            }
        }
    }

    @Test func aFileTransportWhoseOpeningFailedTriesAgainAtItsNextCall() async throws {
        try await Support.withHubPath { path in
            let folder = (path as NSString).deletingLastPathComponent + "/later"
            let transport = FileSyncTransport(hubPath: folder + "/hub.sqlite")
            let body = try Support.pushBody(copy: "a", [(1, Support.bytes("1"))])
            await #expect(throws: SQLiteError.self) { _ = try await transport.push(body) }

            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            #expect(try SyncPushResponse.decode(await transport.push(body)).sequences == [1])
            try await transport.close()
        }
    }

    @Test func aHubSurvivesReopening() async throws {
        try await Support.withHubPath { path in
            let hub = try await SyncHub(path: path)
            _ = try await Support.push(hub, copy: "a", [(1, Support.bytes("1")), (2, Support.bytes("2"))])
            _ = try await Support.push(hub, copy: "b", [(1, Support.bytes("b1"))])
            let before = try await Support.pull(hub, after: 0)
            try await hub.close()

            let reopened = try await SyncHub(path: path)
            #expect(try await reopened.head() == 3)
            #expect(try await reopened.entryCount == 3)
            #expect(try await Support.pull(reopened, after: 0) == before)
            // A retry after the reopening is still recognised; new entries go on after the head.
            #expect(try await Support.push(reopened, copy: "a", [(2, Support.bytes("2"))]).sequences == [2])
            #expect(try await Support.push(reopened, copy: "a", [(3, Support.bytes("3"))]).sequences == [4])
            try await reopened.close()
        }
    }

    @Test func aSequenceIsNeverReusedAfterTheLastEntryIsRemoved() async throws {
        try await Support.withHubPath { path in
            let hub = try await SyncHub(path: path)
            _ = try await Support.push(hub, copy: "a", [(1, Support.bytes("1")), (2, Support.bytes("2"))])
            try await hub.close()
            // Something outside Bindery removes the last entry: its number is still not given again.
            let conn = try Connection(path: path)
            try conn.execute("DELETE FROM bindery_hub_log WHERE sequence = 2", arguments: [])
            conn.close()
            let reopened = try await SyncHub(path: path)
            #expect(try await Support.push(reopened, copy: "b", [(1, Support.bytes("b1"))]).sequences == [3])
            try await reopened.close()
        }
    }

    @Test func aPushThatFailsHalfwayStoresNothingOfIt() async throws {
        try await Support.withHubPath { path in
            try await SyncHub(path: path).close()
            // A trigger stands for a failure of SQLite (a full disk …) at the push's second insert.
            let conn = try Connection(path: path)
            try conn.execute(
                """
                CREATE TRIGGER fail_third BEFORE INSERT ON bindery_hub_log WHEN NEW.copy_sequence = 3
                BEGIN SELECT RAISE(ABORT, 'the disk is full'); END
                """, arguments: [])
            conn.close()

            let hub = try await SyncHub(path: path)
            _ = try await Support.push(hub, copy: "a", [(1, Support.bytes("1"))])
            await #expect(throws: SQLiteError.self) {
                _ = try await Support.push(hub, copy: "a", [(2, Support.bytes("2")), (3, Support.bytes("3"))])
            }
            #expect(try await hub.entryCount == 1)
            #expect(try await hub.head() == 1)
            // The sequence number the failed push took is given again: no gap in the order.
            #expect(try await Support.push(hub, copy: "a", [(2, Support.bytes("2"))]).sequences == [2])
            try await hub.close()
        }
    }

    @Test func aHubFileOfANewerBinderyOrWithDamagedTablesIsRefused() async throws {
        try await Support.withHubPath { path in
            try await SyncHub(path: path).close()
            let conn = try Connection(path: path)
            defer { conn.close() }

            try conn.execute("UPDATE bindery_hub_meta SET value = 2 WHERE key = 'schema_version'", arguments: [])
            await #expect(throws: SyncError.newerHub(path: path, version: 2, supported: 1)) {
                try await SyncHub(path: path).close()
            }

            try conn.execute("UPDATE bindery_hub_meta SET value = 'x' WHERE key = 'schema_version'", arguments: [])
            let unknown = await #expect(throws: SyncError.self) { try await SyncHub(path: path).close() }
            #expect("\(unknown.map(String.init(describing:)) ?? "")".contains("schema_version 'x'"))

            try conn.execute("DELETE FROM bindery_hub_meta", arguments: [])
            let noVersion = await #expect(throws: SyncError.self) { try await SyncHub(path: path).close() }
            #expect("\(noVersion.map(String.init(describing:)) ?? "")".contains("no schema_version row"))

            try conn.execute("INSERT INTO bindery_hub_meta VALUES ('schema_version', 1)", arguments: [])
            try conn.execute("DROP TABLE bindery_hub_log", arguments: [])
            let noLog = await #expect(throws: SyncError.self) { try await SyncHub(path: path).close() }
            #expect("\(noLog.map(String.init(describing:)) ?? "")".contains("no bindery_hub_log table"))
        }
    }
}
