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
        // The file control takes an array of three C strings: [0] receives the answer or an error
        // message, allocated with sqlite3_malloc and freed here once copied; [1] is the pragma's name
        // and [2] its value or NULL, which SQLite and the VFS only read, and only during the call, while
        // `withCString` keeps them alive (the casts to mutable pointers are for the C signature alone).
        let (code, answer) = name.withCString { name in
            Self.withOptionalCString(value) { value in
                var arguments: [UnsafeMutablePointer<CChar>?] = [nil, UnsafeMutablePointer(mutating: name), value]
                let code = arguments.withUnsafeMutableBufferPointer { buffer in
                    sqlite3_file_control(handle, "main", SQLITE_FCNTL_PRAGMA, buffer.baseAddress)
                }
                defer { sqlite3_free(arguments[0]) }
                return (code, arguments[0].map { String(cString: $0) })
            }
        }
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

    /// Calls `body` with `text` as a C string (cast to mutable for a C signature that only reads it),
    /// or with NULL.
    private static func withOptionalCString<T>(_ text: String?, _ body: (UnsafeMutablePointer<CChar>?) -> T) -> T {
        guard let text else { return body(nil) }
        return text.withCString { body(UnsafeMutablePointer(mutating: $0)) }
    }

    /// Whether no transaction is open on the connection (no statement reading or writing either): the
    /// moment to change what its VFS shows, which a read in progress must not see change.
    var isIdle: Bool {
        !isClosed && sqlite3_txn_state(handle, nil) == SQLITE_TXN_NONE
    }
}
