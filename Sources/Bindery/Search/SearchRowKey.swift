/// The primary key of a table whose rowid `VACUUM` may renumber (no `INTEGER PRIMARY KEY` column, or
/// `WITHOUT ROWID`), as a search table over it sees it: the search table's rowids are the ids of a
/// mapping table `name_keys(id INTEGER PRIMARY KEY, k0, k1, …, UNIQUE(k0, k1, …))` that holds each
/// row's key (one column per key column, with its affinity and collation), kept by the triggers; the
/// search table reads its external content through the view `name_source`, which joins the mapping
/// to the table.
///
/// An id stays with its key for as long as a row holds that key: `VACUUM` copies the mapping table's
/// `INTEGER PRIMARY KEY` as it is, and a write that keeps a row's key keeps its id.
struct SearchRowKey {
    /// A key column of the table: its name, its affinity (`TEXT`, `INTEGER` …) and its collation.
    struct Column {
        var name: String
        var affinity: String
        var collation: String
    }

    /// The key columns, in the key's order.
    var columns: [Column]

    /// The mapping table of the search table `name`.
    static func keysTable(_ name: String) -> String { SQL.quote(identifier: name + "_keys") }
    /// The view the search table `name` reads its content from.
    static func contentView(_ name: String) -> String { SQL.quote(identifier: contentViewName(name)) }
    /// The name of the view the search table `name` reads its content from, unquoted (`name_source`:
    /// FTS5 reserves `name_content` for its own content table).
    static func contentViewName(_ name: String) -> String { name + "_source" }

    /// The quoted name of the mapping table's column for the key column at `index`.
    static func slot(_ index: Int) -> String { "\"k\(index)\"" }

    /// The mapping id of the row whose key columns `prefix` gives (`new`, `old`, or a table's name):
    /// `(SELECT id FROM name_keys WHERE k0 = new."code" AND …)`.
    func id(of prefix: String, keys: String) -> String {
        "(SELECT id FROM \(keys) WHERE " + matches(prefix) + ")"
    }

    /// `k0 = prefix."code" AND …` (`keys.k0` with `keys`), compared with the key columns' collations
    /// (the mapping table's columns carry them).
    func matches(_ prefix: String, keys: String? = nil) -> String {
        let qualifier = keys.map { $0 + "." } ?? ""
        return columns.enumerated().map {
            "\(qualifier)\(Self.slot($0.offset)) = \(prefix).\(SQL.quote(identifier: $0.element.name))"
        }
        .joined(separator: " AND ")
    }

    /// `"code" = prefix."code" COLLATE "BINARY" AND …`, for a row of the table (read unqualified)
    /// against `prefix`, compared with the key's collations (those of its index, which a column's own
    /// may differ from: `PRIMARY KEY (code COLLATE BINARY)` over a `NOCASE` column).
    func sameKey(as prefix: String) -> String {
        columns.map {
            "\(SQL.quote(identifier: $0.name)) = \(prefix).\(SQL.quote(identifier: $0.name)) COLLATE "
                + SQL.quote(identifier: $0.collation)
        }
        .joined(separator: " AND ")
    }

    /// The CREATE statement of the mapping table.
    func keysTableStatement(searchTable name: String) -> String {
        let slots = columns.enumerated().map {
            "\(Self.slot($0.offset)) \($0.element.affinity) NOT NULL COLLATE \(SQL.quote(identifier: $0.element.collation))"
        }
        return "CREATE TABLE \(Self.keysTable(name))(id INTEGER PRIMARY KEY, " + slots.joined(separator: ", ")
            + ", UNIQUE(" + columns.indices.map(Self.slot).joined(separator: ", ") + "))"
    }

    /// The CREATE statement of the content view: the mapping id as `rowidColumn`, then the search
    /// table's columns under their own names.
    func contentViewStatement(searchTable name: String, table: String, columns searched: [String], rowidColumn: String)
        -> String
    {
        let selected =
            ["m.id AS \(SQL.quote(identifier: rowidColumn))"]
            + searched.map { "t.\(SQL.quote(identifier: $0)) AS \(SQL.quote(identifier: $0))" }
        return "CREATE VIEW \(Self.contentView(name)) AS SELECT " + selected.joined(separator: ", ")
            + " FROM \(Self.keysTable(name)) AS m JOIN \(SQL.quote(identifier: table)) AS t ON " + joinCondition
    }

    /// `t."code" = m."k0" COLLATE "BINARY" AND …`: the rows of the table (`t`) joined to their
    /// mappings (`m`), compared with the key's collations (those of its index, which a column's own
    /// may differ from).
    var joinCondition: String {
        columns.enumerated().map {
            "t.\(SQL.quote(identifier: $0.element.name)) = m.\(Self.slot($0.offset)) COLLATE "
                + SQL.quote(identifier: $0.element.collation)
        }
        .joined(separator: " AND ")
    }

    /// The statements that bring the mapping table in step with `table`: mappings of keys no row
    /// holds out, a mapping for each row that has none (the ids of the others stay).
    func syncStatements(searchTable name: String, table: String) -> [String] {
        let keys = Self.keysTable(name)
        let source = SQL.quote(identifier: table)
        let slots = columns.indices.map(Self.slot).joined(separator: ", ")
        let keyColumns = columns.map { SQL.quote(identifier: $0.name) }.joined(separator: ", ")
        return [
            "DELETE FROM \(keys) WHERE NOT EXISTS (SELECT 1 FROM \(source) WHERE \(matches(source, keys: keys)))",
            "INSERT INTO \(keys)(\(slots)) SELECT \(keyColumns) FROM \(source) "
                + "WHERE NOT EXISTS (SELECT 1 FROM \(keys) WHERE \(matches(source, keys: keys)))",
        ]
    }

    /// The SQLite affinity of a declared type (sqlite.org/datatype3.html, 3.1); `ANY` in a `STRICT`
    /// table keeps values as given (`BLOB`, no affinity).
    static func affinity(ofDeclaredType type: String, strict: Bool = false) -> String {
        if strict, FoldedIdentifier.asciiKeyword(type) == "ANY" { return "BLOB" }
        switch FoldedIdentifier.affinity(ofDeclaredType: type) {
        case .integer: return "INTEGER"
        case .text: return "TEXT"
        case .blob: return "BLOB"
        case .real: return "REAL"
        case .numeric: return "NUMERIC"
        }
    }
}
