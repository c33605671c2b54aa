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
/// Where the database fills more than the rowid, `insert` still reads the row back (`RETURNING *`) and
/// decodes it, and ``didInsert(rowID:)`` is not called. So it does where a value is stored in a form
/// that may decode to another value: a `Date` (kept to its strategy's precision, the millisecond by
/// default), a `URL`, a `Decimal`, or a nested value stored as JSON. What Bindery cannot check is the
/// type's own code: adopt the protocol only where decoding gives back what was encoded, not for a type
/// with a transient property (one left out of its `CodingKeys`, which decoding sets to its default
/// value) or an `init(from:)` that changes what it reads. For such a type `insert` returns the record
/// as given, which may differ from what ``Connection/find(_:id:)`` reads.
public protocol StoredAsGiven: Record {
    /// Sets the record's id to `rowID`, the rowid SQLite assigned to the row `insert` stored; called
    /// on the record `insert` returns, when the row was stored as given.
    mutating func didInsert(rowID: Int64)
}
