import Foundation

/// A SQLite changeset (the session extension's binary format, sqlite.org/sessionintro.html), read
/// into tables and row changes, and written back.
///
/// The format: for each table, a header (`'T'`, the column count as a varint, one byte per column
/// that is nonzero for primary-key columns, the table's name and a NUL), then its changes: an
/// operation byte (`SQLITE_INSERT` 18, `SQLITE_UPDATE` 23, `SQLITE_DELETE` 9), an "indirect" byte,
/// and one record (the new row of an insert, the old row of a delete) or two (the old then the new
/// values of an update). A record holds one value per column: a type byte (0 undefined, 1 integer
/// and 2 real as 8 big-endian bytes, 3 text and 4 blob as a varint length and the bytes, 5 NULL).
///
/// Bindery writes *full-row* updates: the old and the new record of an update define every column
/// (``SyncCapture`` fills in the columns the session left undefined), so that applying one compares
/// the whole row and a conflict handler sees the whole row on both sides.
struct Changeset: Equatable {
    /// One operation on one row.
    enum Operation: UInt8, Equatable {
        case insert = 18
        case update = 23
        case delete = 9
    }

    /// One row change: `old` is empty for an insert, `new` for a delete; a nil value is a column the
    /// record leaves undefined.
    struct Change: Equatable {
        var operation: Operation
        var indirect: Bool
        var old: [SQLiteValue?]
        var new: [SQLiteValue?]

    }

    /// The changes of one table.
    struct Table: Equatable {
        var name: String
        /// For each column, its position in the primary key (1 for the first key column), or 0: the
        /// bytes of the header, which `sqlite3changeset_apply` compares with the table's own (a
        /// mismatch makes it skip the table).
        var keyFlags: [UInt8]
        var changes: [Change]

        /// For each column, whether it belongs to the primary key.
        var primaryKey: [Bool] { keyFlags.map { $0 != 0 } }
        var columnCount: Int { keyFlags.count }
    }

    var tables: [Table]

    init(tables: [Table]) {
        self.tables = tables
    }

    /// Reads `bytes`; throws ``SyncError/malformedChangeset(reason:)`` when they are not a changeset.
    ///
    /// Text values are read into `String`s, which repair invalid UTF-8 (SQLite's TEXT may hold any
    /// bytes): what is read is for looking at, not for writing back. The undo of a changeset is made
    /// from its bytes (``inverse(of:)``).
    init(parsing bytes: [UInt8]) throws(SyncError) {
        var reader = ChangesetReader(bytes: bytes)
        var tables: [Table] = []
        while let header = try reader.nextTable() {
            var table = Table(name: header.name, keyFlags: header.keyFlags, changes: [])
            while let change = try reader.nextChange(columnCount: header.keyFlags.count) {
                table.changes.append(change)
            }
            tables.append(table)
        }
        self.tables = tables
    }

    /// How many row changes the changeset holds.
    var changeCount: Int { tables.reduce(0) { $0 + $1.changes.count } }

    /// The changeset's bytes.
    func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        for table in tables where !table.changes.isEmpty {
            bytes.append(UInt8(ascii: "T"))
            ChangesetEncoding.appendVarint(UInt64(table.columnCount), to: &bytes)
            bytes.append(contentsOf: table.keyFlags)
            bytes.append(contentsOf: Array(table.name.utf8))
            bytes.append(0)
            for change in table.changes {
                bytes.append(change.operation.rawValue)
                bytes.append(change.indirect ? 1 : 0)
                if change.operation != .insert {
                    Changeset.append(record: change.old, columnCount: table.columnCount, to: &bytes)
                }
                if change.operation != .delete {
                    Changeset.append(record: change.new, columnCount: table.columnCount, to: &bytes)
                }
            }
        }
        return bytes
    }

    /// Appends a record of `columnCount` values (nil: undefined) in the changeset format.
    static func append(record: [SQLiteValue?], columnCount: Int, to bytes: inout [UInt8]) {
        for index in 0..<columnCount {
            guard index < record.count, let value = record[index] else {
                bytes.append(ChangesetEncoding.undefined)
                continue
            }
            switch value {
            case .integer(let integer):
                bytes.append(ChangesetEncoding.integer)
                ChangesetEncoding.appendBigEndian(UInt64(bitPattern: integer), to: &bytes)
            case .real(let real):
                bytes.append(ChangesetEncoding.real)
                ChangesetEncoding.appendBigEndian(real.bitPattern, to: &bytes)
            case .text(let text):
                bytes.append(ChangesetEncoding.text)
                ChangesetEncoding.appendVarint(UInt64(text.utf8.count), to: &bytes)
                bytes.append(contentsOf: text.utf8)
            case .blob(let blob):
                bytes.append(ChangesetEncoding.blob)
                ChangesetEncoding.appendVarint(UInt64(blob.count), to: &bytes)
                bytes.append(contentsOf: blob)
            case .null:
                bytes.append(ChangesetEncoding.null)
            }
        }
    }
}
