import Foundation
import Testing

@testable import Bindery

/// `Database.restore(from:to:at:replacing:litestream:)`: restoring a database from a Litestream replica
/// before the app opens it. Most tests run a stand-in `litestream` (a shell script) to reach every
/// outcome; the last ones run the real binary: the one `BINDERY_LITESTREAM` names, or else the one
/// `scripts/replication-test` installs into `.build/litestream-venv` (which `.ci/run` runs before the
/// tests).
@Suite struct DatabaseRestoreTests {
    /// The real `litestream` binary: `BINDERY_LITESTREAM`, or the one in the package's
    /// `.build/litestream-venv`; nil when neither is there.
    static let litestream: String? = {
        let files = FileManager.default
        if let path = ProcessInfo.processInfo.environment["BINDERY_LITESTREAM"], !path.isEmpty {
            return files.isExecutableFile(atPath: path) ? path : nil
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let installed = package.appendingPathComponent(".build/litestream-venv/bin/litestream").path
        return files.isExecutableFile(atPath: installed) ? installed : nil
    }()

    /// Writes an executable shell script standing in for `litestream` into `directory`. It appends its
    /// arguments to `arguments.txt` there, then runs `body`, in which `$out` is the path after `-o`.
    static func fakeLitestream(in directory: URL, _ body: String) throws -> String {
        let path = directory.appendingPathComponent("fake-litestream").path
        let script = """
            #!/bin/sh
            printf '%s\\n' "$@" >> '\(directory.path)/arguments.txt'
            out=
            while [ $# -gt 0 ]; do
                if [ "$1" = "-o" ]; then out=$2; fi
                shift
            done
            \(body)

            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o755) == 0)
        return path
    }

    /// Makes a database at `path` with `count` rows in `items` (a fresh WAL database, closed).
    static func makeDatabase(at path: String, rows count: Int, checkpointing: Database.Checkpointing = .automatic)
        async throws
    {
        let db = try Database(path: path, options: Database.Options(checkpointing: checkpointing))
        try await addRows(db, upTo: count)
        try await db.close()
    }

    /// Adds rows to `items` until it holds `count`.
    static func addRows(_ db: Database, upTo count: Int) async throws {
        try await db.write { conn in
            try conn.execute(script: "CREATE TABLE IF NOT EXISTS items(n INTEGER PRIMARY KEY)")
            try conn.execute(
                """
                WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < \(count))
                INSERT OR IGNORE INTO items(n) SELECT i FROM s
                """)
        }
    }

    static func rowCount(_ path: String) async throws -> Int? {
        let db = try Database(path: path)
        let count = try await db.read { conn in try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM items") }
        try await db.close()
        return count
    }

    /// The names in `directory` other than the stand-in, its argument log and `kept`.
    static func leftovers(in directory: URL, keeping kept: Set<String>) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !["fake-litestream", "arguments.txt"].contains($0) && !kept.contains($0) }.sorted()
    }

    // MARK: Stand-in litestream

    @Test func aMissingLitestreamThrowsLitestreamNotFound() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("app.sqlite").path
            for name in ["/nonexistent/litestream", "bindery-no-such-litestream-\(UUID().uuidString)"] {
                await #expect(throws: Database.RestoreError.litestreamNotFound(name)) {
                    try await Database.restore(from: .url("file:///nowhere"), to: path, litestream: name)
                }
            }
            let leftovers = try Self.leftovers(in: directory, keeping: [])
            #expect(leftovers == [])
        }
    }

    @Test func anExistingDatabaseOrAnOrphanWALIsLeftAlone() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("app.sqlite").path
            try await Self.makeDatabase(at: path, rows: 3)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let fake = try Self.fakeLitestream(in: directory, "exit 1")
            await #expect(throws: Database.RestoreError.databaseExists(path)) {
                try await Database.restore(from: .url("file:///nowhere"), to: path, litestream: fake)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            // Litestream never ran.
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("arguments.txt").path))

            // A -wal file left without its database counts as a database too.
            let orphan = directory.appendingPathComponent("orphan.sqlite").path
            try Data("not a wal".utf8).write(to: URL(fileURLWithPath: orphan + "-wal"))
            await #expect(throws: Database.RestoreError.databaseExists(orphan)) {
                try await Database.restore(from: .url("file:///nowhere"), to: orphan, litestream: fake)
            }
        }
    }

    /// A hot rollback journal left beside the path without its database: the first open of the restored
    /// copy would roll it back into the copy (seen: a malformed database), so it counts as a database.
    @Test func anOrphanHotJournalIsLeftAlone() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let source = directory.appendingPathComponent("source.sqlite").path
            let path = directory.appendingPathComponent("app.sqlite").path
            let good = directory.appendingPathComponent("good.sqlite").path
            try await Self.makeDatabase(at: good, rows: 2000)
            // A real hot journal: a transaction of a rollback-journal database, caught before it commits.
            let conn = try Connection(path: source)
            try conn.execute(script: "PRAGMA journal_mode = DELETE; PRAGMA cache_size = 1")
            try conn.execute(script: "CREATE TABLE t(x TEXT)")
            try conn.execute(
                script: """
                    WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 200)
                    INSERT INTO t SELECT hex(randomblob(500)) FROM s
                    """)
            try conn.execute(script: "BEGIN; UPDATE t SET x = lower(x)")
            let journal = try Data(contentsOf: URL(fileURLWithPath: source + "-journal"))
            #expect(journal.count > 4096)
            try conn.execute(script: "ROLLBACK")
            conn.close()
            try journal.write(to: URL(fileURLWithPath: path + "-journal"))

            let fake = try Self.fakeLitestream(in: directory, "cp '\(good)' \"$out\"")
            await #expect(throws: Database.RestoreError.databaseExists(path)) {
                try await Database.restore(from: .url("file:///backups/app"), to: path, litestream: fake)
            }
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path + "-journal")) == journal)

            // Replacing moves the stray journal aside with the rest, and the copy reads whole.
            try await Database.restore(from: .url("file:///backups/app"), to: path, replacing: true, litestream: fake)
            #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
            let db = try Database(path: path)
            #expect(try await db.read { try $0.integrityCheck() } == [])
            #expect(try await db.fetchOne(Int.self, sql: "SELECT count(*) FROM items") == 2000)
            try await db.close()
        }
    }

    @Test func aFailingRestoreThrowsWhatLitestreamPrinted() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("app.sqlite").path
            let fake = try Self.fakeLitestream(
                in: directory, "echo 'cannot reach s3://bucket/app: access denied' >&2; exit 3")
            do {
                try await Database.restore(from: .url("s3://bucket/app"), to: path, litestream: fake)
                Issue.record("the restore succeeded")
            } catch let Database.RestoreError.litestreamFailed(status, output) {
                #expect(status == 3)
                #expect(output.contains("access denied"))
            }
            #expect(!FileManager.default.fileExists(atPath: path))
            let leftovers = try Self.leftovers(in: directory, keeping: [])
            #expect(leftovers == [])
        }
    }

    @Test func aReplicaWithoutBackupThrowsNoBackup() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("app.sqlite").path
            // What litestream does with -if-replica-exists and nothing to restore: exit 0, write nothing.
            let fake = try Self.fakeLitestream(in: directory, "echo 'no matching backups found'; exit 0")
            let source = Database.ReplicaSource.url("file:///backups/app")
            await #expect(throws: Database.RestoreError.noBackup(source)) {
                try await Database.restore(from: source, to: path, litestream: fake)
            }
            #expect(!FileManager.default.fileExists(atPath: path))
            let leftovers = try Self.leftovers(in: directory, keeping: [])
            #expect(leftovers == [])
        }
    }

    @Test func aDamagedCopyIsDiscarded() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("app.sqlite").path
            let good = directory.appendingPathComponent("good.sqlite").path
            try await Self.makeDatabase(at: good, rows: 2000)
            // The copy: a real database with a page in the middle overwritten.
            let fake = try Self.fakeLitestream(
                in: directory,
                """
                cp '\(good)' "$out"
                dd if=/dev/zero of="$out" bs=4096 seek=3 count=1 conv=notrunc 2>/dev/null
                """)
            do {
                try await Database.restore(from: .url("file:///backups/app"), to: path, litestream: fake)
                Issue.record("the damaged copy was installed")
            } catch let Database.RestoreError.integrityCheckFailed(problems) {
                #expect(!problems.isEmpty)
            }
            #expect(!FileManager.default.fileExists(atPath: path))
            let leftovers = try Self.leftovers(in: directory, keeping: ["good.sqlite"])
            #expect(leftovers == [])
        }
    }

    @Test func theCopyGoesInPlaceWithTheArgumentsLitestreamExpects() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("app.sqlite").path
            let good = directory.appendingPathComponent("good.sqlite").path
            try await Self.makeDatabase(at: good, rows: 7)
            let fake = try Self.fakeLitestream(in: directory, "cp '\(good)' \"$out\"")
            let time = Date(timeIntervalSince1970: 1_767_225_600.25)  // 2026-01-01T00:00:00.250Z
            try await Database.restore(
                from: .configuration(path: "/etc/litestream.yml", database: "/var/lib/app.sqlite"), to: path,
                at: time, litestream: fake)
            #expect(try await Self.rowCount(path) == 7)
            let arguments = try String(contentsOf: directory.appendingPathComponent("arguments.txt"), encoding: .utf8)
                .split(separator: "\n").map(String.init)
            let copy = try #require(arguments.firstIndex(of: "-o").map { arguments[$0 + 1] })
            #expect(copy.hasPrefix(directory.appendingPathComponent(".app.sqlite.restore-").path))
            #expect(
                arguments == [
                    "restore", "-if-replica-exists", "-o", copy, "-timestamp", "2026-01-01T00:00:00.250Z", "-config",
                    "/etc/litestream.yml", "/var/lib/app.sqlite",
                ])
            let leftovers = try Self.leftovers(in: directory, keeping: ["good.sqlite", "app.sqlite"])
            #expect(leftovers == [])
        }
    }

    @Test func replacingSwapsTheFileAndDropsItsOldWAL() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("app.sqlite").path
            // The old database keeps 50 rows in its -wal file.
            try await Self.makeDatabase(at: path, rows: 50, checkpointing: .leftToReplicator)
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            let good = directory.appendingPathComponent("good.sqlite").path
            try await Self.makeDatabase(at: good, rows: 4)
            let fake = try Self.fakeLitestream(in: directory, "cp '\(good)' \"$out\"")
            try await Database.restore(from: .url("file:///backups/app"), to: path, replacing: true, litestream: fake)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
            #expect(try await Self.rowCount(path) == 4)
        }
    }

    @Test func cancellingTheTaskStopsLitestream() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("app.sqlite").path
            // A restore that would take two minutes; the test fails after 60 s when the kill does not work.
            let fake = try Self.fakeLitestream(in: directory, "exec sleep 120")
            let restore = Task {
                try await Database.restore(from: .url("file:///backups/app"), to: path, litestream: fake)
            }
            try await Task.sleep(for: .milliseconds(300))
            let cancelled = ContinuousClock.now
            restore.cancel()
            await #expect(throws: CancellationError.self) { try await restore.value }
            #expect(ContinuousClock.now - cancelled < .seconds(60))
            #expect(!FileManager.default.fileExists(atPath: path))
            let leftovers = try Self.leftovers(in: directory, keeping: [])
            #expect(leftovers == [])
        }
    }

    // MARK: The real litestream

    /// Runs `litestream replicate -once` with `configuration`: one sync of the database to its replica.
    static func replicateOnce(_ litestream: String, configuration: String) throws {
        let status = try TestProcess(litestream, ["replicate", "-once", "-config", configuration], capture: false)
            .finish().status
        try #require(status == 0)
    }

    @Test(.enabled(if: litestream != nil, "no litestream: run scripts/replication-test, or set BINDERY_LITESTREAM"))
    func restoresTheLatestOrAPointInTimeThenMigratesAndOpens() async throws {
        let litestream = try #require(Self.litestream)
        try await DatabaseTestSupport.withDirectory { directory in
            let live = directory.appendingPathComponent("live.sqlite").path
            let replica = directory.appendingPathComponent("replica", isDirectory: true).path
            let configuration = directory.appendingPathComponent("litestream.yml").path
            try Data(
                """
                dbs:
                  - path: \(live)
                    replica:
                      url: file://\(replica)

