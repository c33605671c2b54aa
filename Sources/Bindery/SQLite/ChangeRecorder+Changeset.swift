import CSQLite

/// Making the changeset of what a ``ChangeRecorder`` saw.
extension ChangeRecorder {
    /// A row the changes touched: where its key and its records are in the recorded bytes.
    private struct Row {
        var table: Int
        /// The values of the key columns, one record (in column order).
        var key: Range<Int>
        /// The row as it was when the recording began (nil: there was none).
        var original: Range<Int>?
        /// The row as it is now (nil: there is none).
        var current: Range<Int>?
        /// Whether every change of the row was indirect.
        var indirect: Bool
    }

    /// The number of rows up to which a row's earlier change is found by comparing keys one by one.
    private static var linearSearchLimit: Int { 16 }

    private struct RowKey: Hashable {
        var table: Int
        var key: [UInt8]
    }

    /// The changes seen since ``reset()``, as a changeset: for each table with rows that differ from
    /// what they were, its header, then an insert, an update (full-row) or a delete for each such row,
    /// in the order the rows were first changed. Empty when no row differs.
    ///
    /// `layout` gives a recorded table's columns as they are now (nil: it no longer exists, and its
    /// changes went with it). When changes may have been undone (``needsRereading``), every row is
    /// read again by its key (``Layout/selectRowSQL``). Throws the error a change met in the hook,
    /// ``SQLiteError/Code/schema`` when a table's columns changed after rows of it were changed, and
    /// ``SQLiteError/Code/constraint`` for a row with NULL in a key column.
    func changeset(
        layout: (String) throws -> Layout?
    ) throws -> [UInt8] {
        if let failure {
            throw failure
        }
        guard !events.isEmpty else { return [] }
        var layouts: [Layout?] = []
        for (index, table) in tables.enumerated() {
            layouts.append(events.contains { $0.table == index } ? try layout(table) : nil)
        }
        // The recorded bytes are taken out of the recorder while the changeset is made (the records
        // made here are added to them) and given back: no exclusive access to the property per value.
        var buffer: [UInt8] = []
        swap(&buffer, &bytes)
        defer { swap(&buffer, &bytes) }
        var rows: [Row] = []
        rows.reserveCapacity(events.count)
        // A transaction of a few changes finds a row's earlier changes by comparing keys; past
        // `linearSearchLimit` rows, a dictionary finds them.
        var positions: [RowKey: Int] = [:]
        func position(of table: Int, _ key: Range<Int>) -> Int? {
            if rows.count <= Self.linearSearchLimit {
                return rows.firstIndex { $0.table == table && buffer[$0.key].elementsEqual(buffer[key]) }
            }
            if positions.isEmpty {
                positions.reserveCapacity(events.count)
                for (index, row) in rows.enumerated() {
                    positions[RowKey(table: row.table, key: Array(buffer[row.key]))] = index
                }
            }
            return positions[RowKey(table: table, key: Array(buffer[key]))]
        }
        func touch(_ table: Int, _ key: Range<Int>, original: Range<Int>?, current: Range<Int>?, indirect: Bool) {
            if let position = position(of: table, key) {
                rows[position].current = current
                rows[position].indirect = rows[position].indirect && indirect
            } else {
                if !positions.isEmpty {
                    positions[RowKey(table: table, key: Array(buffer[key]))] = rows.count
                }
                rows.append(Row(table: table, key: key, original: original, current: current, indirect: indirect))
            }
        }
        for var event in events {
            guard let layout = layouts[event.table] else { continue }
            guard layout.hookColumnCount == event.columnCount,
                !layout.columnsChanged || event.schemaChanges == status.schemaChanges
            else {
                throw SQLiteError(
                    code: .schema,
                    message: "the columns of table \(layout.name) changed in this transaction after a row of it "
                        + "was changed: commit the changes to a recorded table's rows before changing its columns",
                    sql: nil)
            }
            if !layout.heldColumns.isEmpty {
                event.old = try Self.held(event.old, layout, in: &buffer)
                event.new = try Self.held(event.new, layout, in: &buffer)
            }
            if !layout.requiredDefaults.isEmpty {
                event.old = try Self.defaulted(event.old, layout, in: &buffer)
            }
            if !layout.realColumns.isEmpty {
                try Self.realify(event.old, layout, in: &buffer)
                try Self.realify(event.new, layout, in: &buffer)
            }
            switch event.operation {
            case SQLITE_INSERT:
                let key = try Self.key(of: event.new, layout, in: &buffer)
                touch(event.table, key, original: nil, current: event.new, indirect: event.indirect)
            case SQLITE_DELETE:
                let key = try Self.key(of: event.old, layout, in: &buffer)
                touch(event.table, key, original: event.old, current: nil, indirect: event.indirect)
            default:
                let oldKey = try Self.key(of: event.old, layout, in: &buffer)
                let newKey = try Self.key(of: event.new, layout, in: &buffer)
                if buffer[oldKey].elementsEqual(buffer[newKey]) {
                    touch(event.table, oldKey, original: event.old, current: event.new, indirect: event.indirect)
                } else {
                    // A changed key: the row with the old key is gone, and one with the new key is there.
                    touch(event.table, oldKey, original: event.old, current: nil, indirect: event.indirect)
                    touch(event.table, newKey, original: nil, current: event.new, indirect: event.indirect)
                }
            }
        }
        if needsRereading {
            guard let database else {
                throw SQLiteError(code: .misuse, message: "the change recorder is closed", sql: nil)
            }
            for index in rows.indices {
                guard let layout = layouts[rows[index].table] else { continue }
                rows[index].current = try Self.reread(
                    rows[index].key, layout, on: database, storesUTF8: storesUTF8, in: &buffer)
            }
        }
        return Self.written(rows, layouts, buffer)
    }

