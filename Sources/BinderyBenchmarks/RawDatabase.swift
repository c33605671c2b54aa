import CSQLite

/// A bare `sqlite3` handle for the C API side of each comparison.
final class RawDatabase {
    let handle: OpaquePointer

    init(path: String, readOnly: Bool = false) throws {
        var db: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        guard sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            sqlite3_close(db)
            throw BenchmarkError.sqlite("cannot open \(path)")
        }
        handle = db
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
            let statement
        else {
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(handle)))
        }
        return statement
    }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(handle)))
        }
    }
}

/// A benchmark that could not run, or whose two sides disagreed.
enum BenchmarkError: Error, CustomStringConvertible {
    case sqlite(String)
    case mismatch(String)

    var description: String {
        switch self {
        case .sqlite(let message): return "SQLite: \(message)"
        case .mismatch(let message): return "results differ: \(message)"
        }
    }
}
