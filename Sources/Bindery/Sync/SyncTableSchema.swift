/// The columns of a synced table, read from the database, and the check that its primary key is
/// safe to sync.
struct SyncTableSchema {
    /// The table's name as the schema spells it.
    var name: String
    /// The columns, in the table's order (the order of a changeset's values).
    var columns: [String]
    /// For each column, whether it belongs to the primary key.
    var primaryKey: [Bool] { keyFlags.map { $0 != 0 } }
    /// For each column, its position in the primary key (1 for the first), or 0: what a changeset of
    /// the table holds in its header (``Changeset/Table/keyFlags``).
    var keyFlags: [UInt8]
    /// For each column of the table, generated ones included (the values SQLite's pre-update hook
    /// gives), whether it is one of ``columns``; empty when the table has no generated column.
    var heldColumns: [Bool] = []
    /// For each of ``columns``, its default as a one-value record when it is NOT NULL and has one;
    /// empty when none is.
    var requiredDefaults: [[UInt8]?] = []
    /// For each of ``columns``, whether it has REAL affinity; empty when none has.
    var realColumns: [Bool] = []
    /// `SELECT` of the whole row with a key (one `?` per key column, in column order): the change
    /// recorder reads a row again with it.
    private(set) var selectRowSQL = ""
    /// `INSERT … ON CONFLICT DO UPDATE` of a whole row.
    private(set) var writeRowSQL = ""
    /// `DELETE` of the row with a key.
    private(set) var deleteRowSQL = ""

    /// Reads `table`'s columns; throws ``SyncError/noSuchTable(_:)`` or
    /// ``SyncError/unsafeKey(table:reason:)``.
    init(table: String, on connection: Connection) throws {
        let rows = try connection.rows(
            "SELECT name, type, pk, \"notnull\", dflt_value FROM pragma_table_info(?, 'main') ORDER BY cid",
            arguments: [.text(table)])
        guard !rows.isEmpty else {
            throw SyncError.noSuchTable(table)
        }
        var columns: [String] = []
        var types: [String] = []
        var keyFlags: [UInt8] = []
        for row in rows {
            guard case .text(let name) = row.values[0], case .integer(let pk) = row.values[2] else {
                throw SyncError.noSuchTable(table)
            }
            columns.append(name)
            if case .text(let type) = row.values[1] {
                types.append(type)
            } else {
                types.append("")
            }
            keyFlags.append(UInt8(clamping: pk))
        }
        let names = try connection.rows(
            "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
            arguments: [.text(table)])
        if case .text(let spelt) = names.first?.values.first {
            self.name = spelt
        } else {
            self.name = table
        }
        self.columns = columns
        self.keyFlags = keyFlags
        // A NOT NULL column's default, for the rows written before `ALTER TABLE … ADD COLUMN` added it
        // (see ``ChangeRecorder/Layout/requiredDefaults``). ADD COLUMN takes constant defaults only,
        // so the schema's own default expression is evaluated once, here.
        var defaults: [[UInt8]?] = []
        for row in rows {
            guard case .integer(1) = row.values[3], case .text(let expression) = row.values[4] else {
                defaults.append(nil)
                continue
            }
            let value = try connection.rows("SELECT (\(expression))", arguments: []).first?.values.first
            var record: [UInt8] = []
            Changeset.append(record: [value ?? .null], columnCount: 1, to: &record)
            defaults.append(record)
        }
        if defaults.contains(where: { $0 != nil }) {
            requiredDefaults = defaults
        }
        let real = types.map(Self.hasRealAffinity)
        if real.contains(true) {
            realColumns = real
        }
        let hidden = try connection.rows(
            "SELECT name, hidden FROM pragma_table_xinfo(?, 'main') ORDER BY cid", arguments: [.text(table)])
        if hidden.count != columns.count {
            // Generated columns: computed again where a changeset is applied, so not held in it.
            let virtual = hidden.first { $0.values[1] == .integer(2) }
            if let virtual, case .text(let name) = virtual.values[0] {
                throw SyncError.unsupportedColumn(
                    table: table, column: name,
                    reason: "it is a VIRTUAL generated column, and SQLite's pre-update hook does not give the "
                        + "values of a row of such a table in their columns: declare it STORED, or compute it in "
                        + "the app or a view")
            }
            heldColumns = hidden.map { $0.values[1] == .integer(0) }
        }
        makeSQL()
        let keyColumns = keyFlags.indices.filter { keyFlags[$0] != 0 }
        guard !keyColumns.isEmpty else {
            throw SyncError.unsafeKey(
                table: table,
                reason: "it has no PRIMARY KEY, and only rows with a key can be matched between copies: declare a "
                    + "UUID (TEXT) or another TEXT primary key that the app chooses")
        }
        if keyColumns.count == 1, FoldedIdentifier.same(types[keyColumns[0]], "INTEGER") {
            // An INTEGER PRIMARY KEY of a rowid table is the rowid; a WITHOUT ROWID table has an index
            // whose origin is "pk" instead.
            let withoutRowID = try connection.rows(
                "SELECT 1 FROM pragma_index_list(?, 'main') WHERE origin = 'pk'", arguments: [.text(table)])
            if withoutRowID.isEmpty {
                throw SyncError.unsafeKey(
                    table: table,
                    reason: "its INTEGER PRIMARY KEY \(columns[keyColumns[0]]) is the rowid, which each copy assigns "
                        + "from its own counter, so two copies give the same id to different rows: use a UUID "
                        + "(stored as TEXT) or another TEXT key that the app chooses")
            }
        }
    }

    /// Whether a column declared with `type` has REAL affinity (SQLite's rules, in their order: INT
    /// makes INTEGER, CHAR, CLOB or TEXT makes TEXT, BLOB or no type makes BLOB, then REAL, FLOA or
    /// DOUB makes REAL).
    static func hasRealAffinity(_ type: String) -> Bool {
        FoldedIdentifier.affinity(ofDeclaredType: type) == .real
    }

    /// The values of the key columns in `row`.
    func key(of row: [SQLiteValue?]) -> [SQLiteValue] {
        var key: [SQLiteValue] = []
        for (value, isKey) in zip(row, primaryKey) where isKey {
            key.append(value ?? SQLiteValue.null)
        }
        return key
    }

    /// Builds the statements' text once: a row is read and written for every updated row a
    /// transaction captures.
    private mutating func makeSQL() {
        let names = columns.map { SQL.quote(identifier: $0) }
        // In the main schema: a TEMP table of the same name would be found first.
        let table = "main." + SQL.quote(identifier: name)
        let keys = zip(names, primaryKey).filter(\.1).map(\.0)
        let condition = keys.map { "\($0) IS ?" }.joined(separator: " AND ")
        selectRowSQL = "SELECT \(names.joined(separator: ", ")) FROM \(table) WHERE \(condition)"
        deleteRowSQL = "DELETE FROM \(table) WHERE \(condition)"
        let updates = names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        writeRowSQL =
            "INSERT INTO \(table)(\(names.joined(separator: ", "))) VALUES "
            + "(\(names.map { _ in "?" }.joined(separator: ", "))) ON CONFLICT(\(keys.joined(separator: ", "))) "
            + "DO UPDATE SET \(updates)"
    }

    /// Writes `row` (every column) as the row with its key, inserting or replacing it.
    func write(_ row: [SQLiteValue], on connection: Connection) throws {
        try connection.execute(writeRowSQL, arguments: row)
    }

    /// Deletes the row with key `key`.
    func delete(key: [SQLiteValue], on connection: Connection) throws {
        try connection.execute(deleteRowSQL, arguments: key)
    }
}
