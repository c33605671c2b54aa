/// The triggers that keep an FTS5 search table in step with the table it indexes, and the table of
/// replaced rows they use.
///
/// - `name_ad` (after delete): the deleted row out of the index.
/// - `name_bi`, `name_bu` (before insert, before update): the rows that conflict with the new row on
///   the rowid or a UNIQUE key, noted in `name_replaced` with their text (`name_bi` runs only when there
///   is such a row). A REPLACE deletes them
///   without firing `name_ad` when `recursive_triggers` is off; an IGNORE keeps them.
/// - `name_ai`, `name_au` (after insert, after update): the noted rows the write deleted out of the
///   index (the one whose rowid the new row took, and those no longer in the table), then the old
///   row (for an update) out and the new row in.
///
/// Every trigger that notes first forgets what an earlier write noted (an ignored insert fires no
/// after trigger), and `name_ad` forgets a row it took out itself (with `recursive_triggers` on).
struct SearchTriggers {
    var name: String
    var table: String
    var columns: [String]
    /// The UNIQUE keys of the table.
    var uniqueKeys: [SearchUniqueKey]

    /// The table that holds the rows a write is about to replace.
    static func replacedTable(_ name: String) -> String { SQL.quote(identifier: name + "_replaced") }

    /// The suffixes of the triggers' names (`name_ai` …).
    static let triggerSuffixes = ["ai", "ad", "au", "bi", "bu"]

    /// The statements that drop the triggers and the table of replaced rows.
    static func dropStatements(name: String) -> [String] {
        triggerSuffixes.map { "DROP TRIGGER IF EXISTS \(SQL.quote(identifier: name + "_" + $0))" }
            + ["DROP TABLE IF EXISTS \(replacedTable(name))"]
    }

    /// The CREATE statements, in order.
    var statements: [String] {
        let fts = SQL.quote(identifier: name)
        let source = SQL.quote(identifier: table)
        let replaced = Self.replacedTable(name)
        let quoted = columns.map(SQL.quote(identifier:))
        let columnList = quoted.joined(separator: ", ")
        let slots = columns.indices.map { "v\($0)" }
        let newValues = quoted.map { "new." + $0 }.joined(separator: ", ")
        let oldValues = quoted.map { "old." + $0 }.joined(separator: ", ")

        // With a WHERE clause, so that SQLite looks for rows rather than clearing the table: a plain
        // `DELETE FROM` (SQLite's truncate) cost about 8,000 instructions an insert, this about 1,150
        // (callgrind, 20,000 inserts); `k`, the rowid, is never NULL.
        let forget = "DELETE FROM \(replaced) WHERE k IS NOT NULL;"
        let insert = "INSERT INTO \(fts)(rowid, \(columnList)) VALUES (new.rowid, \(newValues));"
        let delete = "INSERT INTO \(fts)(\(fts), rowid, \(columnList)) VALUES ('delete', old.rowid, \(oldValues));"
        let takeOut =
            "INSERT INTO \(fts)(\(fts), rowid, \(columnList)) SELECT 'delete', k, \(slots.joined(separator: ", ")) "
            + "FROM \(replaced) WHERE k = new.rowid OR NOT EXISTS (SELECT 1 FROM \(source) WHERE rowid = \(replaced).k);"
        let note =
            "INSERT INTO \(replaced)(k, \(slots.joined(separator: ", "))) SELECT rowid, \(columnList) "
            + "FROM \(source) WHERE (\(conflict))"
        func trigger(_ suffix: String, _ when: String, _ body: String, onlyIf condition: String? = nil) -> String {
            Self.trigger(name, suffix, when, on: source, body, onlyIf: condition)
        }
        // The insert's note runs only when a row conflicts (the rare case): rows an ignored write left
        // noted are harmless to a later insert, which takes out only its own rowid's row and rows gone
        // from the table. The update's note always runs, to forget them first: a row noted by an
        // upsert's insert is the row its update changes.
        return [
            "CREATE TABLE \(replaced)(k INTEGER PRIMARY KEY, \(slots.joined(separator: ", ")))",
            trigger(
                "bi", "BEFORE INSERT", forget + " " + note + ";",
                onlyIf: "EXISTS (SELECT 1 FROM \(source) WHERE (\(conflict)))"),
            trigger("ai", "AFTER INSERT", takeOut + " " + forget + " " + insert),
            trigger("bu", "BEFORE UPDATE", forget + " " + note + " AND rowid <> old.rowid;"),
            trigger("au", "AFTER UPDATE", takeOut + " " + forget + " " + delete + " " + insert),
            trigger("ad", "AFTER DELETE", "DELETE FROM \(replaced) WHERE k = old.rowid; " + delete),
        ]
    }

    /// The condition a row of the table meets when it conflicts with `new` on the rowid or a UNIQUE key.
    private var conflict: String {
        var terms = ["rowid = new.rowid"]
        for key in uniqueKeys {
            terms.append(key.conflict)
        }
        return terms.joined(separator: " OR ")
    }

    /// `CREATE TRIGGER "<name>_<suffix>" <when> ON <source> [WHEN <condition>] BEGIN <body> END`.
    static func trigger(
        _ name: String, _ suffix: String, _ when: String, on source: String, _ body: String, onlyIf condition: String?
    ) -> String {
        let guardClause = condition.map { " WHEN \($0)" } ?? ""
        return "CREATE TRIGGER \(SQL.quote(identifier: name + "_" + suffix)) \(when) ON \(source)\(guardClause) "
            + "BEGIN \(body) END"
    }
}
