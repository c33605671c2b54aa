import CSQLite

/// Making the changeset of what a ``ChangeRecorder`` saw.
extension ChangeRecorder {
    /// A row the changes touched: its key, and where its records are in the recorder's bytes.
    private struct Row {
        var table: Int
        var key: [UInt8]
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

        /// Hashes the key's bytes at once (an array hashes byte by byte).
        func hash(into hasher: inout Hasher) {
            hasher.combine(table)
            key.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// The changes seen since ``reset()``, as a changeset: for each table with rows that differ from
    /// what they were, its header, then an insert, an update (full-row) or a delete for each such row,
    /// in the order the rows were first changed. Empty when no row differs.
    ///
    /// `layout` gives a recorded table's columns as they are now (nil: it no longer exists, and its
    /// changes went with it). When changes may have been undone (``needsRereading``),
    /// `currentRecord` gives the row with a key (its key columns' values as a record, in column
    /// order) as a whole record, or nil when there is none. Throws the error a change met in the
    /// hook, and ``SQLiteError/Code/schema`` when a table's columns changed after rows of it were
    /// changed.
    func changeset(
        layout: (String) throws -> Layout?, currentRecord: (Layout, [UInt8]) throws -> [UInt8]?
    ) throws -> [UInt8] {
        if let failure {
            throw failure
        }
        guard !events.isEmpty else { return [] }
        var layouts: [Layout?] = []
        for (index, table) in tables.enumerated() {
            layouts.append(events.contains { $0.table == index } ? try layout(table) : nil)
        }
        var rows: [Row] = []
        rows.reserveCapacity(events.count)
        // A transaction of a few changes finds a row's earlier changes by comparing keys; past
        // `linearSearchLimit` rows, a dictionary finds them.
        var positions: [RowKey: Int] = [:]
        func position(of table: Int, _ key: [UInt8]) -> Int? {
            if rows.count <= Self.linearSearchLimit {
                return rows.firstIndex { $0.table == table && $0.key == key }
            }
            if positions.isEmpty {
                positions.reserveCapacity(events.count)
                for (index, row) in rows.enumerated() {
                    positions[RowKey(table: row.table, key: row.key)] = index
                }
            }
            return positions[RowKey(table: table, key: key)]
        }
        func touch(_ table: Int, _ key: [UInt8], original: Range<Int>?, current: Range<Int>?, indirect: Bool) {
            if let position = position(of: table, key) {
                rows[position].current = current
                rows[position].indirect = rows[position].indirect && indirect
            } else {
                if !positions.isEmpty {
                    positions[RowKey(table: table, key: key)] = rows.count
                }
                rows.append(Row(table: table, key: key, original: original, current: current, indirect: indirect))
            }
        }
        for var event in events {
            guard let layout = layouts[event.table] else { continue }
            guard layout.hookColumnCount == event.columnCount else {
                throw SQLiteError(
                    code: .schema,
                    message: "table \(layout.name) has \(layout.hookColumnCount) columns, and a row of it was "
                        + "changed in this transaction when it had \(event.columnCount): commit the changes to a "
                        + "synced table's rows before changing its columns", sql: nil)
            }
            if !layout.heldColumns.isEmpty {
                event.old = try held(event.old, layout)
                event.new = try held(event.new, layout)
            }
            switch event.operation {
            case SQLITE_INSERT:
                touch(
                    event.table, try key(of: event.new, layout), original: nil, current: event.new,
                    indirect: event.indirect)
            case SQLITE_DELETE:
                touch(
                    event.table, try key(of: event.old, layout), original: event.old, current: nil,
                    indirect: event.indirect)
            default:
                let oldKey = try key(of: event.old, layout)
                let newKey = try key(of: event.new, layout)
                if oldKey == newKey {
                    touch(event.table, oldKey, original: event.old, current: event.new, indirect: event.indirect)
                } else {
                    // A changed key: the row with the old key is gone, and one with the new key is there.
                    touch(event.table, oldKey, original: event.old, current: nil, indirect: event.indirect)
                    touch(event.table, newKey, original: nil, current: event.new, indirect: event.indirect)
                }
            }
        }
        if needsRereading {
            for index in rows.indices {
                guard let layout = layouts[rows[index].table] else { continue }
                rows[index].current = try reread(rows[index].key, layout, currentRecord)
            }
        }
        return written(rows, layouts)
    }

    /// The values of the key columns of the record at `range`, as one record (in column order).
    private func key(of range: Range<Int>, _ layout: Layout) throws -> [UInt8] {
        let bytes = self.bytes
        var key: [UInt8] = []
        var position = range.lowerBound
        for flag in layout.keyFlags {
            guard let end = ChangesetEncoding.endOfValue(in: bytes, at: position), end <= range.upperBound else {
                throw SQLiteError(code: .internal, message: "a recorded row of \(layout.name) is malformed", sql: nil)
            }
            if flag != 0 {
                if key.isEmpty {
                    // One allocation of the right size for a key of one column.
                    key = Array(bytes[position..<end])
                } else {
                    key.append(contentsOf: bytes[position..<end])
                }
            }
            position = end
        }
        return key
    }

    /// The record at `range` without the values of the columns the changeset does not hold (generated
    /// ones), kept with the others.
    private func held(_ range: Range<Int>, _ layout: Layout) throws -> Range<Int> {
        guard !range.isEmpty else { return range }
        var record: [UInt8] = []
        var position = range.lowerBound
        for isHeld in layout.heldColumns {
            guard let end = ChangesetEncoding.endOfValue(in: bytes, at: position), end <= range.upperBound else {
                throw SQLiteError(code: .internal, message: "a recorded row of \(layout.name) is malformed", sql: nil)
            }
            if isHeld {
                record.append(contentsOf: bytes[position..<end])
            }
            position = end
        }
        return keep(record)
    }

    /// Reads the row with `key` again, and keeps its record with the others.
    private func reread(
        _ key: [UInt8], _ layout: Layout, _ currentRecord: (Layout, [UInt8]) throws -> [UInt8]?
    ) throws -> Range<Int>? {
        guard let record = try currentRecord(layout, key) else { return nil }
        return keep(record)
    }

    /// The changeset of `rows`.
    private func written(_ rows: [Row], _ layouts: [Layout?]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 64 * layouts.count)
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
                    guard !bytes[original].elementsEqual(bytes[current]) else { continue }
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
                    output.append(contentsOf: bytes[original])
                }
                if let current = row.current {
                    output.append(contentsOf: bytes[current])
                }
            }
        }
        return output
    }
}
