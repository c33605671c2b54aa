/// A record whose stored row, decoded, is the record itself: `insert` may then return the record as
/// given, with the new rowid set by ``didInsert(rowID:)``, instead of decoding the row it stored.
///
/// `insert` returns the row as stored. When the database fills nothing but the rowid (no column left
/// out has a DEFAULT or is generated, no trigger is defined on the table, no value is converted by its
/// column's affinity), the stored row is the encoded record with the new rowid, and for most record
/// types decoding it gives back the record as given with its id set. Adopting this protocol promises
/// that, so `insert` skips the decoding, which is about a fifth of the cost of a one-record insert:
///
/// ```swift
/// struct Student: Record, StoredAsGiven {
///     var id: Int64?
///     var name: String
///     var year: Int
///
///     mutating func didInsert(rowID: Int64) { id = rowID }
/// }
///
/// let saved = try conn.insert(Student(id: nil, name: "Ana", year: 2024))
/// print(saved.id!)  // the new rowid, set by didInsert(rowID:)
/// ```
///
/// `insert` still decodes the row as stored, and does not call ``didInsert(rowID:)``, where the
/// database fills more than the rowid (it then reads the row back with `RETURNING *`), where a value
/// was stored in a form that may decode to another value (a `Date`, kept to its strategy's precision,
/// the millisecond by default; a `URL`; a `Decimal`; a nested value stored as JSON), and where the
/// table's `INTEGER PRIMARY KEY`, whose value the rowid is, is not one of the record's columns.
///
/// What Bindery cannot check is the type's own code: adopt the protocol only where decoding gives back
/// what was encoded, not for a type with a transient property (one left out of its `CodingKeys`, which
/// decoding sets to its default value), an `encode(to:)` that leaves out a key the table has a column
/// for, or an `init(from:)` that changes what it reads. For such a type `insert` returns the record as
/// given, which may differ from what ``Connection/find(_:id:)`` reads.
public protocol StoredAsGiven: Record {
    /// Sets the record's id to `rowID`, the rowid of the row `insert` stored, which is the value of the
    /// table's `INTEGER PRIMARY KEY` column; called on the record `insert` returns, when the row was
    /// stored as given.
    mutating func didInsert(rowID: Int64)
}

extension StoredAsGiven {
    /// Calls ``didInsert(rowID:)`` on the record at `place`, which is of this type, where it lies: how
    /// `insert` reaches it through the type kept as `any StoredAsGiven.Type`
    /// (``RecordTypeState/storedAsGiven``). A record of another type is left as it is.
    static func didInsert(into place: ExactCast.Place, rowID: Int64) {
        place.modify(as: Self.self) { $0.didInsert(rowID: rowID) }
    }
}
