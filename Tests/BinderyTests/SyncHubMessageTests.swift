import Foundation
import Testing

@testable import Bindery

/// The JSON of the sync protocol as a hub reads it: versions, malformed messages, the fields' names.
@Suite struct SyncHubMessageTests {
    private typealias Support = SyncHubTestSupport

    @Test func anUnknownVersionIsRefusedAsSuch() async throws {
        let hub = try await SyncHub.inMemory()
        // The version is read first: whatever else a message of version 2 holds, it is refused as version 2.
        await #expect(throws: SyncError.unsupportedProtocolVersion(2)) {
            _ = try await hub.handlePush(Data(#"{"version": 2, "copy": "a", "changesets": []}"#.utf8))
        }
        await #expect(throws: SyncError.unsupportedProtocolVersion(2)) {
            _ = try await hub.handlePush(Data(#"{"version": 2, "batches": "anything"}"#.utf8))
        }
        await #expect(throws: SyncError.unsupportedProtocolVersion(0)) {
            _ = try await hub.handlePull(Data(#"{"version": 0, "after": 0, "limit": 10}"#.utf8))
        }
        // Messages built in Swift are checked too.
        await #expect(throws: SyncError.unsupportedProtocolVersion(7)) {
            _ = try await hub.push(SyncPushRequest(version: 7, copy: "a", changesets: []))
        }
        await #expect(throws: SyncError.unsupportedProtocolVersion(7)) {
            _ = try await hub.pull(SyncPullRequest(version: 7, after: 0, limit: 1))
        }
        #expect(try await hub.entryCount == 0)
        try await hub.close()
    }

    @Test func malformedJSONIsRefusedNamingWhatIsWrong() async throws {
        let hub = try await SyncHub.inMemory()
        let pushes: [(String, String)] = [
            ("not json", "push request: cannot be read"),
            ("", "push request: cannot be read"),
            (#"{"copy": "a", "changesets": []}"#, "missing field 'version'"),
            (#"{"version": "1", "copy": "a", "changesets": []}"#, "field 'version' is not an integer"),
            (#"{"version": 1, "changesets": []}"#, "missing field 'copy'"),
            (#"{"version": 1, "copy": null, "changesets": []}"#, "field 'copy' is null"),
            (
                #"{"version": 1, "copy": "a", "changesets": [{"sequence": 1, "schemaVersion": 1}]}"#,
                "missing field 'changesets[0].changeset'"
            ),
            (
                #"{"version": 1, "copy": "a", "changesets": [{"sequence": 1, "schemaVersion": 1, "changeset": "%%%"}]}"#,
                "field 'changesets[0].changeset'"
            ),
            (
                #"{"version": 1, "copy": "a", "changesets": [{"sequence": 1.5, "schemaVersion": 1, "changeset": "AQ=="}]}"#,
                "push request: "
            ),
            // A pull request sent to push.
            (#"{"version": 1, "after": 0, "limit": 10}"#, "missing field 'copy'"),
        ]
        for (body, expected) in pushes {
            let error = await #expect(throws: SyncError.self) { _ = try await hub.handlePush(Data(body.utf8)) }
            let reason = Support.malformedReason(error)
            #expect(reason?.contains(expected) == true, "\(body): \(reason ?? "\(String(describing: error))")")
        }
        let pulls: [(String, String)] = [
            ("[1, 2]", "pull request"),
            (#"{"version": 1, "after": 0}"#, "missing field 'limit'"),
            (#"{"version": 1, "after": "0", "limit": 1}"#, "field 'after' is not an integer"),
        ]
        for (body, expected) in pulls {
            let error = await #expect(throws: SyncError.self) { _ = try await hub.handlePull(Data(body.utf8)) }
            let reason = Support.malformedReason(error)
            #expect(reason?.contains(expected) == true, "\(body): \(reason ?? "\(String(describing: error))")")
        }
        #expect(try await hub.entryCount == 0)
        try await hub.close()
    }

    @Test func theJSONHasTheDocumentedFieldsWithBase64Changesets() async throws {
        let hub = try await SyncHub.inMemory()
        let request = #"""
            {"version": 1, "copy": "phone",
             "changesets": [{"sequence": 7, "schemaVersion": 2, "changeset": "AQID"}]}
            """#
        let pushed = try JSONSerialization.jsonObject(with: await hub.handlePush(Data(request.utf8)))
        #expect(pushed as? NSDictionary == ["version": 1, "sequences": [1], "head": 1] as NSDictionary)

        let pulled = try JSONSerialization.jsonObject(
            with: await hub.handlePull(Data(#"{"version": 1, "after": 0, "limit": 100}"#.utf8)))
        let expected: NSDictionary = [
            "version": 1, "head": 1,
            "changesets": [
                ["sequence": 1, "copy": "phone", "copySequence": 7, "schemaVersion": 2, "changeset": "AQID"]
            ],
        ]
        #expect(pulled as? NSDictionary == expected)
        try await hub.close()
    }
}
