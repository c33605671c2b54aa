import Bindery
import Foundation

/// What the check reads from one copy (or the replay) after the final sync.
struct CopySnapshot {
    let name: String
    /// Per synced table, the SHA-256 of its rows ordered by key, every column quoted.
    var checksums: [String: String] = [:]
    /// Per synced table, each key's token (NULL tokens as nil).
    var tokens: [String: [String: String?]] = [:]
    var rowCounts: [String: Int] = [:]
    var foreignKeyViolations: [String] = []
    var integrityProblems: [String] = []
    var status: SyncStatus?
    var conflicts: [SyncConflictRecord] = []
    /// Per "table/key" (the key as the conflict log writes it), when its last conflict decision
    /// was logged (Unix milliseconds).
    var lastConflictTimes: [String: Int64] = [:]

    /// Reads the copy of `database`, opened as a ``SyncCopy`` as `copy`.
    static func read(name: String, database: Database, copy: SyncCopy) async throws -> CopySnapshot {
        var snapshot = CopySnapshot(name: name)
        snapshot.status = try await copy.status()
        snapshot.conflicts = try await copy.conflicts()
        let tables = try await database.read { conn in
            try WorkerSchema.tables.map { table in try (table, TableDump.read(table, conn)) }
        }
        for (table, dump) in tables {
            snapshot.checksums[table] = SHA256.hex(Array(dump.lines.joined(separator: "\n").utf8))
            snapshot.tokens[table] = dump.tokens
            snapshot.rowCounts[table] = dump.lines.count
        }
        snapshot.lastConflictTimes = try await database.read { conn in
            var times: [String: Int64] = [:]
            let rows = try conn.rows(
                """
                SELECT table_name, key, max(CAST(round((julianday(recorded_at) - 2440587.5) * 86400000) AS INTEGER))
                FROM bindery_sync_conflicts GROUP BY table_name, key
                """, arguments: [])
            for row in rows {
                guard case .text(let table) = row.values[0], case .text(let key) = row.values[1],
                    case .integer(let time) = row.values[2]
                else {
                    throw WorkerFailure("a row of bindery_sync_conflicts has no table, key or time: \(row.values)")
                }
                times[table + "/" + key] = time
            }
            return times
        }
        snapshot.foreignKeyViolations = try await database.read { conn in
            try conn.rows("PRAGMA foreign_key_check", arguments: []).map { row in
                row.values.map(\.description).joined(separator: " ")
            }
        }
        snapshot.integrityProblems = try await database.read { conn in
            try conn.integrityCheck()
        }
        return snapshot
    }
}
