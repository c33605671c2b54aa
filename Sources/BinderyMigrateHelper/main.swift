// bindery-migrate-helper: migrates the database file given as argument with five fixed migrations, for
// the test that runs two of these processes at once on one file (MigrationProcessTests).
//
//     bindery-migrate-helper <path>
//
// It opens the file, prints `ready`, migrates, then prints the identifiers it applied, one a line, and
// exits 0; on an error it prints the error to standard error and exits 1. (The test holds the write
// lock until both processes are ready, so that they contend for it from the first migration.)

import Bindery
import Foundation

/// The five migrations: each inserts a row naming itself into `runs`; two insert 200,000 rows
/// with a recursive CTE, to make them slow.
func makeMigrator() -> Migrator {
    var migrator = Migrator()
    migrator.register("1 runs") { conn in
        try conn.execute(script: "CREATE TABLE runs(identifier TEXT NOT NULL, pid INTEGER NOT NULL)")
        try record("1 runs", conn)
    }
    migrator.register("2 big table") { conn in
        try conn.execute(
            script: """
                CREATE TABLE big(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
                INSERT INTO big(id, value) SELECT i, hex(randomblob(8)) FROM n;
                """)
        try record("2 big table", conn)
    }
    migrator.register("3 index") { conn in
        try conn.execute(script: "CREATE INDEX big_value ON big(value)")
        try record("3 index", conn)
    }
    migrator.register("4 more rows") { conn in
        try conn.execute(
            script: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
                INSERT INTO big(id, value) SELECT 200000 + i, hex(randomblob(8)) FROM n;
                """)
        try record("4 more rows", conn)
    }
    migrator.register("5 summary") { conn in
        try conn.execute(script: "CREATE TABLE summary AS SELECT count(*) AS n FROM big")
        try record("5 summary", conn)
    }
    return migrator
}

/// Notes in `runs` that this process ran the migration `identifier`.
func record(_ identifier: String, _ conn: Connection) throws {
    try conn.execute(
        "INSERT INTO runs(identifier, pid) VALUES (?, ?)",
        arguments: [.text(identifier), .integer(Int64(ProcessInfo.processInfo.processIdentifier))])
}

func run(_ arguments: [String]) -> Int32 {
    guard arguments.count == 2 else {
        FileHandle.standardError.write(Data("usage: bindery-migrate-helper <path>\n".utf8))
        return 2
    }
    do {
        let conn = try Connection(path: arguments[1], options: Connection.Options(busyTimeout: 120))
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        let applied = try makeMigrator().migrate(conn)
        FileHandle.standardOutput.write(Data(applied.map { $0 + "\n" }.joined().utf8))
        return 0
    } catch {
        FileHandle.standardError.write(Data("bindery-migrate-helper: \(error)\n".utf8))
        return 1
    }
}

exit(run(CommandLine.arguments))
