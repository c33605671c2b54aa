import Foundation
import Testing

@testable import Bindery

/// Requests and checks shared by the SyncHub suites.
enum SyncHubTestSupport {
    /// A changeset's stand-in: the hub stores bytes without reading them.
    static func bytes(_ text: String) -> Data {
        Data(text.utf8)
    }

    /// The JSON of a push of `changesets` (copy sequence, bytes) by `copy`, at schema version 1.
    static func pushBody(copy: String, _ changesets: [(Int64, Data)], schemaVersion: Int = 1) throws -> Data {
        try SyncPushRequest(
            copy: copy,
            changesets: changesets.map {
                SyncOutgoingChangeset(sequence: $0.0, schemaVersion: schemaVersion, changeset: $0.1)
            }
        ).encoded()
    }

    /// Pushes through JSON, as a server would, and reads the response.
    static func push(
        _ hub: SyncHub, copy: String, _ changesets: [(Int64, Data)], schemaVersion: Int = 1
    ) async throws -> SyncPushResponse {
        try SyncPushResponse.decode(
            await hub.handlePush(pushBody(copy: copy, changesets, schemaVersion: schemaVersion)))
    }

    /// Pulls through JSON, as a server would, and reads the response.
    static func pull(_ hub: SyncHub, after: Int64, limit: Int = 100) async throws -> SyncPullResponse {
        try SyncPullResponse.decode(await hub.handlePull(SyncPullRequest(after: after, limit: limit).encoded()))
    }

    /// Every entry of the hub, by pulls of `limit`.
    static func pullAll(_ transport: some SyncTransport, limit: Int = 7) async throws -> [SyncLogEntry] {
        var entries: [SyncLogEntry] = []
        var after: Int64 = 0
        while true {
            let body = try SyncPullRequest(after: after, limit: limit).encoded()
            let response = try SyncPullResponse.decode(await transport.pull(body))
            guard let last = response.changesets.last else { return entries }
            entries += response.changesets
            after = last.sequence
        }
    }

    /// Runs `body` with the path of a hub file in a fresh directory, removed afterwards.
    static func withHubPath<T>(_ body: (String) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-sync-hub-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory.appendingPathComponent("hub.sqlite").path)
    }

    /// The reason of a ``SyncError/malformedMessage(reason:)``, or nil for any other error.
    static func malformedReason(_ error: (any Error)?) -> String? {
        if case .malformedMessage(let reason) = error as? SyncError {
            return reason
        }
        return nil
    }
}
