import CSQLite

/// Pragmas that SQLite does not know, answered by the connection's VFS.
extension Connection {
    /// Asks the VFS of the main database for the pragma `name`, with `value` when one is given
    /// (`SQLITE_FCNTL_PRAGMA`), and returns its answer: nil when the VFS does not know the pragma or
    /// gives no text. Throws the VFS's error message when it refuses.
    ///
    /// Run as SQL (`PRAGMA name`), such a pragma is answered when the statement is *prepared*, and the
    /// statement cache would hand back that first answer forever: this asks each time.
    func filePragma(_ name: String, value: String? = nil) throws -> String? {
        guard !isClosed else {
            throw SQLiteError(code: .misuse, message: "the connection is closed")
        }
        let (code, answer) = SQLiteMemory.filePragma(handle, name, value: value)
        switch code {
        case SQLITE_OK:
            return answer
        case SQLITE_NOTFOUND:
            return nil
        default:
            throw SQLiteError(
                code: SQLiteError.Code(rawValue: code), extendedCode: code,
                message: answer ?? String(cString: sqlite3_errstr(code)))
        }
    }

    /// Whether no transaction is open on the connection (no statement reading or writing either): the
    /// moment to change what its VFS shows, which a read in progress must not see change.
    var isIdle: Bool {
        !isClosed && sqlite3_txn_state(handle, nil) == SQLITE_TXN_NONE
    }
}
