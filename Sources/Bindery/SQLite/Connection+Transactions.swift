import CSQLite

/// Transactions and their savepoints.
extension Connection {
    /// The kind of lock a transaction takes when it begins.
    public enum TransactionKind: String, Sendable {
        /// Takes locks as statements need them (`BEGIN DEFERRED`).
        case deferred = "DEFERRED"
        /// Takes the write lock at once (`BEGIN IMMEDIATE`); the usual choice for writes.
        case immediate = "IMMEDIATE"
        /// Takes the write lock and, outside WAL mode, keeps readers out (`BEGIN EXCLUSIVE`).
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: it commits when `body` returns and rolls back when it throws,
    /// and the error is rethrown.
    ///
    /// Called inside another transaction, it becomes a `SAVEPOINT`: its changes roll back alone when
    /// its body throws, and commit with the outer transaction otherwise.
    ///
    /// Some errors make SQLite roll the whole transaction back by itself (`SQLITE_FULL`,
    /// `SQLITE_IOERR`, `SQLITE_NOMEM`, `SQLITE_INTERRUPT`, `ON CONFLICT ROLLBACK`, `RAISE(ROLLBACK)`).
    /// When `body` catches such an error and goes on, every later statement on the connection throws
    /// ``SQLiteError`` with code ``SQLiteError/Code/abort`` until the outermost `transaction` returns,
    /// and that one throws too: nothing of the transaction is committed, not even its last statements.
    ///
    /// Inside the transaction, a statement that would end it (`COMMIT`, `END`, `ROLLBACK`) or release
    /// a savepoint not opened inside it throws ``SQLiteError/Code/misuse`` before it runs, alone or in
    /// a script: the transaction commits when `body` returns, or not at all.
    ///
    /// ```swift
    /// try conn.transaction(.immediate) { conn in
    ///     try conn.execute("UPDATE accounts SET balance = balance - 10 WHERE id = ?", arguments: [1])
    ///     try conn.execute("UPDATE accounts SET balance = balance + 10 WHERE id = ?", arguments: [2])
    /// }
    /// ```
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: (Connection) throws -> T) throws -> T {
        try checkUsable(sql: nil)
        if isInTransaction {
            return try savepoint(body)
        }
        try transactionParticipant?.willBegin(self)
        try runCached("BEGIN \(kind.rawValue) TRANSACTION")
        scopeSavepoints.removeAll(keepingCapacity: true)
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        let result: T
        do {
            result = try body(self)
            // `body` may have closed the connection (which rolled the transaction back), or been
            // interrupted after its last statement.
            try checkOpen()
        } catch {
            rollbackQuietly()
            throw error
        }
        guard isInTransaction else {
            throw Connection.rolledBackBySQLite
        }
        do {
            try transactionParticipant?.willCommit(self)
            try runCached("COMMIT TRANSACTION")
        } catch {
            rollbackQuietly()
            throw error
        }
        return result
    }

    private func savepoint<T>(_ body: (Connection) throws -> T) throws -> T {
        // Named by depth, so that each level's statements are prepared once and cached.
        let name = "bindery_savepoint_\(transactionDepth + 1)"
        try runCached("SAVEPOINT \(name)")
        if transactionDepth == 0 {
            // An outermost scope inside a transaction begun without one (`BEGIN`, `SAVEPOINT`).
            scopeSavepoints.removeAll(keepingCapacity: true)
        }
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let result = try body(self)
            try checkOpen()
            guard isInTransaction else {
                throw Connection.rolledBackBySQLite
            }
            try runCached("RELEASE SAVEPOINT \(name)")
            return result
        } catch {
            // An error such as SQLITE_FULL may have rolled the whole transaction back already.
            if isInTransaction {
                status.possibleUndos &+= 1
                try? runCached("ROLLBACK TRANSACTION TO SAVEPOINT \(name)")
                try? runCached("RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
    }

    /// The error when SQLite rolled back a transaction that a ``transaction(_:_:)`` scope holds open
    /// (an `ON CONFLICT ROLLBACK`, a `RAISE(ROLLBACK)`, or an error such as `SQLITE_FULL` that the body
    /// caught): thrown by every statement the body runs afterwards, and by the transaction instead of
    /// committing. Nothing was committed, and saying so is better than a later "no transaction is
    /// active". Its extended code is `SQLITE_ABORT_ROLLBACK`.
    static let rolledBackBySQLite = SQLiteError(
        code: .abort, extendedCode: SQLITE_ABORT | (2 << 8),
        message: "the transaction was rolled back by SQLite before it could commit (ON CONFLICT ROLLBACK, "
            + "RAISE(ROLLBACK), or an error such as SQLITE_FULL caught inside the transaction); nothing was "
            + "committed, and no statement runs until the transaction ends")

    /// Runs a statement without arguments through the statement cache (transaction control, which
    /// runs on every write).
    func runCached(_ sql: String) throws {
        runsOwnControl = true
        defer { runsOwnControl = false }
        try withStatement(sql) { try $0.run() }
    }

    /// Rolls the open transaction back, if SQLite has not done so already.
    func rollbackQuietly() {
        guard !isClosed, isInTransaction else { return }
        try? runCached("ROLLBACK TRANSACTION")
    }
}
