/// The changeset that undoes another, made from its bytes.
extension Changeset {
    /// The changeset that undoes `bytes`: each insert becomes a delete and each delete an insert, each
    /// update swaps its records; tables and changes in reverse order.
    ///
    /// The records are copied byte for byte, never read into values: a text that is not valid UTF-8
    /// (SQLite's TEXT holds any bytes) would come back repaired from a `String`, and the undo would
    /// then look for (or write) a row that differs from the one recorded. Throws
    /// ``SyncError/malformedChangeset(reason:)`` when `bytes` are not a changeset.
    static func inverse(of bytes: [UInt8]) throws(SyncError) -> [UInt8] {
        var reader = ChangesetReader(bytes: bytes)
        var tables: [(header: Range<Int>, changes: [ChangesetReader.ChangeBytes])] = []
        while true {
            let start = reader.offset
            guard let header = try reader.nextTable() else { break }
            let headerBytes = start..<reader.offset
            var changes: [ChangesetReader.ChangeBytes] = []
            while let change = try reader.nextChangeBytes(columnCount: header.keyFlags.count) {
                changes.append(change)
            }
            tables.append((headerBytes, changes))
        }
        var inverse: [UInt8] = []
        inverse.reserveCapacity(bytes.count)
        for table in tables.reversed() where !table.changes.isEmpty {
            inverse.append(contentsOf: bytes[table.header])
            for change in table.changes.reversed() {
                let operation: Operation
                switch change.operation {
                case .insert: operation = .delete
                case .delete: operation = .insert
                case .update: operation = .update
                }
                inverse.append(operation.rawValue)
                inverse.append(change.indirect ? 1 : 0)
                // An update's new record becomes the old one; an insert's only record (its new one)
                // becomes the delete's, a delete's the insert's.
                inverse.append(contentsOf: bytes[change.new])
                inverse.append(contentsOf: bytes[change.old])
            }
        }
        return inverse
    }
}
