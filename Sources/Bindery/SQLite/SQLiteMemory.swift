import CSQLite
import Foundation

/// The SQLite layer's one reader and writer of memory across SQLite's C boundary: the text and bytes
/// of columns and values, the bytes of bound text and blobs, the tail SQLite leaves after preparing a
/// statement, and the C strings it allocates for answers and error messages. Everything else in the layer hands SQLite Swift strings and arrays
/// through the compiler's bridging and gets Swift values back from here.
///
/// Safety: a pointer SQLite returns is valid until the next call on the same statement or value (for
/// column and value text and bytes), or until it is freed (for memory SQLite allocates); a pointer
/// into a Swift string is valid inside its `withCString`. Each function here reads such memory only
/// inside that span and copies what it reads into a Swift value (`String`, `Data`, `[UInt8]`, an
/// offset) before it returns; none keeps a pointer. Every length comes from SQLite
/// (`sqlite3_column_bytes`, `sqlite3_value_bytes`, read after the pointer, in the order SQLite
/// documents) or is an offset inside the string that was handed over; a NULL pointer with a nonzero
/// length (SQLite out of memory) is returned as nil, never read.
enum SQLiteMemory {
    // MARK: Columns and values

    /// The text of column `index` of `statement`'s current row, invalid UTF-8 repaired with U+FFFD;
    /// nil when SQLite gives no pointer (an empty value, or no memory: the caller tells them apart).
    static func string(column index: Int32, of statement: OpaquePointer) -> String? {
        guard let text = sqlite3_column_text(statement, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The bytes of column `index` of `statement`'s current row; nil when SQLite gives no pointer (an
    /// empty value, or no memory: the caller tells them apart).
    static func data(column index: Int32, of statement: OpaquePointer) -> Data? {
        guard let bytes = sqlite3_column_blob(statement, index) else { return nil }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, index)))
    }

    /// The text of the `sqlite3_value` `value`, invalid UTF-8 repaired; "" when it has no bytes, nil
    /// when SQLite could not give its bytes (out of memory).
    static func string(ofValue value: OpaquePointer) -> String? {
        let text = sqlite3_value_text(value)
        let count = Int(sqlite3_value_bytes(value))
        guard let text else { return count == 0 ? "" : nil }
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Whether the text of the `sqlite3_value` `value` (a TEXT value) is valid UTF-8; nil when SQLite
    /// could not give its bytes (out of memory).
    static func isValidText(ofValue value: OpaquePointer) -> Bool? {
        withText(ofValue: value) { bytes in
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        } ?? (sqlite3_value_bytes(value) == 0 ? true : nil)
    }

    /// `body` given the text of the `sqlite3_value` `value` (a TEXT value), lent for the call; nil when
    /// SQLite could not give it (out of memory).
    static func withText<R>(ofValue value: OpaquePointer, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        let text = sqlite3_value_text(value)
        let count = Int(sqlite3_value_bytes(value))
        guard let text else { return nil }
        return body(UnsafeBufferPointer(start: text, count: count))
    }

    /// The bytes of the `sqlite3_value` `value` (`sqlite3_value_blob`: the stored bytes of a TEXT
    /// value too); empty when it has none, nil when SQLite could not give them (out of memory).
    static func data(ofValue value: OpaquePointer) -> Data? {
        let bytes = sqlite3_value_blob(value)
        let count = Int(sqlite3_value_bytes(value))
        guard let bytes else { return count == 0 ? Data() : nil }
        return Data(bytes: bytes, count: count)
    }

    /// How `appendBytes(of:_:to:prefix:)` reads a value's bytes.
    enum ValueBytes {
        /// `sqlite3_value_blob`: a BLOB's bytes, or a TEXT value's bytes as stored.
        case stored
        /// `sqlite3_value_text`: a TEXT value's UTF-8 (converted from the database's encoding).
        case utf8Text
    }

    /// Appends `prefix(count)` then the `count` bytes of the `sqlite3_value` `value`, read as `kind`
    /// says, to `bytes`. Returns false, and appends `count` zero bytes after the prefix instead, when
    /// SQLite could not give the bytes (out of memory).
    static func appendBytes(
        of value: OpaquePointer, _ kind: ValueBytes, to bytes: inout [UInt8], prefix: (Int, inout [UInt8]) -> Void
    ) -> Bool {
        let pointer: UnsafeRawPointer? =
            switch kind {
            case .stored: sqlite3_value_blob(value)
            case .utf8Text: UnsafeRawPointer(sqlite3_value_text(value))
            }
        let count = Int(sqlite3_value_bytes(value))
        prefix(count, &bytes)
        guard count > 0 else { return true }
        guard let pointer else {
            bytes.append(contentsOf: repeatElement(0, count: count))
            return false
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: pointer, count: count))
        return true
    }

    // MARK: Bound values

    /// Binds `value`'s UTF-8 as TEXT to parameter `index` of `statement` (copied by SQLite, NUL bytes
    /// included); SQLite's result code.
    static func bindText(_ value: String, to statement: OpaquePointer, at index: Int32) -> Int32 {
        var value = value
        return value.withUTF8 { bytes -> Int32 in
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_text(statement, index, "", 0, bindery_sqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                sqlite3_bind_text64(
                    statement, index, chars, sqlite3_uint64(bytes.count), bindery_sqlite_transient(),
                    UInt8(SQLITE_UTF8))
            }
        }
    }

    /// Binds `value` as a BLOB to parameter `index` of `statement` (copied by SQLite; empty is an empty
    /// blob, not NULL); SQLite's result code.
    static func bindBlob(_ value: Data, to statement: OpaquePointer, at index: Int32) -> Int32 {
        value.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_zeroblob(statement, index, 0)
            }
            return sqlite3_bind_blob64(statement, index, base, sqlite3_uint64(bytes.count), bindery_sqlite_transient())
        }
    }

    /// Binds the bytes of `buffer` in `range` (inside it) as TEXT or a BLOB to parameter `index` of
    /// `statement` (copied by SQLite); SQLite's result code.
    static func bindBytes(
        _ buffer: [UInt8], _ range: Range<Int>, asText: Bool, to statement: OpaquePointer, at index: Int32
    ) -> Int32 {
        guard range.lowerBound >= 0, range.upperBound <= buffer.count else { return SQLITE_RANGE }
        return buffer.withUnsafeBytes { bytes in
            let pointer = bytes.baseAddress.map { $0 + range.lowerBound }
            let count = Int32(range.count)
            return asText
                ? sqlite3_bind_text(statement, index, pointer, count, bindery_sqlite_transient())
                : sqlite3_bind_blob(statement, index, pointer, count, bindery_sqlite_transient())
        }
    }

    // MARK: SQL text

    /// What ``prepare(_:_:from:flags:)`` gives back.
    struct Prepared {
        /// SQLite's result code.
        let code: Int32
        /// The statement, to finalize; nil when only white space and comments were left (or on error).
        let statement: OpaquePointer?
        /// The UTF-8 offset in the SQL text where the text after the statement begins.
        let end: Int
    }

    /// Prepares the statement that starts `offset` UTF-8 bytes into `sql` (which holds no NUL byte,
    /// and is at least `offset` bytes long) on `database`.
    static func prepare(_ database: OpaquePointer, _ sql: String, from offset: Int, flags: UInt32) -> Prepared {
        sql.withCString { start in
            // The tail points into this C string: it is turned into an offset inside the closure.
            var statement: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(database, start + offset, -1, flags, &statement, &tail)
            return Prepared(code: code, statement: statement, end: tail.map { $0 - start } ?? sql.utf8.count)
        }
    }

    // MARK: Strings SQLite allocates

    /// The text of a C string SQLite allocated with `sqlite3_malloc` (an answer or an error message),
    /// which this frees; nil for NULL.
    static func take(_ text: UnsafeMutablePointer<CChar>?) -> String? {
        defer { sqlite3_free(text) }
        return text.map { String(cString: $0) }
    }

    /// Asks the VFS of `database`'s main file for the pragma `name`, with `value` when one is given
    /// (`SQLITE_FCNTL_PRAGMA`): SQLite's result code and the VFS's answer or error message.
    static func filePragma(_ database: OpaquePointer, _ name: String, value: String?) -> (code: Int32, answer: String?)
    {
        // The file control takes an array of three C strings: [0] receives the answer or an error
        // message, allocated with sqlite3_malloc and freed here once copied; [1] is the pragma's name
        // and [2] its value or NULL, which SQLite and the VFS only read, and only during the call, while
        // `withCString` keeps them alive (the casts to mutable pointers are for the C signature alone).
        name.withCString { name in
            withOptionalCString(value) { value in
                var arguments: [UnsafeMutablePointer<CChar>?] = [nil, UnsafeMutablePointer(mutating: name), value]
                let code = arguments.withUnsafeMutableBufferPointer { buffer in
                    sqlite3_file_control(database, "main", SQLITE_FCNTL_PRAGMA, buffer.baseAddress)
                }
                return (code, take(arguments[0]))
            }
        }
    }

    /// Calls `body` with `text` as a C string (cast to mutable for a C signature that only reads it),
    /// or with NULL.
    private static func withOptionalCString<T>(_ text: String?, _ body: (UnsafeMutablePointer<CChar>?) -> T) -> T {
        guard let text else { return body(nil) }
        return text.withCString { body(UnsafeMutablePointer(mutating: $0)) }
    }

    /// Loads the extension at `path` with its `entryPoint` into `database`: SQLite's result code and
    /// its error message.
    static func loadExtension(_ database: OpaquePointer, path: String, entryPoint: String?) -> (
        code: Int32, message: String?
    ) {
        var error: UnsafeMutablePointer<CChar>?
        let code = bindery_load_extension(database, path, entryPoint, &error)
        return (code, take(error))
    }

    /// The collation of `column` of `table` in `database` (`BINARY`, `NOCASE` …); nil when there is no
    /// such column.
    static func collation(ofColumn column: String, table: String, in database: OpaquePointer) -> String? {
        var collation: UnsafePointer<CChar>?
        let code = sqlite3_table_column_metadata(database, nil, table, column, nil, &collation, nil, nil, nil)
        guard code == SQLITE_OK, let collation else { return nil }
        return String(cString: collation)
    }

    /// The name of the table a changeset iterator is on, with its number of columns and operation.
    static func changesetOperation(_ iterator: OpaquePointer) -> (table: String, columns: Int32, operation: Int32) {
        var name: UnsafePointer<CChar>?
        var columns: Int32 = 0
        var operation: Int32 = 0
        _ = bindery_changeset_op(iterator, &name, &columns, &operation)
        return (name.map { String(cString: $0) } ?? "", columns, operation)
    }
}
