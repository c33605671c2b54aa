import CSQLite

/// Pragmas that SQLite does not know, answered by the connection's VFS.
extension Connection {
    /// Asks the VFS of the main database for the pragma `name` without a value
    /// (`SQLITE_FCNTL_PRAGMA`), and returns its answer: nil when the VFS does not know the pragma or
    /// gives no text.
    ///
    /// Run as SQL (`PRAGMA name`), such a pragma is answered when the statement is *prepared*, and the
    /// statement cache would hand back that first answer forever: this asks each time.
    func filePragma(_ name: String) throws -> String? {
        guard !isClosed else {
            throw SQLiteError(code: .misuse, message: "the connection is closed")
        }
        // The file control takes an array of three strings: [0] receives the answer or an error
        // message (allocated with sqlite3_malloc), [1] is the pragma's name, [2] its value (none).
        return try name.withCString { namePointer in
            var arguments: [UnsafeMutablePointer<CChar>?] = [nil, UnsafeMutablePointer(mutating: namePointer), nil]
            let code = arguments.withUnsafeMutableBufferPointer { buffer in
                sqlite3_file_control(handle, "main", SQLITE_FCNTL_PRAGMA, buffer.baseAddress)
            }
            let answer = arguments[0].map { String(cString: $0) }
            sqlite3_free(arguments[0])
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
    }
}
