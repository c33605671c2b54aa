import CSQLite

/// Reading a recorded row again, by the exact bytes of its key, when changes may have been undone.
extension ChangeRecorder {
    /// The row of `layout`'s table whose key columns hold exactly the values of `key` (a record of the
    /// key columns at `key` of `buffer`), as a record appended to `buffer`; nil when there is none.
    ///
    /// The key's values are bound as they were recorded (text as its bytes, never through a Swift
    /// `String`), and a row found is kept only when its key's values are those bytes: a key column
    /// with a collation such as `NOCASE` also finds a row whose key is spelt otherwise.
    static func reread(
        _ key: Range<Int>, _ layout: Layout, on database: OpaquePointer, storesUTF8: Bool, in buffer: inout [UInt8]
    ) throws -> Range<Int>? {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(database, layout.selectRowSQL, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(database: database, resultCode: code, sql: layout.selectRowSQL)
        }
        defer { sqlite3_finalize(statement) }
        try bind(buffer, key, to: statement, layout)
        let result = sqlite3_step(statement)
        if result == SQLITE_DONE {
            return nil
        }
        guard result == SQLITE_ROW else {
            throw SQLiteError(database: database, resultCode: result, sql: layout.selectRowSQL)
        }
        let start = buffer.count
        var failure: SQLiteError?
        for column in 0..<Int32(layout.keyFlags.count) {
            guard let value = sqlite3_column_value(statement, column) else {
                throw SQLiteError(code: .noMemory, message: "a row read again could not be read", sql: nil)
            }
            append(value, storesUTF8, to: &buffer, &failure)
        }
        if let failure {
            throw failure
        }
        let row = start..<buffer.count
        let foundKey = try self.key(of: row, layout, in: &buffer)
        guard buffer[foundKey].elementsEqual(buffer[key]) else {
            buffer.removeSubrange(start...)
            return nil
        }
        return row
    }

    /// Binds the values of the record at `range` of `buffer` to `statement`'s parameters, in order.
    private static func bind(_ buffer: [UInt8], _ range: Range<Int>, to statement: OpaquePointer, _ layout: Layout)
        throws
    {
        var position = range.lowerBound
        var parameter: Int32 = 1
        while position < range.upperBound {
            guard let end = ChangesetEncoding.endOfValue(in: buffer, at: position), end <= range.upperBound else {
                throw SQLiteError(code: .internal, message: "a recorded key of \(layout.name) is malformed", sql: nil)
            }
            let code: Int32
            switch buffer[position] {
            case ChangesetEncoding.integer:
                let bits = ChangesetEncoding.bigEndian(in: buffer, at: position + 1)
                code = sqlite3_bind_int64(statement, parameter, Int64(bitPattern: bits))
            case ChangesetEncoding.real:
                let bits = ChangesetEncoding.bigEndian(in: buffer, at: position + 1)
                code = sqlite3_bind_double(statement, parameter, Double(bitPattern: bits))
            case ChangesetEncoding.text, ChangesetEncoding.blob:
                var start = position + 1
                _ = ChangesetEncoding.varint(in: buffer, at: &start)
                code = SQLiteMemory.bindBytes(
                    buffer, start..<end, asText: buffer[position] == ChangesetEncoding.text, to: statement,
                    at: parameter)
            default:
                code = sqlite3_bind_null(statement, parameter)
            }
            guard code == SQLITE_OK else {
                throw SQLiteError(
                    code: SQLiteError.Code(rawValue: code), message: "a recorded key could not be bound", sql: nil)
            }
            parameter += 1
            position = end
        }
    }
}
