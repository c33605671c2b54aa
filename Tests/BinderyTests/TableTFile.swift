import Foundation

@testable import Bindery

/// A database file holding `t(x INTEGER PRIMARY KEY)`, in a fresh directory removed afterwards: the
/// tests of transactions and scripts read what was committed through a connection of their own.
enum TableTFile {
    /// Runs `body` with the path of a new file holding the empty table `t`.
    static func with(_ body: (String) throws -> Void) throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(try makeFile(in: directory))
    }

    /// Runs the asynchronous `body` with the path of a new file holding the empty table `t`.
    static func with(_ body: (String) async throws -> Void) async throws {
        let directory = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try makeFile(in: directory))
    }

    /// The rows of `t` in the file at `path` as committed, read by a connection of their own.
    static func committed(_ path: String) throws -> [Int] {
        try Connection(path: path).fetchAll(Int.self, sql: "SELECT x FROM t ORDER BY x")
    }

    private static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-table-t-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private static func makeFile(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("db.sqlite").path
        let setup = try Connection(path: path)
        try setup.execute(script: "CREATE TABLE t(x INTEGER PRIMARY KEY)")
        setup.close()
        return path
    }
}

/// The ``SQLiteError`` that `body` throws; nil when it throws nothing or another error.
func thrownSQLiteError(_ body: () throws -> Void) -> SQLiteError? {
    do {
        try body()
        return nil
    } catch {
        return error as? SQLiteError
    }
}
