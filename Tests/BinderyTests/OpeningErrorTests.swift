import Foundation
import Testing

@testable import Bindery

#if canImport(Glibc)
    import Glibc
#endif

/// Opening errors that say what to do: a missing template, a WAL database in a folder the process
/// cannot write to (and reading such a file with `readOnly: true`, where SQLite allows it).
@Suite struct OpeningErrorTests {
    @Test func aMissingTemplateSaysItIsTheTemplate() async throws {
        try await ReliabilityTestSupport.withDirectory { directory in
            let template = directory.appendingPathComponent("missing-template.sqlite").path
            let path = directory.appendingPathComponent("app.sqlite").path
            do {
                _ = try Database(path: path, options: Database.Options(templatePath: template))
                Issue.record("a missing template opened")
            } catch let error as SQLiteError {
                #expect(error.code == .cannotOpen)
                #expect(
                    error.message
                        == "the template database \(template) (Database.Options.templatePath) does not exist; "
                        + "nothing was created at \(path)")
            }
            #expect(!FileManager.default.fileExists(atPath: path))
            do {
                _ = try Database(path: path, options: Database.Options(templatePath: directory.path))
                Issue.record("a folder as template opened")
            } catch let error as SQLiteError {
                #expect(error.message.contains("is a folder, not a file"))
            }
        }
    }

    #if os(Linux)
        /// A WAL database left closed (no `-wal`, no `-shm`) in a folder this thread cannot write to:
        /// read-write it cannot be read, and the error says the folder must be writable; read-only it
        /// opens, as immutable, and reads every row.
        @Test func aWALDatabaseInAReadOnlyFolder() async throws {
            try await ReliabilityTestSupport.withDirectory { directory in
                let path = directory.appendingPathComponent("wal.sqlite").path
                try Self.makeWALDatabase(at: path, rows: 3, keepOpen: false)
                #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
                try Self.makeReadOnly(directory, database: path)
                defer { chmod(directory.path, 0o755) }

                let (readOnlyDatabase, readOnlyConnection) = try Self.unprivileged {
                    try #require(!Self.canCreateFile(in: directory), "the folder's permissions are not enforced")
                    for open in Self.readWriteOpeners {
                        do {
                            try open(path)
                            Issue.record("a WAL database in a read-only folder opened read-write")
                        } catch let error as SQLiteError {
                            #expect(error.code == .readOnly)
                            #expect(error.extendedCode == Connection.readOnlyDirectory)
                            #expect(
                                error.message.contains(
                                    "SQLite must create \(path)-wal and \(path)-shm beside it to read it: the folder "
                                        + "\(directory.path) must be writable (or open the database with readOnly: true"
                                ))
                        }
                    }
                    let connection = try Connection(path: path, options: Connection.Options(readOnly: true))
                    let database = try Database(path: path, options: Database.Options(readOnly: true))
                    return (database, connection)
                }
                #expect(try readOnlyConnection.fetchAll(Int.self, sql: "SELECT n FROM items ORDER BY n") == [1, 2, 3])
                #expect(throws: SQLiteError.self) { try readOnlyConnection.execute("DELETE FROM items") }
                readOnlyConnection.close()
                #expect(
                    try await readOnlyDatabase.fetchAll(Int.self, sql: "SELECT n FROM items ORDER BY n") == [1, 2, 3])
                try await readOnlyDatabase.close()
            }
        }

        /// A WAL database whose last transactions are still in its `-wal` file, without a `-shm`, in a
        /// folder this thread cannot write to: reading it would need a `-shm`, and the error says so
        /// rather than reading the file without the transactions in its `-wal`.
        @Test func aWALDatabaseWithItsLogInAReadOnlyFolder() async throws {
            try await ReliabilityTestSupport.withDirectory { directory in
                let source = directory.appendingPathComponent("source")
                let copy = directory.appendingPathComponent("copy")
                try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
                try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
                let path = copy.appendingPathComponent("wal.sqlite").path
                let writer = try Self.makeWALDatabase(
                    at: source.appendingPathComponent("wal.sqlite").path, rows: 2, keepOpen: true)
                // A copy of the file and its log as a crash would leave them, without the -shm.
                for suffix in ["", "-wal"] {
                    try FileManager.default.copyItem(
                        atPath: source.appendingPathComponent("wal.sqlite").path + suffix, toPath: path + suffix)
                }
                writer?.close()
                try Self.makeReadOnly(copy, database: path)
                defer { chmod(copy.path, 0o755) }
                try Self.unprivileged {
                    try #require(!Self.canCreateFile(in: copy), "the folder's permissions are not enforced")
                    do {
                        _ = try Connection(path: path, options: Connection.Options(readOnly: true))
                        Issue.record("a WAL database without its -shm opened")
                    } catch let error as SQLiteError {
                        #expect(error.code == .cannotOpen)
                        #expect(error.message.contains("without its -shm file, which it cannot create: the folder"))
                    }
                }
            }
        }

        /// Creating a database in a folder that cannot be written to says so.
        @Test func creatingADatabaseInAReadOnlyFolder() async throws {
            try await ReliabilityTestSupport.withDirectory { directory in
                chmod(directory.path, 0o555)
                defer { chmod(directory.path, 0o755) }
                let path = directory.appendingPathComponent("new.sqlite").path
                try Self.unprivileged {
                    try #require(!Self.canCreateFile(in: directory), "the folder's permissions are not enforced")
                    do {
                        _ = try Connection(path: path)
                        Issue.record("a database was created in a read-only folder")
                    } catch let error as SQLiteError {
                        #expect(error.code == .cannotOpen)
                        #expect(
                            error.message.hasSuffix(
                                "(no database exists at \(path) and none can be created there: the folder "
                                    + "\(directory.path) must exist and be writable)"))
                    }
                }
            }
        }

        /// A database file this thread cannot write, in a folder it can: read-write it would open
        /// read-only without a word and fail at the first write, so opening says the file is read-only;
        /// read-only it opens and reads.
        @Test func aReadOnlyDatabaseFile() async throws {
            try await ReliabilityTestSupport.withDirectory { directory in
                let path = directory.appendingPathComponent("locked.sqlite").path
                let conn = try Connection(path: path)
                try conn.execute(script: "CREATE TABLE items(n INTEGER NOT NULL); INSERT INTO items VALUES (1)")
                conn.close()
                #expect(chmod(path, 0o444) == 0)
                #expect(chmod(directory.path, 0o777) == 0)
                defer { chmod(directory.path, 0o755) }
                let readOnly = try Self.unprivileged {
                    let descriptor = open(path, O_WRONLY)
                    if descriptor >= 0 { close(descriptor) }
                    try #require(descriptor < 0, "the file's permissions are not enforced")
                    for open in Self.readWriteOpeners {
                        do {
                            try open(path)
                            Issue.record("a read-only database file opened read-write")
                        } catch let error as SQLiteError {
                            #expect(error.code == .readOnly)
                            #expect(
                                error.message.contains(
                                    "the database file \(path) cannot be written by this process: make it writable, "
                                        + "or open the database with readOnly: true"))
                        }
                    }
                    return try Connection(path: path, options: Connection.Options(readOnly: true))
                }
                #expect(try readOnly.fetchAll(Int.self, sql: "SELECT n FROM items") == [1])
                readOnly.close()
            }
        }

        private static let readWriteOpeners: [@Sendable (String) throws -> Void] = [
            { path in _ = try Connection(path: path) },
            { path in _ = try Database(path: path) },
        ]

        /// Makes a WAL database with `rows` rows; returns its connection when `keepOpen`, else closes
        /// it (which removes the `-wal` and `-shm` files).
        @discardableResult
        private static func makeWALDatabase(at path: String, rows: Int, keepOpen: Bool) throws -> Connection? {
            let conn = try Connection(path: path)
            try conn.execute(script: "PRAGMA journal_mode = WAL; CREATE TABLE items(n INTEGER NOT NULL)")
            if keepOpen {
                // Nothing checkpointed: the rows stay in the -wal file.
                try conn.execute(script: "PRAGMA wal_autocheckpoint = 0")
            }
            for n in 1...rows {
                try conn.execute("INSERT INTO items(n) VALUES (\(n))")
            }
            guard keepOpen else {
                conn.close()
                return nil
            }
            return conn
        }

        /// Makes `directory` read-only (0555) and the database file in it writable by anyone, so that
        /// only the folder stands in the way.
        private static func makeReadOnly(_ directory: URL, database: String) throws {
            #expect(chmod(database, 0o666) == 0)
            #expect(chmod(directory.path, 0o555) == 0)
        }

        /// Whether this thread can create a file in `directory`.
        private static func canCreateFile(in directory: URL) -> Bool {
            let probe = directory.appendingPathComponent("probe-\(UUID().uuidString)").path
            let created = FileManager.default.createFile(atPath: probe, contents: Data())
            if created {
                try? FileManager.default.removeItem(atPath: probe)
            }
            return created
        }

        /// Runs `body` with permission checks in force on this thread. Root passes every permission
        /// check, so as root the thread's file-system user id becomes `nobody` for the duration
        /// (`setfsuid`, which changes only the calling thread, and drops root's file capabilities
        /// with it); `body` must not suspend.
        private static func unprivileged<T>(_ body: () throws -> T) throws -> T {
            guard geteuid() == 0 else { return try body() }
            typealias SetFileSystemUser = @convention(c) (UInt32) -> Int32
            let symbol = try #require(dlsym(nil, "setfsuid"), "setfsuid is not available")
            let setfsuid = unsafeBitCast(symbol, to: SetFileSystemUser.self)
            _ = setfsuid(65534)
            defer { _ = setfsuid(0) }
            return try body()
        }
    #endif
}
