import Bindery
import CSQLite
import Foundation

/// The cost of sync (issue 36): capturing write transactions, applying a large changeset, and a pull
/// that rebases pending local changes over conflicting remote ones. Every database is a file in a
/// temporary folder, in WAL mode with `synchronous = NORMAL` (what ``Database`` sets; the C sides set
/// the same), so that commits cost what they cost an app.
enum SyncBench {
    static func run(_ benchmark: Benchmark) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-sync-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = Folder(url: directory)
        try await SyncCaptureBench.run(benchmark, in: folder)
        try await SyncApplyBench.run(benchmark, in: folder)
        try await SyncConflictBench.run(benchmark, in: folder)
    }

    /// Database files made one after another in the benchmark's folder.
    final class Folder: Sendable {
        let url: URL

        init(url: URL) {
            self.url = url
        }

        /// A new file's path, named after `name` and a fresh UUID.
        func path(_ name: String) -> String {
            url.appendingPathComponent("\(name)-\(UUID()).sqlite").path
        }
    }

    /// A database that syncs ``SyncedItem``'s table with last-writer-wins, with the table created.
    static func syncedDatabase(_ folder: Folder, _ name: String) async throws -> Database {
        var options = Database.Options()
        options.sync = SyncConfiguration(tables: [SyncTable(SyncedItem.self, policy: .lastWriterWins)])
        let db = try Database(path: folder.path(name), options: options)
        try await db.write { conn in try conn.execute(script: SyncedItem.schema) }
        return db
    }

    /// A database without sync, with ``SyncedItem``'s table.
    static func plainDatabase(_ folder: Folder, _ name: String) async throws -> Database {
        let db = try Database(path: folder.path(name))
        try await db.write { conn in try conn.execute(script: SyncedItem.schema) }
        return db
    }

    /// A C API database file with ``SyncedItem``'s table, in WAL mode with `synchronous = NORMAL`.
    static func rawDatabase(_ folder: Folder, _ name: String) throws -> RawDatabase {
        let raw = try RawDatabase(path: folder.path(name))
        try raw.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
        try raw.exec(SyncedItem.schema)
        return raw
    }

    /// The rows of the synced table, counted and summed, to check that two databases hold the same.
    static func summary(_ db: Database) async throws -> String {
        try await db.read { conn in
            try conn.fetchOne(String.self, sql: SQL(text: summarySQL)) ?? ""
        }
    }

    static func summary(_ raw: RawDatabase) throws -> String {
        let statement = try raw.prepare(summarySQL)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(raw.handle)))
        }
        return String(cString: text)
    }

    private static let summarySQL =
        "SELECT count(*) || ' rows, ' || total(count) || ', ' || total(length(id) + length(name) + length(note) "
        + "+ length(tag)) || ' characters, ' || total(unicode(substr(id, 36)) * count) FROM items"
}

extension Benchmark {
    /// Whether the line `name` runs (``only`` is nil or part of it): its preparation is skipped otherwise.
    func wants(_ name: String) -> Bool {
        only.map { name.contains($0) } ?? true
    }
}
