import CSQLite

/// Reads that cannot write, on a connection that can.
extension Connection {
    /// Runs `body` with every write refused with ``SQLiteError/Code/readOnly``, as on a reader opened
    /// read-only with `PRAGMA query_only`.
    ///
    /// Each statement is checked before it starts (`sqlite3_stmt_readonly`, which costs nothing worth
    /// measuring). As long as every statement is a plain read, nothing else happens. At the first one
    /// that SQLite says may write (an `INSERT`, a `CREATE`, but also a `PRAGMA` such as `journal_mode`
    /// that only reads in fact), and before any script, `PRAGMA query_only` is turned on until `body`
    /// ends, so that SQLite itself refuses the writes and lets the reads through, as on a reader. (The
    /// pragma is not turned on for every read: each change of it expires every prepared statement of
    /// the connection, which SQLite then prepares again at its next step.) Finally, when `body` returns
    /// with a write transaction open all the same (a write SQLite could not see coming, such as
    /// `PRAGMA optimize` running `ANALYZE`), it throws too, so that the caller's transaction rolls the
    /// write back.
    func refusingWrites<T>(_ body: () throws -> T) throws -> T {
        guard !refusesWrites else {
            // Nested: the outer scope checks and turns the pragma off.
            return try body()
        }
        refusesWrites = true
        defer {
            refusesWrites = false
            if isQueryOnly {
                isQueryOnly = false
                if !isClosed {
                    // Directly, not through a statement: an interrupt raised meanwhile must not keep
                    // the pragma on for the next job.
                    sqlite3_exec(handle, "PRAGMA query_only = OFF", nil, nil, nil)
                }
            }
        }
        let result = try body()
        if !isClosed, sqlite3_txn_state(handle, nil) == SQLITE_TXN_WRITE {
            throw SQLiteError(
                code: .readOnly, extendedCode: SQLITE_READONLY,
                message: "attempt to write a readonly database: something wrote where writes are refused (a read), "
                    + "and the write is rolled back")
        }
        return result
    }

    /// Called for each statement while ``refusesWrites`` is on: turns `PRAGMA query_only` on when
    /// `statement` may write. Gives `statement` back when that fails.
    func guardWrites(of statement: Statement) throws {
        guard !isQueryOnly, sqlite3_stmt_readonly(statement.handle) == 0 else { return }
        do {
            try turnOnQueryOnly()
        } catch {
            release(statement)
            throw error
        }
    }

    /// Turns `PRAGMA query_only` on until the end of ``refusingWrites(_:)``, for a statement or a
    /// script that may write.
    func turnOnQueryOnly() throws {
        guard !isQueryOnly else { return }
        let pragma = "PRAGMA query_only = ON"
        let code = sqlite3_exec(handle, pragma, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw SQLiteError(database: handle, resultCode: code, sql: pragma)
        }
        isQueryOnly = true
    }
}