    /// The values of the key columns of the record at `range` of `buffer`, as one record (in column
    /// order): where they are, when the key columns are next to each other (a key of one column), or
    /// where they were kept, put together.
    static func key(of range: Range<Int>, _ layout: Layout, in buffer: inout [UInt8]) throws -> Range<Int> {
        var start: Int?
        var end = range.lowerBound
        var isContiguous = true
        var position = range.lowerBound
        for flag in layout.keyFlags {
            let next = try endOfValue(buffer, position, range, layout)
            if flag != 0 {
                guard buffer[position] != ChangesetEncoding.null else {
                    // SQLite lets a rowid table's primary key hold NULLs, which no key lookup finds.
                    throw SQLiteError(
                        code: .constraint,
                        message: "a row of table \(layout.name) has NULL in a primary key column: a recorded "
                            + "table's rows need a key to be told apart (declare its key columns NOT NULL)",
                        sql: nil)
                }
                if start == nil {
                    start = position
                } else if end != position {
                    isContiguous = false
                }
                end = next
            }
            position = next
        }
        guard let start else {
            throw SQLiteError(
                code: .misuse, message: "table \(layout.name) has no primary key: its rows cannot be told apart",
                sql: nil)
        }
        if isContiguous {
            return start..<end
        }
        var key: [UInt8] = []
        position = range.lowerBound
        for flag in layout.keyFlags {
            let next = try endOfValue(buffer, position, range, layout)
            if flag != 0 {
                key.append(contentsOf: buffer[position..<next])
            }
            position = next
        }
        return keep(key, in: &buffer)
    }

    /// The record at `range` without the values of the columns the changeset does not hold (generated
    /// ones), kept with the others.
    private static func held(_ range: Range<Int>, _ layout: Layout, in buffer: inout [UInt8]) throws -> Range<Int> {
        guard !range.isEmpty else { return range }
        var record: [UInt8] = []
        var position = range.lowerBound
        for isHeld in layout.heldColumns {
            let next = try endOfValue(buffer, position, range, layout)
            if isHeld {
                record.append(contentsOf: buffer[position..<next])
            }
            position = next
        }
        return keep(record, in: &buffer)
    }

