import Foundation
import Testing

@testable import Bindery

/// Pushes and pulls on a ``SyncHub``: the order, idempotent retries, what a push may not do.
@Suite struct SyncHubTests {
    private typealias Support = SyncHubTestSupport

    @Test func pushedChangesetsComeBackInOrderFromAPull() async throws {
        let hub = try await SyncHub.inMemory()
        let pushed = try await Support.push(
            hub, copy: "phone", [(1, Support.bytes("one")), (2, Support.bytes("two")), (5, Support.bytes("five"))],
            schemaVersion: 3)
        #expect(pushed == SyncPushResponse(sequences: [1, 2, 3], head: 3))

        let pulled = try await Support.pull(hub, after: 0)
        #expect(pulled.head == 3)
        #expect(
            pulled.changesets == [
                SyncLogEntry(
                    sequence: 1, copy: "phone", copySequence: 1, schemaVersion: 3, changeset: Support.bytes("one")),
                SyncLogEntry(
                    sequence: 2, copy: "phone", copySequence: 2, schemaVersion: 3, changeset: Support.bytes("two")),
                SyncLogEntry(
                    sequence: 3, copy: "phone", copySequence: 5, schemaVersion: 3, changeset: Support.bytes("five")),
            ])
        #expect(try await hub.head() == 3)
        #expect(try await hub.entryCount == 3)
        try await hub.close()
    }

    @Test func theInProcessTransportReachesTheHub() async throws {
        let hub = try await SyncHub.inMemory()
        let transport = InProcessSyncTransport(hub: hub)
        let response = try SyncPushResponse.decode(
            await transport.push(Support.pushBody(copy: "a", [(1, Support.bytes("x"))])))
        #expect(response == SyncPushResponse(sequences: [1], head: 1))
        let entries = try await Support.pullAll(transport)
        #expect(entries.map(\.changeset) == [Support.bytes("x")])
        // The transport goes through the same checks as a server.
        let error = await #expect(throws: SyncError.self) {
            try await transport.push(Support.pushBody(copy: "", [(1, Support.bytes("x"))]))
        }
        #expect(Support.malformedReason(error)?.contains("copy id is empty") == true)
        try await hub.close()
    }

    @Test func aRetriedPushStoresNothingNewAndReturnsTheSameSequences() async throws {
        let hub = try await SyncHub.inMemory()
        let first = try await Support.push(hub, copy: "a", [(1, Support.bytes("1")), (2, Support.bytes("2"))])
        _ = try await Support.push(hub, copy: "b", [(1, Support.bytes("b1"))])
        let again = try await Support.push(hub, copy: "a", [(1, Support.bytes("1")), (2, Support.bytes("2"))])
        #expect(first.sequences == [1, 2])
        #expect(again == SyncPushResponse(sequences: [1, 2], head: 3))
        #expect(try await hub.entryCount == 3)

        // A retry that carries the stored changesets and a new one stores only the new one.
        let partly = try await Support.push(hub, copy: "a", [(2, Support.bytes("2")), (3, Support.bytes("3"))])
        #expect(partly == SyncPushResponse(sequences: [2, 4], head: 4))
        #expect(try await hub.entryCount == 4)
        try await hub.close()
    }

    @Test func aRetryWithOtherBytesThrowsAndStoresNothingOfThePush() async throws {
        let hub = try await SyncHub.inMemory()
        _ = try await Support.push(hub, copy: "a", [(1, Support.bytes("1")), (2, Support.bytes("2"))])

        // Changeset 3 of the same push is new: it is not kept either when changeset 2 conflicts.
        await #expect(throws: SyncError.conflictingRetry(copy: "a", sequence: 2)) {
            _ = try await Support.push(
                hub, copy: "a", [(2, Support.bytes("other")), (3, Support.bytes("3"))])
        }
        await #expect(throws: SyncError.conflictingRetry(copy: "a", sequence: 2)) {
            _ = try await Support.push(
                hub, copy: "a", [(2, Support.bytes("2")), (3, Support.bytes("3"))], schemaVersion: 2)
        }
        #expect(try await hub.entryCount == 2)
        #expect(try await hub.head() == 2)
        let entries = try await Support.pull(hub, after: 0).changesets
        #expect(entries.map(\.changeset) == [Support.bytes("1"), Support.bytes("2")])

        // The same copy sequence from another copy is another changeset.
        let other = try await Support.push(hub, copy: "b", [(2, Support.bytes("other"))])
        #expect(other.sequences == [3])
        try await hub.close()
    }

    @Test func sequencesThatDoNotAscendAreRefused() async throws {
        let hub = try await SyncHub.inMemory()
        let refused: [[(Int64, Data)]] = [
            [(2, Support.bytes("2")), (1, Support.bytes("1"))],
            [(1, Support.bytes("1")), (1, Support.bytes("1"))],
        ]
        for changesets in refused {
            let error = await #expect(throws: SyncError.self) {
                _ = try await Support.push(hub, copy: "a", changesets)
            }
            #expect(Support.malformedReason(error)?.contains("do not ascend") == true)
        }
        #expect(try await hub.entryCount == 0)
        try await hub.close()
    }

    @Test func aNewChangesetBelowTheCopysHighestIsRefused() async throws {
        let hub = try await SyncHub.inMemory()
        // Gaps are allowed: a copy drops changesets that became empty.
        _ = try await Support.push(hub, copy: "a", [(1, Support.bytes("1")), (5, Support.bytes("5"))])
        _ = try await Support.push(hub, copy: "b", [(9, Support.bytes("b9"))])

        // 3 is new, and below 5: stored after 5, it would be ordered after changes it came before.
        let error = await #expect(throws: SyncError.self) {
            _ = try await Support.push(hub, copy: "a", [(3, Support.bytes("3")), (6, Support.bytes("6"))])
        }
        let reason = try #require(Support.malformedReason(error))
        #expect(reason.contains("changeset 3 of copy a is new"))
        #expect(reason.contains("changeset 5"))
        #expect(try await hub.entryCount == 3)

        // Another copy's sequences do not count; the copy itself goes on above 5.
        let next = try await Support.push(hub, copy: "a", [(5, Support.bytes("5")), (7, Support.bytes("7"))])
        #expect(next.sequences == [2, 4])
        try await hub.close()
    }

    @Test func aPushThatBreaksTheProtocolStoresNothing() async throws {
        let hub = try await SyncHub.inMemory()
        let cases: [(SyncPushRequest, String)] = [
            (SyncPushRequest(copy: "", changesets: []), "copy id is empty"),
            (
                SyncPushRequest(
                    copy: "a",
                    changesets: [
                        SyncOutgoingChangeset(sequence: 1, schemaVersion: 1, changeset: Support.bytes("1")),
                        SyncOutgoingChangeset(sequence: 2, schemaVersion: 1, changeset: Data()),
                    ]),
                "changeset 2 of copy a is empty"
            ),
            (
                SyncPushRequest(
                    copy: "a",
                    changesets: [SyncOutgoingChangeset(sequence: -1, schemaVersion: 1, changeset: Support.bytes("x"))]),
                "negative sequence"
            ),
            (
                SyncPushRequest(
                    copy: "a",
                    changesets: [SyncOutgoingChangeset(sequence: 1, schemaVersion: -1, changeset: Support.bytes("x"))]),
                "negative schema version"
            ),
            (
                SyncPushRequest(
                    copy: "a",
                    changesets: [
                        SyncOutgoingChangeset(sequence: 1, schemaVersion: 1, changeset: Support.bytes("1")),
                        SyncOutgoingChangeset(
                            sequence: 2, schemaVersion: 1, changeset: Data(count: SyncHub.maximumChangesetSize + 1)),
                    ]),
                "more than the 67108864 (64 MiB)"
            ),
        ]
        for (request, expected) in cases {
            let error = await #expect(throws: SyncError.self) { _ = try await hub.push(request) }
            let reason = Support.malformedReason(error)
            #expect(reason?.contains(expected) == true, "\(reason ?? "no reason") should say \(expected)")
        }
        #expect(try await hub.entryCount == 0)

        // A changeset of exactly 64 MiB is stored, and an empty push only reports the head.
        let largest = Data(repeating: 7, count: SyncHub.maximumChangesetSize)
        let stored = try await hub.push(
            SyncPushRequest(
                copy: "a", changesets: [SyncOutgoingChangeset(sequence: 1, schemaVersion: 1, changeset: largest)]))
        #expect(stored.sequences == [1])
        #expect(
            try await hub.push(SyncPushRequest(copy: "a", changesets: [])) == SyncPushResponse(sequences: [], head: 1))
        try await hub.close()
    }

    @Test func twoCopiesInterleavingGetOneDenseOrder() async throws {
        let hub = try await SyncHub.inMemory()
        var expected: [(String, Int64)] = []
        for round in Int64(1)...6 {
            for copy in ["laptop", "phone"] {
                let sequences = [round * 2 - 1, round * 2]
                let response = try await Support.push(
                    hub, copy: copy, sequences.map { ($0, Support.bytes("\(copy) \($0)")) })
                #expect(response.sequences == [Int64(expected.count + 1), Int64(expected.count + 2)])
                expected += sequences.map { (copy, $0) }
            }
        }
        let entries = try await Support.pullAll(InProcessSyncTransport(hub: hub), limit: 5)
        #expect(entries.map(\.sequence) == Array(1...Int64(expected.count)))
        #expect(entries.map(\.copy) == expected.map(\.0))
        #expect(entries.map(\.copySequence) == expected.map(\.1))
        #expect(entries.allSatisfy { $0.changeset == Support.bytes("\($0.copy) \($0.copySequence)") })
        try await hub.close()
    }

    @Test func aPullPagesByAfterAndLimit() async throws {
        let hub = try await SyncHub.inMemory()
        _ = try await Support.push(hub, copy: "a", (1...25).map { (Int64($0), Support.bytes("\($0)")) })

        let first = try await Support.pull(hub, after: 0, limit: 10)
        #expect(first.changesets.map(\.sequence) == Array(1...10))
        #expect(first.head == 25)
        #expect(try await Support.pull(hub, after: 10, limit: 10).changesets.map(\.sequence) == Array(11...20))
        #expect(try await Support.pull(hub, after: 20, limit: 10).changesets.map(\.sequence) == Array(21...25))
        let done = try await Support.pull(hub, after: 25, limit: 10)
        #expect(done == SyncPullResponse(changesets: [], head: 25))
        #expect(try await Support.pull(hub, after: 99, limit: 10).changesets.isEmpty)

        // A limit below 1 is read as 1.
        #expect(try await Support.pull(hub, after: 3, limit: 0).changesets.map(\.sequence) == [4])
        #expect(try await Support.pull(hub, after: 3, limit: -5).changesets.map(\.sequence) == [4])
        try await hub.close()
    }

    @Test func aPullReturnsAtMostTenThousandEntries() async throws {
        let hub = try await SyncHub.inMemory()
        let count = SyncHub.maximumPullLimit + 5
        _ = try await hub.push(
            SyncPushRequest(
                copy: "a",
                changesets: (1...count).map {
                    SyncOutgoingChangeset(sequence: Int64($0), schemaVersion: 1, changeset: Data([1]))
                }))
        let page = try await Support.pull(hub, after: 0, limit: Int.max)
        #expect(page.changesets.count == SyncHub.maximumPullLimit)
        #expect(page.head == Int64(count))
        try await hub.close()
    }

    @Test func aPullStopsAtItsByteBudgetButReturnsOneEntryAlways() async throws {
        let hub = try await SyncHub.inMemory()
        let twelve = 12 << 20
        let sizes = [twelve, twelve, twelve, SyncHub.pullByteBudget + 1, 1]
        _ = try await hub.push(
            SyncPushRequest(
                copy: "a",
                changesets: sizes.enumerated().map {
                    SyncOutgoingChangeset(
                        sequence: Int64($0.offset + 1), schemaVersion: 1, changeset: Data(count: $0.element))
                }))
        let pages = [
            try await hub.pull(SyncPullRequest(after: 0, limit: 100)),
            try await hub.pull(SyncPullRequest(after: 2, limit: 100)),
            try await hub.pull(SyncPullRequest(after: 3, limit: 100)),
            try await hub.pull(SyncPullRequest(after: 4, limit: 100)),
        ]
        #expect(pages.map { $0.changesets.map(\.sequence) } == [[1, 2], [3], [4], [5]])
        #expect(pages.allSatisfy { $0.head == 5 })
        try await hub.close()
    }
}
