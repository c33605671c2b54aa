import Bindery
import Foundation

/// One random write transaction of the workload: 1 to 5 operations on `todos` and `notes`, each
/// setting a fresh token "c{copy}-r{run}-t{txn}-{n}", with keys from small pools shared by every
/// copy (so copies collide on the same rows) or fresh UUIDs, and slugs from a small pool (so
/// copies break the UNIQUE index together). It never breaks a constraint locally: a slug another
/// row has here is left NULL, a note goes under a to-do this copy has, and a to-do's notes are
/// deleted before it.
///
/// Before it returns (and the transaction commits) it appends one oracle intent per row written and
/// flushes the file. A transaction marked `rollback` throws ``DeliberateRollback`` after its writes
/// instead; its tokens start with "rollback-" and must never be seen anywhere.
struct WorkloadTransaction: Sendable {
    let copy: Int
    let run: Int
    let txn: Int
    let seed: UInt64
    let rollback: Bool
    let oracle: AppendLog

    static let todoPool = (0..<12).map { String(format: "t%02d", $0) }
    static let notePool = (0..<12).map { String(format: "n%02d", $0) }
    static let slugPool = (0..<6).map { "s\($0)" }

    /// Runs the operations on `conn` (inside `db.write`) and returns the oracle intents it logged.
    func perform(on conn: Connection) throws -> [OracleEntry] {
        var state = State(random: SeededRandom(seed: seed))
        let count = Int.random(in: 1...5, using: &state.random)
        for index in 0..<count {
            let token = (rollback ? "rollback-" : "") + "c\(copy)-r\(run)-t\(txn)-\(index)"
            let roll = Int.random(in: 0..<100, using: &state.random)
            switch roll {
            case 0..<30: try upsertTodo(token, &state, conn)
            case 30..<50: try updateTodo(token, &state, conn)
            case 50..<60: try deleteTodo(&state, conn)
            case 60..<80: try upsertNote(token, &state, conn)
            case 80..<92: try updateNote(token, &state, conn)
            default: try deleteNote(&state, conn)
            }
        }
        if rollback {
            throw DeliberateRollback()
        }
        let now = OracleEntry.now()
        let entries = state.entries.map { entry in
            var entry = entry
            entry.at = now
            return entry
        }
        try oracle.append(entries.map { try $0.line() }, durable: true)
        return entries
    }

    /// The random source and the rows written so far.
    struct State {
        var random: SeededRandom
        var entries: [OracleEntry] = []
    }

    private func log(
        _ state: inout State, _ table: String, _ key: String, _ op: String, _ token: String?, _ previous: String?
    ) {
        state.entries.append(
            .write(
                copy: copy, run: run, txn: txn, table: table, key: key, op: op, token: token, previousToken: previous))
    }

    // MARK: To-dos

    private func upsertTodo(_ token: String, _ state: inout State, _ conn: Connection) throws {
        let key =
            state.random.chance(70)
            ? Self.todoPool.randomElement(using: &state.random) ?? "t00" : "u-" + UUID().uuidString.lowercased()
        let slug = try freeSlug(for: key, &state, conn)
        let done: SQLiteValue = .integer(Int64.random(in: 0...1, using: &state.random))
        if let previous = try self.token(of: "todos", key, conn) {
            try conn.execute(
                "UPDATE todos SET token = ?, slug = ?, done = ? WHERE id = ?",
                arguments: [.text(token), slug, done, .text(key)])
            log(&state, "todos", key, "update", token, previous)
        } else {
            try conn.execute(
                "INSERT INTO todos(id, token, slug, done) VALUES (?, ?, ?, ?)",
                arguments: [.text(key), .text(token), slug, done])
            log(&state, "todos", key, "insert", token, nil)
        }
    }

    private func updateTodo(_ token: String, _ state: inout State, _ conn: Connection) throws {
        guard let key = try pick("SELECT id FROM todos ORDER BY id", &state, conn),
            let previous = try self.token(of: "todos", key, conn)
        else {
            return try upsertTodo(token, &state, conn)
        }
        let done: SQLiteValue = .integer(Int64.random(in: 0...1, using: &state.random))
        if state.random.chance(30) {
            let slug = try freeSlug(for: key, &state, conn)
            try conn.execute(
                "UPDATE todos SET token = ?, done = ?, slug = ? WHERE id = ?",
                arguments: [.text(token), done, slug, .text(key)])
        } else {
            try conn.execute(
                "UPDATE todos SET token = ?, done = ? WHERE id = ?", arguments: [.text(token), done, .text(key)])
        }
        log(&state, "todos", key, "update", token, previous)
    }

