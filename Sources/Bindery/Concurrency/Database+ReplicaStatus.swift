import Foundation

extension Database {
    /// Where a read replica stands: the transaction it reads, and how fresh that is, as Litestream's
    /// VFS reports it (``Database/replicaStatus()``).
    ///
    /// ```swift
    /// if let status = try await replica.replicaStatus(), (status.secondsSinceLastPoll ?? .max) > 30 {
    ///     print("the replica has not been reached for 30 s; last transaction \(status.transactionID)")
    /// }
    /// ```
    public struct ReplicaStatus: Sendable, Hashable {
        /// The replica's position: Litestream's transaction ID (TXID) of the newest whole transaction
        /// that reads see. It grows by one or more with each transaction the primary commits.
        public let transactionID: UInt64
        /// When Litestream recorded that transaction (the timestamp of its LTX file, close to its
        /// commit on the primary); nil when the VFS does not say.
        public let transactionTime: Date?
        /// Whole seconds since the VFS last checked the replica for new transactions successfully; nil
        /// before its first check. The replica is behind the primary by at most this, plus the
        /// replicator's sync window (its monitor and sync intervals): a value that grows beyond the
        /// poll interval means the replica store cannot be reached.
        public let secondsSinceLastPoll: Int?

        /// Creates a status; Bindery makes them in ``Database/replicaStatus()``.
        public init(transactionID: UInt64, transactionTime: Date?, secondsSinceLastPoll: Int?) {
            self.transactionID = transactionID
            self.transactionTime = transactionTime
            self.secondsSinceLastPoll = secondsSinceLastPoll
        }
    }

    /// The status of a read replica, as one of its connections sees it now; nil when the database is
    /// not a read replica. Each connection follows the replica on its own, every poll interval, so
    /// two connections may stand one poll apart.
    public nonisolated func replicaStatus() async throws -> ReplicaStatus? {
        guard replicaURL != nil else { return nil }
        return try await read { conn in try ReplicaStatus(reading: conn) }
    }
}

extension Database.ReplicaStatus {
    /// Reads the VFS's pragmas on `connection`; throws when it reports no position.
    init(reading connection: Connection) throws {
        guard let position = try Self.position(of: connection) else {
            throw SQLiteError(
                code: .notFound, message: "the connection's VFS reports no litestream_txid: it is not a read replica")
        }
        let lag = try connection.filePragma("litestream_lag").flatMap { Int($0) }
        self.init(
            transactionID: position,
            transactionTime: try connection.filePragma("litestream_time").flatMap(Self.date),
            secondsSinceLastPoll: lag.flatMap { $0 < 0 ? nil : $0 })
    }

    /// The transaction ID `connection` reads at (`PRAGMA litestream_txid`, 16 hexadecimal digits); nil
    /// when its VFS does not say.
    static func position(of connection: Connection) throws -> UInt64? {
        try connection.filePragma("litestream_txid").flatMap { UInt64($0, radix: 16) }
    }

    /// An RFC 3339 time as the VFS prints it (`2026-12-05T12:23:50.435Z`), with or without fractions.
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) {
            return date
        }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
