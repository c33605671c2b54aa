import Foundation

/// How a copy reaches its hub: two calls that carry `Data` both ways.
///
/// The request and response bodies are the JSON messages of <doc:SyncProtocol>. Bindery ships
/// ``InProcessSyncTransport`` (a hub in the same process) and ``FileSyncTransport`` (a hub file on
/// the same machine); over a network, write one that sends the bodies to a server that passes them
/// to ``SyncHub/handlePush(_:)`` and ``SyncHub/handlePull(_:)``:
///
/// ```swift
/// struct HTTPSyncTransport: SyncTransport {
///     let base: URL
///
///     func push(_ request: Data) async throws -> Data { try await post(request, to: "push") }
///     func pull(_ request: Data) async throws -> Data { try await post(request, to: "pull") }
///
///     private func post(_ body: Data, to path: String) async throws -> Data {
///         var request = URLRequest(url: base.appendingPathComponent(path))
///         request.httpMethod = "POST"
///         request.httpBody = body
///         let (data, response) = try await URLSession.shared.data(for: request)
///         guard (response as? HTTPURLResponse)?.statusCode == 200 else {
///             throw URLError(.badServerResponse)
///         }
///         return data
///     }
/// }
/// ```
///
/// A transport that throws leaves the copy's changesets pending: pushing them again later is safe,
/// because the hub stores each (copy, sequence) once.
public protocol SyncTransport: Sendable {
    /// Sends a push request to the hub and returns its response.
    func push(_ request: Data) async throws -> Data
    /// Sends a pull request to the hub and returns its response.
    func pull(_ request: Data) async throws -> Data
}

/// A transport whose hub lives in this process (``InProcessSyncTransport``, ``FileSyncTransport``):
/// a copy hands it the messages themselves, which the hub checks as it checks JSON ones, and
/// nothing is encoded as JSON and base64 on the way.
protocol SyncHubInProcess: SyncTransport {
    /// The hub the calls go to.
    func localHub() async throws -> SyncHub
}