    private func deleteTodo(_ state: inout State, _ conn: Connection) throws {
        guard let key = try pick("SELECT id FROM todos ORDER BY id", &state, conn),
            let previous = try self.token(of: "todos", key, conn)
        else { return }
        for note in try conn.rows("SELECT id, token FROM notes WHERE todo = ? ORDER BY id", arguments: [.text(key)]) {
            guard case .text(let id) = note.values[0] else {
                throw WorkerFailure("a note of \(key) has no text key")
            }
            try conn.execute("DELETE FROM notes WHERE id = ?", arguments: [.text(id)])
            log(&state, "notes", id, "delete", nil, Self.text(note.values[1]))
        }
        try conn.execute("DELETE FROM todos WHERE id = ?", arguments: [.text(key)])
        log(&state, "todos", key, "delete", nil, previous)
    }

    /// A slug from the pool that no other row has here, or NULL (half the time).
    private func freeSlug(for key: String, _ state: inout State, _ conn: Connection) throws -> SQLiteValue {
        guard state.random.chance(50), let slug = Self.slugPool.randomElement(using: &state.random) else {
            return .null
        }
        let holders = try conn.rows(
            "SELECT id FROM todos WHERE slug = ? AND id <> ?", arguments: [.text(slug), .text(key)])
        return holders.isEmpty ? .text(slug) : .null
    }

    // MARK: Notes

    private func upsertNote(_ token: String, _ state: inout State, _ conn: Connection) throws {
        guard let parent = try pick("SELECT id FROM todos ORDER BY id", &state, conn) else {
            return try upsertTodo(token, &state, conn)
        }
        let key =
            state.random.chance(60)
            ? Self.notePool.randomElement(using: &state.random) ?? "n00" : "v-" + UUID().uuidString.lowercased()
        if let previous = try self.token(of: "notes", key, conn) {
            if state.random.chance(50) {
                try conn.execute(
                    "UPDATE notes SET token = ?, todo = ? WHERE id = ?",
                    arguments: [.text(token), .text(parent), .text(key)])
            } else {
                try conn.execute("UPDATE notes SET token = ? WHERE id = ?", arguments: [.text(token), .text(key)])
            }
            log(&state, "notes", key, "update", token, previous)
        } else {
            try conn.execute(
                "INSERT INTO notes(id, todo, token) VALUES (?, ?, ?)",
                arguments: [.text(key), .text(parent), .text(token)])
            log(&state, "notes", key, "insert", token, nil)
        }
    }

    private func updateNote(_ token: String, _ state: inout State, _ conn: Connection) throws {
        guard let key = try pick("SELECT id FROM notes ORDER BY id", &state, conn) else {
            return try upsertNote(token, &state, conn)
        }
        let previous = try self.token(of: "notes", key, conn)
        try conn.execute("UPDATE notes SET token = ? WHERE id = ?", arguments: [.text(token), .text(key)])
        log(&state, "notes", key, "update", token, previous)
    }

    private func deleteNote(_ state: inout State, _ conn: Connection) throws {
        guard let key = try pick("SELECT id FROM notes ORDER BY id", &state, conn) else { return }
        let previous = try self.token(of: "notes", key, conn)
        try conn.execute("DELETE FROM notes WHERE id = ?", arguments: [.text(key)])
        log(&state, "notes", key, "delete", nil, previous)
    }

    // MARK: Reading

    /// One key of the rows `sql` selects, at random; nil when it selects none.
    private func pick(_ sql: String, _ state: inout State, _ conn: Connection) throws -> String? {
        let keys = try conn.rows(sql, arguments: []).compactMap { Self.text($0.values[0]) }
        return keys.randomElement(using: &state.random)
    }

    /// The token of the row `key` of `table` (nil when the row is missing).
    private func token(of table: String, _ key: String, _ conn: Connection) throws -> String? {
        try Self.storedToken(of: table, key, conn)
    }

    /// The token of the row `key` of `table` (nil when the row is missing).
    static func storedToken(of table: String, _ key: String, _ conn: Connection) throws -> String? {
        let sql =
            table == "todos" ? "SELECT token FROM todos WHERE id = ?" : "SELECT token FROM notes WHERE id = ?"
        return try conn.rows(sql, arguments: [.text(key)]).first.flatMap { text($0.values[0]) }
    }

    static func text(_ value: SQLiteValue) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }
}
