/// Calls ``StoredAsGiven/didInsert(rowID:)`` on a record whose type is known only at run time: `insert`
/// keeps one per ``StoredAsGiven`` record type (``RecordTypeState/rowIDSetter``).
///
/// A class with the type as its generic parameter, not a closure: calling it is one indirect call,
/// with no reabstraction thunk and no context to retain.
protocol RowIDSetting: AnyObject {
    /// Calls `didInsert(rowID:)` on the record at `record`, which is of the setter's type.
    func setRowID(of record: UnsafeMutableRawPointer, to rowID: Int64)
}

/// The ``RowIDSetting`` of the record type `Stored`.
final class RowIDSetter<Stored: StoredAsGiven>: RowIDSetting {
    func setRowID(of record: UnsafeMutableRawPointer, to rowID: Int64) {
        record.assumingMemoryBound(to: Stored.self).pointee.didInsert(rowID: rowID)
    }
}
