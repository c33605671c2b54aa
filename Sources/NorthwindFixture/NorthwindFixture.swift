import CSQLite
import Foundation

/// The Northwind sample database that the tests and `bindery-bench` read, built from the compressed
/// SQL dump the repository carries (`Tests/Fixtures/northwind.sql.gz`; its README says what it holds
/// and where it comes from).
///
/// The dump is expanded once per process into a SQLite file in a temporary folder of its own, which
/// is removed when the process exits. Callers open that file read-only or copy it; they never write
/// to it, since every caller in the process shares it.
///
/// ```swift
/// let path = try NorthwindFixture.databasePath()
/// let conn = try Connection(path: path, options: .init(readOnly: true))
/// ```
public enum NorthwindFixture {
    /// Why the fixture could not be expanded.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What went wrong, with the paths involved.
        public let description: String
    }

    /// The compressed dump inside the repository: `Tests/Fixtures/northwind.sql.gz` from the package
    /// root, found from this source file's own path so that it works from any working directory.
    public static let compressedPath: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // NorthwindFixture
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()  // the package root
        .appendingPathComponent("Tests/Fixtures/northwind.sql.gz")
        .standardizedFileURL.path

    /// Rows the fixture holds, table by table, as the tests expect them.
    public static let rowCounts: [String: Int] = [
        "Categories": 8, "Customers": 93, "Employees": 9, "EmployeeTerritories": 49,
        "Order Details": 18_932, "Orders": 16_704, "Products": 77, "Regions": 4, "Shippers": 3,
        "Suppliers": 29, "Territories": 53,
    ]

    /// The path of the expanded database: a SQLite file (rollback journal, 4,096-byte pages) with the
    /// dump's schema and rows. The first call in a process expands it; later calls return the same path.
    public static func databasePath() throws -> String {
        try expanded.get()
    }

    /// The outcome of the one expansion a process makes.
    private static let expanded: Result<String, Failure> = Result { try expand() }
        .mapError { $0 as? Failure ?? Failure(description: "\($0)") }

    /// The folder this process expands the fixture into, removed when the process exits.
    private static let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("bindery-northwind-\(ProcessInfo.processInfo.processIdentifier)-\(UUID())")

    /// Decompresses the dump with `gzip -dc` and runs it into a new database file.
    private static func expand() throws -> String {
        guard FileManager.default.isReadableFile(atPath: compressedPath) else {
            throw Failure(description: "\(compressedPath) is missing: the Northwind fixture is part of the repository")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: NorthwindFixture.directory) }
        let path = directory.appendingPathComponent("northwind.sqlite").path
        try load(script: try decompress(compressedPath), into: path)
        return path
    }

    /// The text of the gzip file at `path`, from the `gzip` command every Linux and macOS system has.
    private static func decompress(_ path: String) throws -> String {
        let outcome: Tool.Outcome
        do {
            outcome = try Tool.run("/usr/bin/env", ["gzip", "-dc", path])
        } catch {
            throw Failure(
                description:
                    "cannot start gzip to expand \(path) (\(error)); under valgrind, which keeps it from starting, "
                    + "expand it first (gzip -dc \(path) | sqlite3 /tmp/northwind.sqlite) and pass --northwind PATH")
        }
        guard outcome.status == 0, !outcome.output.isEmpty else {
            throw Failure(description: "gzip -dc \(path) failed with status \(outcome.status)")
        }
        return String(decoding: outcome.output, as: UTF8.self)
    }

    /// Runs `script` (the dump, which is one transaction) into a new database at `path`.
    private static func load(script: String, into path: String) throws {
        // This may be the process's first use of SQLite, which initializes it: turn its memory statistics
        // off first, as Bindery's first connection does. Were they left on, a process-wide mutex would be
        // taken on every allocation for the rest of the process, and the bench would time both of its
        // sides (about 460 instructions a row inserted) unlike any Bindery app.
        _ = bindery_disable_memory_statistics()
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            throw Failure(description: "cannot create \(path)")
        }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, script, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "code \(code)"
            throw Failure(description: "loading the Northwind dump into \(path) failed: \(text)")
        }
    }
}
