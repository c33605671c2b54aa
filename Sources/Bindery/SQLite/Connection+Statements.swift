import CSQLite

/// Lending the connection's cached statements (``StatementCache``) to the operations that run them.
extension Connection {
    /// Runs `body` with the cached statement for `sql`, then resets it and clears its bindings.
    ///
    /// When SQLite reports `SQLITE_SCHEMA` (the schema changed under the statement), the cache is
    /// emptied and `body` runs once more with a freshly prepared statement.
    ///
    /// Inside a ``transaction(_:_:)`` that SQLite has rolled back, it throws ``rolledBackBySQLite``.
    ///
    /// Inlined into its callers: a record call made one at a time would otherwise pay for building and
    /// counting the closure's captured values on every call.
    @inline(__always)
    func withStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        try checkUsable(sql: sql)
        do {
            return try withCachedStatement(sql, body)
        } catch let error as SQLiteError where error.code == .schema {
            return try withStatementAgain(sql, body)
        }
    }

    /// Runs `body` once more with a freshly prepared statement, after SQLite reported `SQLITE_SCHEMA`.
    @inline(never)
    func withStatementAgain<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        try checkUsable(sql: sql)
        statementCache.removeAll()
        return try withCachedStatement(sql, body)
    }

    @inline(__always)
    private func withCachedStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        // Lent by the cache, which keeps the statement alive until it comes back, whatever `body` does
        // meanwhile (see StatementCache.statement(for:)). A local function marked to be inlined rather
        // than a closure, which the optimizer keeps as a function of its own (callgrind: about 40
        // instructions a call).
        @inline(__always)
        func run(_ statement: Statement) throws -> T {
            defer { statementCache.release(statement) }
            let result = try body(statement)
            // `body` may have run user code (a decoder, an encoder) that closed the connection, after the
            // statement's last step: the operation still fails.
            guard status.isClear else {
                throw status.error(sql: sql)
            }
            return result
        }
        return try prepared(sql).with(run)
    }

    /// The cached statement for `sql`, lent as ``withStatement(_:_:)`` lends it but without a closure:
    /// the caller gives it back with ``releaseAfterRun(_:sql:)`` when its work succeeded (or
    /// ``release(_:)`` when it threw), and retries `SQLITE_SCHEMA` itself. The cache keeps the
    /// statement alive until then, whatever runs meanwhile.
    @inline(__always)
    func lendStatement(_ sql: String) throws -> Lent<Statement> {
        try checkUsable(sql: sql)
        return try prepared(sql)
    }

    /// Gives back a statement from ``lendStatement(_:)`` after its work succeeded; throws when the
    /// connection can no longer be used (user code run meanwhile closed it, say): the operation
    /// fails, as in ``withStatement(_:_:)``.
    @inline(__always)
    func releaseAfterRun(_ statement: Statement, sql: String) throws {
        statementCache.release(statement)
        guard status.isClear else {
            throw status.error(sql: sql)
        }
    }

    /// A statement for `sql` that the caller gives back with ``release(_:)`` (for cursors).
    func checkOutStatement(_ sql: String) throws -> Statement {
        try lendStatement(sql).object
    }

    /// The cached statement for `sql`; a failure to prepare it that comes from a double-quoted
    /// string in the schema says so (``explainingDoubleQuotedStrings(_:sql:)``).
    ///
    /// Inline in its callers, which run it for every statement: the checks that seldom apply read a flag
    /// here and call out of line only when it is set.
    @inline(__always)
    private func prepared(_ sql: String) throws -> Lent<Statement> {
        let lent: Lent<Statement>
        do {
            lent = try statementCache.statement(for: sql)
        } catch let error as SQLiteError {
            throw explaining(error, sql: sql)
        }
        try lent.with { statement in
            if refusesWrites {
                try guardWrites(of: statement)
            }
            if transactionDepth > 0, !runsOwnControl, statement.isTransactionControl {
                try guardTransactionControl(of: statement)
            }
            if statement.changesSchema {
                noteSchemaChange()
            }
        }
        return lent
    }

    /// A failure to prepare `sql`, explained where the schema's double-quoted strings or its trust
    /// made it (out of line: the error path of ``prepared(_:)``).
    @inline(never)
    private func explaining(_ error: SQLiteError, sql: String) -> SQLiteError {
        explainingUntrustedSchema(explainingDoubleQuotedStrings(error, sql: sql))
    }

    /// Gives back a statement from ``checkOutStatement(_:)`` or ``lendStatement(_:)``.
    func release(_ statement: Statement) {
        statementCache.release(statement)
    }

    /// Empties the statement cache (its statements in use are finalized when they come back).
    public func clearStatementCache() {
        statementCache.removeAll()
    }
}