    /// The record at `range` with the default of each NOT NULL column that holds NULL (see
    /// ``Layout/requiredDefaults``), kept with the others; `range` when there is none.
    private static func defaulted(_ range: Range<Int>, _ layout: Layout, in buffer: inout [UInt8]) throws
        -> Range<Int>
    {
        guard !range.isEmpty else { return range }
        var record: [UInt8]?
        var position = range.lowerBound
        for value in layout.requiredDefaults {
            let next = try endOfValue(buffer, position, range, layout)
            if let value, buffer[position] == ChangesetEncoding.null {
                if record == nil {
                    record = Array(buffer[range.lowerBound..<position])
                }
                record?.append(contentsOf: value)
            } else if record != nil {
                record?.append(contentsOf: buffer[position..<next])
            }
            position = next
        }
        guard let record else { return range }
        return keep(record, in: &buffer)
    }

    /// Rewrites in place each integer of a REAL column in the record at `range` as the REAL it stands
    /// for (both take a type byte and 8 bytes), as reading the column would give it.
    private static func realify(_ range: Range<Int>, _ layout: Layout, in buffer: inout [UInt8]) throws {
        guard !range.isEmpty else { return }
        var position = range.lowerBound
        for isReal in layout.realColumns {
            let next = try endOfValue(buffer, position, range, layout)
            if isReal, buffer[position] == ChangesetEncoding.integer {
                let integer = ChangesetEncoding.bigEndian(in: buffer, at: position + 1)
                var real: [UInt8] = [ChangesetEncoding.real]
                ChangesetEncoding.appendBigEndian(Double(Int64(bitPattern: integer)).bitPattern, to: &real)
                buffer.replaceSubrange(position..<next, with: real)
            }
            position = next
        }
    }

    /// Where the value at `position` of a record of `layout` at `range` ends.
    private static func endOfValue(_ buffer: [UInt8], _ position: Int, _ range: Range<Int>, _ layout: Layout) throws
        -> Int
    {
        guard let end = ChangesetEncoding.endOfValue(in: buffer, at: position), end <= range.upperBound else {
            throw SQLiteError(code: .internal, message: "a recorded row of \(layout.name) is malformed", sql: nil)
        }
        return end
    }

    /// Appends `record` to `buffer`; its place there.
    private static func keep(_ record: [UInt8], in buffer: inout [UInt8]) -> Range<Int> {
        let start = buffer.count
        buffer.append(contentsOf: record)
        return start..<buffer.count
    }

    /// The changeset of `rows`, whose records are in `buffer`.
    private static func written(_ rows: [Row], _ layouts: [Layout?], _ buffer: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(buffer.count + 64 * layouts.count)
        for (table, layout) in layouts.enumerated() {
            guard let layout else { continue }
            var wroteHeader = false
            for row in rows where row.table == table {
                let operation: Int32
                switch (row.original, row.current) {
                case (nil, nil):
                    continue
                case (nil, .some):
                    operation = SQLITE_INSERT
                case (.some, nil):
                    operation = SQLITE_DELETE
                case (.some(let original), .some(let current)):
                    guard !buffer[original].elementsEqual(buffer[current]) else { continue }
                    operation = SQLITE_UPDATE
                }
                if !wroteHeader {
                    wroteHeader = true
                    output.append(UInt8(ascii: "T"))
                    ChangesetEncoding.appendVarint(UInt64(layout.keyFlags.count), to: &output)
                    output.append(contentsOf: layout.keyFlags)
                    output.append(contentsOf: layout.name.utf8)
                    output.append(0)
                }
                output.append(UInt8(operation))
                output.append(row.indirect ? 1 : 0)
                if let original = row.original {
                    output.append(contentsOf: buffer[original])
                }
                if let current = row.current {
                    output.append(contentsOf: buffer[current])
                }
            }
        }
        return output
    }
}
