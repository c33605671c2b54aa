/// The triggers that keep an FTS5 search table in step with a table whose rowid `VACUUM` may renumber,
/// through the mapping of keys to ids of ``SearchRowKey``: the same triggers as ``SearchTriggers``,
/// with the mapping id of a row's key where those use its rowid.
///
/// - `name_ad`: the deleted row out of the index (and out of the noted rows), its mapping deleted.
/// - `name_bi`, `name_bu`: the rows that conflict with the new row on a UNIQUE key (the primary key
///   included) or on the rowid, noted in `name_replaced` under their mapping ids.
/// - `name_ai`, `name_au`: the noted rows the write deleted out of the index (the one whose key the
///   new row took, and those whose key no row holds any more), and their mappings; for an update the
///   old row out, and its mapping when no row holds its key any more; a mapping for the new row's key
///   when there is none; the new row in under it.
///
/// No statement of a trigger can meet a conflict (each insert into the mapping first checks that the
/// key is not there), so the `OR REPLACE` or `OR IGNORE` of the write that fires them, which SQLite
/// applies to the statements of its triggers too, changes nothing.
struct SearchKeyedTriggers {
    var name: String
    var table: String
    var columns: [String]
    var key: SearchRowKey
    /// The UNIQUE keys of the table, its primary key included.
    var uniqueKeys: [SearchUniqueKey]
    /// Whether the table has a rowid (a row can conflict on it too).
    var hasRowid: Bool

    /// The CREATE statements, in order.
    var statements: [String] {
        let fts = SQL.quote(identifier: name)
        let source = SQL.quote(identifier: table)
        let replaced = SearchTriggers.replacedTable(name)
        let keys = SearchRowKey.keysTable(name)
        let quoted = columns.map(SQL.quote(identifier:))
        let columnList = quoted.joined(separator: ", ")
        let slots = columns.indices.map { "v\($0)" }.joined(separator: ", ")
        let newValues = quoted.map { "new." + $0 }.joined(separator: ", ")
        let oldValues = quoted.map { "old." + $0 }.joined(separator: ", ")
        let newID = key.id(of: "new", keys: keys)
        let oldID = key.id(of: "old", keys: keys)
        let keySlots = key.columns.indices.map(SearchRowKey.slot).joined(separator: ", ")
        let newKey = key.columns.map { "new." + SQL.quote(identifier: $0.name) }.joined(separator: ", ")
        // Whether a row of the table holds the key of the mapping `id`.
        func held(_ id: String) -> String {
            "EXISTS (SELECT 1 FROM \(keys) AS m JOIN \(source) ON \(key.matches(source, keys: "m")) WHERE m.id = \(id))"
        }

        let forget = "DELETE FROM \(replaced) WHERE k IS NOT NULL;"
        let insert = "INSERT INTO \(fts)(rowid, \(columnList)) VALUES (\(newID), \(newValues));"
        let delete = "INSERT INTO \(fts)(\(fts), rowid, \(columnList)) VALUES ('delete', \(oldID), \(oldValues));"
        let takeOut =
            "INSERT INTO \(fts)(\(fts), rowid, \(columnList)) SELECT 'delete', k, \(slots) FROM \(replaced) "
            + "WHERE k = \(newID) OR NOT \(held("\(replaced).k"));"
        let unmapReplaced =
            "DELETE FROM \(keys) WHERE id IN (SELECT k FROM \(replaced)) AND NOT \(held("\(keys).id"));"
        let mapNew =
            "INSERT INTO \(keys)(\(keySlots)) SELECT \(newKey) WHERE NOT EXISTS (SELECT 1 FROM \(keys) WHERE "
            + key.matches("new") + ");"
        let unmapOld =
            "DELETE FROM \(keys) WHERE \(key.matches("old")) AND NOT EXISTS (SELECT 1 FROM \(source) WHERE "
            + key.sameKey(as: "old") + ");"
        let note =
            "INSERT INTO \(replaced)(k, \(slots)) SELECT \(key.id(of: source, keys: keys)), \(columnList) "
            + "FROM \(source) WHERE (\(conflict))"
        func trigger(_ suffix: String, _ when: String, _ body: String, onlyIf condition: String? = nil) -> String {
            SearchTriggers.trigger(name, suffix, when, on: source, body, onlyIf: condition)
        }
        return [
            "CREATE TABLE \(replaced)(k INTEGER PRIMARY KEY, \(slots))",
            trigger(
                "bi", "BEFORE INSERT", forget + " " + note + ";",
                onlyIf: "EXISTS (SELECT 1 FROM \(source) WHERE (\(conflict)))"),
            trigger("ai", "AFTER INSERT", [takeOut, unmapReplaced, forget, mapNew, insert].joined(separator: " ")),
            trigger("bu", "BEFORE UPDATE", forget + " " + note + " AND NOT (\(key.sameKey(as: "old")));"),
            trigger(
                "au", "AFTER UPDATE",
                [takeOut, unmapReplaced, forget, delete, unmapOld, mapNew, insert].joined(separator: " ")),
            trigger(
                "ad", "AFTER DELETE",
                "DELETE FROM \(replaced) WHERE k = \(oldID); " + delete + " DELETE FROM \(keys) WHERE "
                    + key.matches("old") + ";"),
        ]
    }

    /// The condition a row of the table meets when it conflicts with `new` on the rowid or a UNIQUE key.
    private var conflict: String {
        ((hasRowid ? ["rowid = new.rowid"] : []) + uniqueKeys.map(\.conflict)).joined(separator: " OR ")
    }
}
