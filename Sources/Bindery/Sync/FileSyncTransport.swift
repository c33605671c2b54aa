import Foundation

/// A transport to a hub database file on this machine, which every process of the machine that
/// opens the same file shares: each gets the same log, in the same order.
///
/// ```swift
/// let transport = FileSyncTransport(hubPath: "/var/lib/app/hub.sqlite")
/// ```
///
/// The transport opens a ``SyncHub`` on the file at its first call (creating the file when it is
/// missing), once, and keeps it until ``close()``. SQLite's own locking (WAL mode, a busy timeout)
/// makes the pushes of several processes take turns, each one transaction.
///
/// **Only on a local disk.** Never put the hub file on a network folder (NFS, SMB, a synced cloud
/// folder): their file locking is not reliable for SQLite, and two processes can then corrupt the
/// hub. Copies on several machines reach one hub through a server instead (see <doc:SyncProtocol>).
public actor FileSyncTransport: SyncTransport, SyncHubInProcess {
    /// The path of the hub database file.
    public nonisolated let hubPath: String
    /// The hub, once opened; the opening in progress, while it runs.
    private var hub: Task<SyncHub, any Error>?
    /// Whether ``close()`` was called.
    private var isClosed = false

    /// A transport to the hub file at `hubPath`, which it opens at its first call.
    public init(hubPath: String) {
        self.hubPath = hubPath
    }

    /// Passes the request to ``SyncHub/handlePush(_:)`` of the hub file.
    public func push(_ request: Data) async throws -> Data {
        try await openHub().handlePush(request)
    }

    /// Passes the request to ``SyncHub/handlePull(_:)`` of the hub file.
    public func pull(_ request: Data) async throws -> Data {
        try await openHub().handlePull(request)
    }

    func localHub() async throws -> SyncHub {
        try await openHub()
    }

    /// Closes the hub file, if the transport opened it; later calls throw ``DatabaseError/closed``.
    ///
    /// ```swift
    /// try await transport.close()
    /// ```
    public func close() async throws {
        isClosed = true
        guard let opening = hub else { return }
        hub = nil
        guard let opened = try? await opening.value else { return }
        try await opened.close()
    }

    /// The hub, opened at the first call; an opening that failed is tried again at the next call.
    private func openHub() async throws -> SyncHub {
        guard !isClosed else { throw DatabaseError.closed }
        let opening: Task<SyncHub, any Error>
        if let hub {
            opening = hub
        } else {
            let path = hubPath
            opening = Task { try await SyncHub(path: path) }
            hub = opening
        }
        do {
            return try await opening.value
        } catch {
            if hub == opening {
                hub = nil
            }
            throw error
        }
    }
}
