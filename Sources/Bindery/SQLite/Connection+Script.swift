import CSQLite

/// Scripts: several statements without arguments, prepared and run one after the other.
extension Connection {
    /// Runs every statement in `script`, which takes no arguments: DDL, pragmas, a schema.
    ///
    /// ```swift
    /// try conn.execute(script: """
    ///     CREATE TABLE a(id INTEGER PRIMARY KEY);
    ///     CREATE TABLE b(id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id));
    ///     """)
    /// ```
    ///
    /// The statements run in order, each prepared once it is its turn, so that one may use a table an
    /// earlier one created. The first that fails stops the script: the error names that statement
    /// (its ``SQLiteError/sql``), and the statements before it keep their effect. A script of white
    /// space and comments only does nothing.
    ///
    /// Inside a ``transaction(_:_:)`` scope (and so inside `Database.write` and a migration), the
    /// script is part of the scope's transaction, which commits when the scope returns: a `COMMIT`,
    /// `END` or `ROLLBACK` in the script throws ``SQLiteError/Code/misuse`` before it runs, and so
    /// does a `RELEASE` of a savepoint not opened inside the scope (it could release the scope's own).
    /// `SAVEPOINT`, and `RELEASE` and `ROLLBACK TO` of savepoints the scope's statements opened, in this
    /// script or before it, are fine. A statement
    /// that comes after SQLite ended the transaction throws ``SQLiteError/Code/abort`` (see
    /// ``transaction(_:_:)``). Outside any scope each statement commits on its own, and a script may
    /// hold its own `BEGIN` … `COMMIT`.
    ///
    /// SQL text holding a NUL byte throws ``SQLiteError/Code/misuse`` before anything runs: SQLite
    /// would read it only up to the NUL. Text values holding NUL go in as bound arguments instead.
    public func execute(script: String) throws {
        try checkOpen()
        try Statement.checkNoNUL(in: script)
        if refusesWrites {
            try turnOnQueryOnly()
        }
        let bytes = Array(script.utf8)
        var offset = 0
        while offset < bytes.count {
            let prepared = SQLiteMemory.prepare(handle, script, from: offset, flags: 0)
            let code = prepared.code
            guard code == SQLITE_OK else {
                sqlite3_finalize(prepared.statement)
                let sql = Connection.statementText(bytes, from: offset, to: Connection.end(of: bytes, offset))
                throw explainingUntrustedSchema(
                    explainingDoubleQuotedStrings(
                        SQLiteError(database: handle, resultCode: code, sql: sql), sql: sql))
            }
            let end = prepared.end
            guard let statement = prepared.statement else {
                // Only white space and comments were left.
                guard end > offset else { break }
                offset = end
                continue
            }
            defer { sqlite3_finalize(statement) }
            let sql = Connection.statementText(bytes, from: offset, to: end)
            try checkUsable(sql: sql)
            let control = transactionDepth > 0 ? TransactionControl(sql: bytes[offset..<end]) : .none
            if control != .none {
                try Connection.checkControl(control, sql: sql, savepoints: scopeSavepoints, inScript: true)
            }
            if TransactionControl.changesSchema(sql: bytes[offset..<end]) {
                noteSchemaChange()
            }
            var result = sqlite3_step(statement)
            while result == SQLITE_ROW { result = sqlite3_step(statement) }
            guard result == SQLITE_DONE else {
                status.possibleUndos &+= 1
                throw SQLiteError(database: handle, resultCode: result, sql: sql)
            }
            if case .rollbackTo = control {
                status.possibleUndos &+= 1
            }
            Connection.track(control, in: &scopeSavepoints)
            offset = end
        }
    }

    /// Throws when a transaction-control statement run inside a transaction scope (alone, or in a
    /// script when `inScript`) could end the scope's transaction or release the scope's savepoint:
    /// `savepoints` are those the scope's statements opened (``scopeSavepoints``). Names, folded to
    /// ASCII lower case, are compared by their bytes, as SQLite compares them: "café" composed and
    /// decomposed are two savepoints.
    static func checkControl(
        _ control: TransactionControl, sql: String, savepoints: [String], inScript: Bool
    ) throws {
        let reason: String
        switch control {
        case .commit:
            reason = "would commit part of the transaction: the scope commits when its body returns"
        case .rollback:
            reason = "would end the transaction under the scope: throw an error from the body to roll it back"
        case .release(let name) where !savepoints.contains(where: { ExactText.same($0, name) }):
            reason =
                "releases a savepoint not opened inside the scope, which could be the scope's own (or hold it) "
                + "and commit part of the transaction; only savepoints opened inside the scope may be released"
        default:
            return
        }
        let runner = inScript ? "a script run" : "a statement run"
        let rest = inScript ? "it did not run, nor did any statement after it" : "it did not run"
        throw SQLiteError(
            code: .misuse,
            message: "\(runner) inside a transaction scope (Database.write, Connection.transaction, a migration) "
                + "cannot run this statement, which \(reason); \(rest)",
            sql: sql)
    }

    /// Updates the savepoints a script (or a scope's single statements) opened, for `control`.
    static func track(_ control: TransactionControl, in savepoints: inout [String]) {
        switch control {
        case .savepoint(let name):
            savepoints.append(name)
        case .release(let name):
            if let index = savepoints.lastIndex(where: { ExactText.same($0, name) }) {
                savepoints.removeSubrange(index...)
            }
        case .rollbackTo(let name):
            // Rolling back to a savepoint opened before the script cancels every one the script opened.
            savepoints.removeSubrange(
                (savepoints.lastIndex(where: { ExactText.same($0, name) }).map { $0 + 1 } ?? 0)...)
        case .none, .begin, .commit, .rollback:
            break
        }
    }

    /// The text of the statement at `offset` of a script: from its first word (past white space and
    /// comments) to `end`, without the white space and semicolons that close it.
    static func statementText(_ bytes: [UInt8], from offset: Int, to end: Int) -> String {
        let slice = Array(bytes[offset..<end])
        var last = slice.count
        while last > 0, slice[last - 1] == UInt8(ascii: ";") || slice[last - 1] <= 0x20 { last -= 1 }
        let first = min(TransactionControl.startOfCode(in: slice), last)
        return String(decoding: slice[first..<last], as: UTF8.self)
    }

    /// The end of the statement that starts at `offset` of the script's UTF-8 `bytes`, for a statement
    /// that failed to prepare: the first semicolon after which the text is a complete statement
    /// (`sqlite3_complete`, which knows the semicolons inside a trigger's body), or the end.
    static func end(of bytes: [UInt8], _ offset: Int) -> Int {
        var index = offset
        while index < bytes.count {
            index += 1
            if bytes[index - 1] == UInt8(ascii: ";"),
                sqlite3_complete(String(decoding: bytes[offset..<index], as: UTF8.self)) != 0
            {
                return index
            }
        }
        return index
    }
}
