extension Connection {
    /// Runs `body` and returns what it returns with the tables its statements read, as SQLite's
    /// authorizer reports them (views resolved to their tables); see ``ConnectionHooks``.
    ///
    /// ```swift
    /// let (count, region) = try conn.recordingReads { conn in
    ///     try conn.count(Student.self)
    /// }
    /// // region.contains("students")
    /// ```
    ///
    /// Every prepared statement of the connection is expired at the start, so that cached statements
    /// report their tables too: each is prepared once more the next time it runs.
    func recordingReads<T>(_ body: (Connection) throws -> T) throws -> (value: T, region: DatabaseRegion) {
        try checkOpen()
        hooks.beginRecordingReads()
        let value: T
        do {
            value = try body(self)
        } catch {
            if !isClosed {
                _ = hooks.endRecordingReads()
            }
            throw error
        }
        // `body` may have closed the connection, which removed the hooks with it.
        try checkOpen()
        return (value, hooks.endRecordingReads())
    }

    /// Starts tracking which tables the connection's committed transactions change, until it
    /// closes; ``takeCommittedChanges()`` hands them out. See ``ConnectionHooks``.
    ///
    /// While tracking, `DELETE FROM t` without `WHERE` deletes row by row rather than by SQLite's
    /// truncate optimization, so that the deletion is seen.
    func startTrackingChanges() {
        guard !isClosed else { return }
        hooks.startTrackingChanges()
        status.writeTracker = hooks
    }

    /// The tables changed by the transactions committed since the last call (or since tracking
    /// started); empty when tracking is off.
    func takeCommittedChanges() -> DatabaseRegion {
        guard !isClosed else { return DatabaseRegion() }
        return hooks.takeCommittedChanges()
    }

    /// Makes `participant` the connection's ``transactionParticipant`` and the guard of its commit
    /// hook: a commit it does not allow (``TransactionParticipant/allowsCommit()``) fails with
    /// `SQLITE_CONSTRAINT_COMMITHOOK` and rolls back, whatever statement asked for it. Turns change
    /// tracking on (the commit hook is part of it).
    func setTransactionParticipant(_ participant: (any TransactionParticipant)?) {
        guard !isClosed else { return }
        storeTransactionParticipant(participant)
        hooks.startTrackingChanges()
        status.writeTracker = hooks
        hooks.commitGuard = participant
    }

    /// The connection's hooks, made on first use. Only the connection keeps them (no caller holds on
    /// to the object), so that they go, and remove their callbacks, when the connection closes.
    private var hooks: ConnectionHooks {
        extensionState { ConnectionHooks(handle: handle, cacheCapacity: statementCache.capacity) }
    }
}
