import Foundation
import Testing

@testable import Bindery

/// Two processes migrating one file at once, with the executable `bindery-migrate-helper`
/// (Sources/BinderyMigrateHelper), which registers five migrations that each log their run in `runs`.
@Suite struct MigrationProcessTests {
    private static let identifiers = ["1 runs", "2 big table", "3 index", "4 more rows", "5 summary"]

    /// The helper binary, built with the tests (the test target depends on it): next to the test
    /// binary in the build directory the tests run from, else in the package's `.build/debug`.
    private static func helperURL() -> URL? {
        let name = "bindery-migrate-helper"
        var directories: [URL] = []
        if let argument = CommandLine.arguments.first {
            let binary = URL(fileURLWithPath: argument).standardizedFileURL
            directories.append(binary.deletingLastPathComponent())
            // On Apple platforms the test binary sits inside the .xctest bundle.
            directories.append(binary.deletingLastPathComponent().deletingLastPathComponent())
        }
        let bundle = Bundle.main.bundleURL.standardizedFileURL
        directories += [bundle, bundle.deletingLastPathComponent()]
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                directories.append(directory.appendingPathComponent(".build/debug"))
                break
            }
            directory.deleteLastPathComponent()
        }
        return directories.map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A running helper and what it printed.
    private final class Helper {
        let process: TestProcess
        private var printed = Data()

        init(executable: URL, path: String) throws {
            process = try TestProcess(executable.path, [path])
        }

        /// Waits until the helper printed its first line (`ready`: the database is open) or ended.
        func waitUntilReady() {
            guard let output = process.output else { return }
            while !printed.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { return }
                printed += chunk
            }
        }

        /// Waits for the process; returns its status, the identifiers it applied and its standard error.
        func finish() -> (status: Int32, applied: [String], errors: String) {
            let (status, rest, err) = process.finish()
            printed += rest
            let lines = String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init)
            return (status, lines.filter { $0 != "ready" }, String(decoding: err, as: UTF8.self))
        }
    }

    /// Runs `body` with the path of a database file in a fresh directory that is removed afterwards.
    private func withDatabaseFile(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-migrate-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.appendingPathComponent("shared.sqlite").path)
    }

    @Test(.timeLimit(.minutes(2))) func twoProcessesApplyEachMigrationOnce() throws {
        guard let executable = Self.helperURL() else {
            Issue.record("bindery-migrate-helper not found; build it with `swift build --build-tests`")
            return
        }
        try withDatabaseFile { path in
            // The write lock is held until both processes have opened the file, so that both find every
            // migration pending and then contend for the lock.
            let holder = try Connection(path: path)
            try holder.execute(script: "BEGIN IMMEDIATE")
            let helpers = [
                try Helper(executable: executable, path: path), try Helper(executable: executable, path: path),
            ]
            helpers.forEach { $0.waitUntilReady() }
            Thread.sleep(forTimeInterval: 0.3)
            try holder.execute(script: "COMMIT")
            holder.close()
            let results = helpers.map { $0.finish() }

            for result in results {
                #expect(result.status == 0, "helper failed: \(result.errors)")
            }
            // Between them the processes applied every migration, and no migration twice.
            #expect(results.flatMap(\.applied).sorted() == Self.identifiers)
            try checkMigratedOnce(path)
        }
    }

    private func checkMigratedOnce(_ path: String) throws {
        let conn = try Connection(path: path)
        let runs = try conn.rows("SELECT identifier, count(*) FROM runs GROUP BY identifier ORDER BY 1", arguments: [])
        #expect(try runs.map { try $0[0] as String } == Self.identifiers)
        #expect(try runs.map { try $0[1] as Int } == [1, 1, 1, 1, 1])
        #expect(try conn.fetchOne(Int.self, sql: "SELECT n FROM summary") == 400_000)
        let ledger = try conn.fetchAll(String.self, sql: "SELECT identifier FROM bindery_migrations ORDER BY rowid")
        #expect(ledger == Self.identifiers)
    }

    /// Migrates the file at `path` on a new connection on another thread.
    private func migrateOnAnotherThread(_ migrator: Migrator, path: String) async -> Result<[String], any Error> {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    returning: Result {
                        let conn = try Connection(path: path, options: Connection.Options(busyTimeout: 30))
                        return try migrator.migrate(conn)
                    })
            }
        }
    }

    @Test func aMigrationAppliedByAnotherConnectionWhileWaitingForTheLockIsSkipped() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-migrate-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        var migrator = Migrator()
        migrator.register("1 create") { conn in
            try conn.execute(script: "CREATE TABLE t(x INTEGER)")
        }
        migrator.register("2 fill") { conn in
            try conn.execute(script: "INSERT INTO t VALUES (1)")
        }
        // Another connection holds the write lock: the migrator finds both migrations pending, then waits.
        let other = try Connection(path: path)
        try other.execute(script: "BEGIN IMMEDIATE")
        let waiting = migrator
        async let result = migrateOnAnotherThread(waiting, path: path)
        try await Task.sleep(for: .milliseconds(300))
        // Meanwhile the other connection applies them (as another process running the same migrations).
        try other.execute(
            script: """
                CREATE TABLE t(x INTEGER);
                CREATE TABLE bindery_migrations(identifier TEXT PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL);
                INSERT INTO bindery_migrations VALUES ('1 create', '2024-01-01 00:00:00.000'),
                                                      ('2 fill', '2024-01-01 00:00:00.000');
                COMMIT;
                """)
        // Running "1 create" again would fail (the table exists): they are skipped instead.
        #expect(try await result.get() == [])
        #expect(try other.fetchOne(Int.self, sql: "SELECT count(*) FROM t") == 0)
        #expect(try migrator.appliedIdentifiers(in: other) == ["1 create", "2 fill"])
    }

    @Test(.timeLimit(.minutes(1))) func connectionsOnSeveralThreadsApplyEachMigrationOnce() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-migrate-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        var migrator = Migrator()
        migrator.register("0 runs") { conn in
            try conn.execute(script: "CREATE TABLE runs(identifier TEXT NOT NULL)")
            try conn.execute("INSERT INTO runs VALUES (\("0 runs"))")
        }
        for index in 1...9 {
            migrator.register("\(index) rows") { conn in
                try conn.execute(
                    script: """
                        CREATE TABLE t\(index)(x INTEGER);
                        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                        INSERT INTO t\(index) SELECT i FROM n;
                        """)
                try conn.execute("INSERT INTO runs VALUES (\("\(index) rows"))")
            }
        }
        let shared = migrator
        async let first = migrateOnAnotherThread(shared, path: path)
        async let second = migrateOnAnotherThread(shared, path: path)
        async let third = migrateOnAnotherThread(shared, path: path)
        let applied = try await [first.get(), second.get(), third.get()].flatMap { $0 }
        #expect(applied.sorted() == migrator.registeredIdentifiers.sorted())
        let conn = try Connection(path: path)
        let counts = try conn.fetchAll(Int.self, sql: "SELECT count(*) FROM runs GROUP BY identifier")
        #expect(counts == Array(repeating: 1, count: 10))
    }
}
