import Foundation

extension Database {
    /// Where a read replica stands (``Database/replicaStatus()``): the transaction its reads see, the
    /// newest one the replica holds, and how fresh that is, as Litestream's VFS reports them.
    ///
    /// ```swift
    /// if let status = try await replica.replicaStatus(), (status.secondsSinceLastPoll ?? .max) > 30 {
    ///     print("the replica store has not been reached for 30 s; reads see \(status.transactionID)")
    /// }
    /// ```
    public struct ReplicaStatus: Sendable, Hashable {
        /// The replica's position: Litestream's transaction ID (TXID) of the newest whole transaction
        /// that every read sees now (the lowest among the database's connections, which each move to
        /// a new transaction between two reads). It grows by one or more with each transaction the
        /// primary commits.
        public let transactionID: UInt64
        /// When Litestream recorded that transaction on the replica (the time of its LTX file, within
        /// the replicator's sync window of its commit on the primary); nil when the VFS does not say.
        public let transactionTime: Date?
        /// The newest transaction the replica held when it was last polled: reads reach it within a
        /// quarter of the poll interval (at most 0.25 s) once every connection is idle.
        public let latestTransactionID: UInt64
        /// Whole seconds since the replica was last polled successfully; nil before the first poll.
        /// The replica is behind the primary by at most this plus the poll interval plus the
        /// replicator's sync window (its monitor and sync intervals); a value that grows beyond the poll
        /// interval means the replica store cannot be reached, and reads see its last whole transaction.
        public let secondsSinceLastPoll: Int?

        /// Creates a status; Bindery makes them in ``Database/replicaStatus()``.
        public init(
            transactionID: UInt64, transactionTime: Date?, latestTransactionID: UInt64, secondsSinceLastPoll: Int?
        ) {
            self.transactionID = transactionID
            self.transactionTime = transactionTime
            self.latestTransactionID = latestTransactionID
            self.secondsSinceLastPoll = secondsSinceLastPoll
        }
    }

    /// The status of a read replica now; nil when the database is not a read replica.
    ///
    /// It asks each connection in turn, after the read each one is running, if any.
    public nonisolated func replicaStatus() async throws -> ReplicaStatus? {
        guard let replicaWatcher else { return nil }
        let views = await onServingConnections { _, conn -> View? in
            guard !conn.isClosed, let position = try? ReplicaStatus.position(of: conn) else { return nil }
            return View(
                position: position,
                time: (try? conn.filePragma("litestream_time")).flatMap { $0 }.flatMap(SQLiteDate.date(from:)))
        }
        guard let oldest = views.compactMap({ $0 }).min(by: { $0.position < $1.position }),
            let lookout = await replicaWatcher.lookout.run({ conn in ReplicaWatcher.report(of: conn) }),
            let latest = lookout.position
        else {
            throw DatabaseError.closed
        }
        return ReplicaStatus(
            transactionID: oldest.position, transactionTime: oldest.time,
            latestTransactionID: max(latest, oldest.position),
            secondsSinceLastPoll: lookout.secondsSincePoll.flatMap { $0 < 0 ? nil : $0 })
    }

    /// One connection's view: its position and that transaction's time.
    private struct View: Sendable {
        let position: UInt64
        let time: Date?
    }
}

extension Database.ReplicaStatus {
    /// The transaction ID `connection` reads at (`PRAGMA litestream_txid`, 16 hexadecimal digits); nil
    /// when its VFS does not say.
    static func position(of connection: Connection) throws -> UInt64? {
        try connection.filePragma("litestream_txid").flatMap { UInt64($0, radix: 16) }
    }
}
