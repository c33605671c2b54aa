import Bindery

/// A synced table's rows as text lines (every column through SQL's `quote()`, ordered by key) and
/// each key's token.
struct TableDump: Sendable {
    var lines: [String] = []
    var tokens: [String: String?] = [:]

    static func read(_ table: String, _ conn: Connection) throws -> TableDump {
        let sql =
            table == "todos"
            ? "SELECT id, quote(id) || ',' || quote(token) || ',' || quote(slug) || ',' || quote(done), token "
                + "FROM todos ORDER BY id"
            : "SELECT id, quote(id) || ',' || quote(todo) || ',' || quote(token), token FROM notes ORDER BY id"
        var dump = TableDump()
        for row in try conn.rows(sql, arguments: []) {
            guard case .text(let key) = row.values[0], case .text(let line) = row.values[1] else {
                throw WorkerFailure("a row of \(table) has no text key: \(row.values)")
            }
            dump.lines.append(line)
            dump.tokens[key] = WorkloadTransaction.text(row.values[2])
        }
        return dump
    }
}
