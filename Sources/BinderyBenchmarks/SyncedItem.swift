import Bindery
import Foundation

/// A row of the synced table the sync lines write: a UUID key (TEXT), three TEXT columns and an
/// INTEGER, as an app's synced records look. (`insert` reads the row of a record with a `UUID` back by
/// its rowid, on the synced and the unsynced database alike.)
struct SyncedItem: Record, Equatable {
    static let tableName = "items"
    static let schema =
        "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, note TEXT NOT NULL, "
        + "tag TEXT NOT NULL, count INTEGER NOT NULL)"
    /// The statements Bindery runs for `insert` and `update`, which the C loops run too.
    static let insertSQL = #"INSERT INTO "items" ("id", "name", "note", "tag", "count") VALUES (?, ?, ?, ?, ?)"#
    static let updateSQL = #"UPDATE "items" SET "name" = ?, "note" = ?, "tag" = ?, "count" = ? WHERE "id" = ?"#

    var id: UUID
    var name: String
    var note: String
    var tag: String
    var count: Int

    init(id: UUID = UUID(), _ n: Int) {
        self.id = id
        name = "item \(n)"
        note = "a note of about forty characters, \(n)"
        tag = ["red", "green", "blue"][n % 3]
        count = n
    }

    /// The same row with its non-key columns changed by `n`.
    func changed(_ n: Int) -> SyncedItem {
        SyncedItem(id: id, n)
    }

    /// The key as Bindery stores it (lowercase text), for the C loops.
    var key: String { id.uuidString.lowercased() }
}
