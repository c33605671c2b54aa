/// What an INSERT into one table can do to the values it is given, read from the schema: whether the
/// table stores each value exactly as bound (by its columns' affinities), which columns fill
/// themselves (a DEFAULT or a generated column), which column is the rowid, and whether a trigger or a
/// virtual table could make the stored row differ from the one given.
///
/// A row inserted into a table that ``storesRowsAsGiven`` holds, column for column, the values bound
/// (each of a kind its column keeps, see ``keeps(_:keptKinds:)``), NULL in every column left out that does
/// not fill itself, and the new rowid in the ``rowidAlias`` column: nothing has to be read back.
struct TableInsertProfile {
    /// One column of the table.
    struct Column {
        let name: String
        /// The kinds of value (``kindBit(of:)``) the column stores unchanged.
        let keptKinds: UInt8
        /// Whether the column gets a value of its own when an INSERT leaves it out: a DEFAULT, or a
        /// generated column.
        let fillsItself: Bool
    }

    /// The columns, in table order.
    let columns: [Column]
    /// The `INTEGER PRIMARY KEY` column, which is the rowid; nil when the table has none.
    let rowidAlias: String?
    /// Whether the stored row is the one given: a table with a rowid, in one schema, that is not virtual
    /// and that no trigger can change.
    let storesRowsAsGiven: Bool

    /// The index of the column named `name` (as SQLite compares names), or nil.
    func index(ofColumn name: String) -> Int? {
        columns.firstIndex { FoldedIdentifier.same($0.name, name) }
    }

    /// Whether a column that keeps `keptKinds` (see ``Column/keptKinds``) stores `value` unchanged: no affinity conversion (a number into a
    /// TEXT column, a text or a REAL into an INTEGER one, an INTEGER into a REAL one, …), not a NaN,
    /// which SQLite stores as NULL, and not a negative zero, which a REAL column stores as the integer 0
    /// and reads back as 0.0.
    @inline(__always)
    static func keeps(_ value: SQLiteValue, keptKinds: UInt8) -> Bool {
        keptKinds & keptKindBit(of: value) != 0
    }

    /// The bit no column keeps: a NaN or a negative zero.
    static let unkeptReal: UInt8 = 32

    /// ``kindBit(of:)``, or ``unkeptReal`` for a REAL that no column stores unchanged.
    @inline(__always)
    static func keptKindBit(of value: SQLiteValue) -> UInt8 {
        if case .real(let double) = value, double.isNaN || (double == 0 && double.sign == .minus) {
            return unkeptReal
        }
        return kindBit(of: value)
    }

    /// One bit per kind of value: NULL, INTEGER, REAL, TEXT, BLOB.
    @inline(__always)
    static func kindBit(of value: SQLiteValue) -> UInt8 {
        switch value {
        case .null: return 1
        case .integer: return 2
        case .real: return 4
        case .text: return 8
        case .blob: return 16
        }
    }

    /// The kinds a column of declared type `type` keeps unchanged, by SQLite's affinity rules: every
    /// kind for BLOB affinity (no declared type, or one containing "BLOB"); NULL, BLOB and the kind of
    /// the affinity for the others (NUMERIC affinity may turn a REAL into an INTEGER, and INTEGER,
    /// REAL and NUMERIC affinity may turn a text into a number, so only INTEGER is kept as given).
    /// A STRICT table's `ANY` column keeps everything, but the same word in an ordinary table means
    /// NUMERIC affinity: it is taken as NUMERIC, which never claims more than the table keeps.
    static func keptKinds(declaredType type: String) -> UInt8 {
        let always: UInt8 = 1 | 16
        switch FoldedIdentifier.affinity(ofDeclaredType: type) {
        case .integer, .numeric: return always | 2
        case .text: return always | 8
        case .blob: return 31
        case .real: return always | 4
        }
    }
}

extension Connection {
    /// The insert profile of the table `name`, read from the schema now (each read is a few small
    /// queries; callers keep the result while their statements stay prepared).
    func insertProfile(ofTable name: String) throws -> TableInsertProfile {
        // The table as an unqualified name finds it; one found in several schemas is not profiled.
        let tables = try rows(
            "SELECT schema, type, wr FROM pragma_table_list(?1) WHERE type IN ('table', 'virtual')",
            arguments: [.text(name)]
        ).map(\.values)
        guard tables.count == 1, case .text(let schema) = tables[0][0], case .text(let type) = tables[0][1] else {
            return TableInsertProfile(columns: [], rowidAlias: nil, storesRowsAsGiven: false)
        }
        let hasRowid = tables[0][2] == .integer(0)
        let columnRows = try rows(
            "SELECT name, type, dflt_value IS NOT NULL, hidden, pk FROM pragma_table_xinfo(?1, ?2)",
            arguments: [.text(name), .text(schema)]
        ).map(\.values)
        var columns: [TableInsertProfile.Column] = []
        var keyColumns: [(name: String, type: String)] = []
        for row in columnRows {
            guard case .text(let column) = row[0] else { continue }
            let declared: String
            if case .text(let text) = row[1] {
                declared = text
            } else {
                declared = ""
            }
            let generated = row[3] == .integer(2) || row[3] == .integer(3)
            columns.append(
                .init(
                    name: column, keptKinds: TableInsertProfile.keptKinds(declaredType: declared),
                    fillsItself: row[2] == .integer(1) || generated))
            if case .integer(let position) = row[4], position > 0 {
                keyColumns.append((column, declared))
            }
        }
        // The rowid's alias: a single INTEGER key column of a rowid table, unless SQLite made an index for
        // the key, which it does when the column is not the rowid (`INTEGER PRIMARY KEY DESC`).
        var rowidAlias: String?
        if hasRowid, keyColumns.count == 1, FoldedIdentifier.same(keyColumns[0].type, "INTEGER") {
            let keyIndexes = try rows(
                "SELECT count(*) FROM pragma_index_list(?1, ?2) WHERE origin = 'pk'",
                arguments: [.text(name), .text(schema)]
            ).map(\.values)
            if keyIndexes.first?[0] == .integer(0) {
                rowidAlias = keyColumns[0].name
            }
        }
        // A trigger on the table lives in its schema, or in temp.
        let triggers = try rows(
            "SELECT (SELECT count(*) FROM main.sqlite_schema WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE)"
                + " + (SELECT count(*) FROM temp.sqlite_schema WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE)",
            arguments: [.text(name)]
        ).map(\.values)
        let asGiven =
            hasRowid && type == "table" && (schema == "main" || schema == "temp")
            && triggers.first?[0] == .integer(0)
        return TableInsertProfile(columns: columns, rowidAlias: rowidAlias, storesRowsAsGiven: asGiven)
    }
}
