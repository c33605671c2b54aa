import Bindery

/// The synced schema every copy (and the replay) creates with the same migration.
enum WorkerSchema {
    /// The synced tables and their policies.
    static var configuration: SyncConfiguration {
        SyncConfiguration(tables: [
            SyncTable("todos", policy: .lastWriterWins),
            SyncTable("notes", policy: .fieldWise),
        ])
    }

    /// The tables in their column order, for the checksums.
    static let tables = ["todos", "notes"]

    static var migrator: Migrator {
        var migrator = Migrator()
        migrator.register("v1: todos and notes") { conn in
            try conn.execute(
                script: """
                    CREATE TABLE todos(id TEXT PRIMARY KEY, token TEXT NOT NULL, slug TEXT UNIQUE, done INTEGER);
                    CREATE TABLE notes(id TEXT PRIMARY KEY, todo TEXT NOT NULL REFERENCES todos(id), token TEXT);
                    """)
        }
        return migrator
    }

    /// Opens (creating when missing) a synced database at `path` and migrates it.
    static func open(path: String) async throws -> Database {
        var options = Database.Options()
        options.sync = configuration
        let database = try Database(path: path, options: options)
        _ = try await migrator.migrate(database)
        return database
    }
}
