import Foundation

/// A transport to a ``SyncHub`` of the same process: each call goes straight to the hub, with the
/// same messages and checks as over a network (a ``SyncCopy`` hands over the messages themselves,
/// not their JSON).
///
/// ```swift
/// let hub = try await SyncHub.inMemory()
/// let transport = InProcessSyncTransport(hub: hub)
/// ```
public struct InProcessSyncTransport: SyncTransport, SyncHubInProcess {
    /// The hub the calls go to.
    public let hub: SyncHub

    /// A transport to `hub`.
    public init(hub: SyncHub) {
        self.hub = hub
    }

    /// Passes the request to ``SyncHub/handlePush(_:)``.
    public func push(_ request: Data) async throws -> Data {
        try await hub.handlePush(request)
    }

    /// Passes the request to ``SyncHub/handlePull(_:)``.
    public func pull(_ request: Data) async throws -> Data {
        try await hub.handlePull(request)
    }

    func localHub() async throws -> SyncHub {
        hub
    }
}