                """.utf8
            ).write(to: URL(fileURLWithPath: configuration))

            let db = try Database(path: live, options: Database.Options(checkpointing: .leftToReplicator))
            try await Self.addRows(db, upTo: 10)
            try Self.replicateOnce(litestream, configuration: configuration)
            let afterTen = Date()
            try await Task.sleep(for: .milliseconds(1100))
            try await Self.addRows(db, upTo: 25)
            try Self.replicateOnce(litestream, configuration: configuration)
            try await db.close()

            // The latest, from the replica URL; then migrated and opened as usual.
            let latest = directory.appendingPathComponent("latest.sqlite").path
            try await Database.restore(from: .url("file://\(replica)"), to: latest, litestream: litestream)
            let restored = try Database(path: latest, options: Database.Options(checkpointing: .leftToReplicator))
            var migrator = Migrator()
            migrator.register("labels") { conn in try conn.execute(script: "CREATE TABLE labels(name TEXT)") }
            try await migrator.migrate(restored)
            let (rows, labels) = try await restored.read { conn in
                (
                    try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM items"),
                    try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM labels")
                )
            }
            #expect(rows == 25)
            #expect(labels == 0)
            try await restored.close()

            // As it was after the first ten rows, through the configuration file.
            let earlier = directory.appendingPathComponent("earlier.sqlite").path
            try await Database.restore(
                from: .configuration(path: configuration, database: live), to: earlier, at: afterTen,
                litestream: litestream)
            #expect(try await Self.rowCount(earlier) == 10)

            // Nothing from before the first backup: Litestream's own error, with its message.
            let tooEarly = directory.appendingPathComponent("too-early.sqlite").path
            do {
                try await Database.restore(
                    from: .url("file://\(replica)"), to: tooEarly, at: Date(timeIntervalSince1970: 0),
                    litestream: litestream)
                Issue.record("a restore from 1970 succeeded")
            } catch let Database.RestoreError.litestreamFailed(status, output) {
                #expect(status != 0)
                #expect(output.contains("timestamp"))
            }
            #expect(!FileManager.default.fileExists(atPath: tooEarly))

            // Nothing over an existing database, and nothing from an empty replica.
            await #expect(throws: Database.RestoreError.databaseExists(latest)) {
                try await Database.restore(from: .url("file://\(replica)"), to: latest, litestream: litestream)
            }
            let empty = Database.ReplicaSource.url("file://\(directory.path)/empty-replica")
            await #expect(throws: Database.RestoreError.noBackup(empty)) {
                try await Database.restore(
                    from: empty, to: directory.appendingPathComponent("none.sqlite").path, litestream: litestream)
            }
        }
    }
}
