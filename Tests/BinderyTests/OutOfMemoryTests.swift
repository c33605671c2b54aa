import CSQLite
import Foundation
import Testing

@testable import Bindery

/// SQLite running out of memory while it hands a TEXT or BLOB value over: the read throws
/// ``SQLiteError/Code/noMemory``, never returns empty text or bytes.
///
/// SQLite's heap limit is process-wide and works only with its memory statistics on, which Bindery
/// turns off: each test runs in a process of its own (an exit test) that initializes SQLite first, so
/// that the statistics stay on. A UTF-16 database makes `sqlite3_value_text` convert a 4 MB text to
/// UTF-8, and `zeroblob` makes `sqlite3_column_blob` allocate its bytes; a hard heap limit set just
/// before the read lets the statement step but leaves no room for that allocation.
@Suite struct OutOfMemoryTests {
    struct Line: Decodable {
        var text: String
    }

    struct MaybeLine: Decodable {
        var text: String?
    }

    struct Stamp: Decodable {
        var text: Date
    }

    struct Payload: Decodable {
        var bytes: Data
    }

    struct Nested: Decodable {
        var text: [String]
    }

    /// Exit codes of the child process, one per way it can fail.
    enum Failure: Int32 {
        case noStatistics = 2
        case readAsEmpty = 3
        case otherError = 4
        case notFailing = 5
    }

    /// In a child process: a UTF-16 in-memory database holding a 4 MB text in `t.text`, with SQLite's
    /// memory statistics on.
    static func makeConnection() throws -> Connection {
        // Initialized here, SQLite keeps its default (statistics on); Bindery's setting comes too late.
        sqlite3_initialize()
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                PRAGMA encoding = 'UTF-16le';
                CREATE TABLE t(text TEXT);
                INSERT INTO t VALUES (printf('%.*c', 4000000, 'a'));
                """)
        guard sqlite3_memory_used() > 0 else { exit(Failure.noStatistics.rawValue) }
        return conn
    }

    /// Runs `read` with a heap limit that leaves 12 MB: the 8 MB UTF-16 value fits, its 16 MB UTF-8
    /// conversion (or a 20 MB zeroblob) does not. Exits the child process unless `read` throws
    /// ``SQLiteError/Code/noMemory``; `isEmpty` tells whether a returned value was read as empty.
    static func expectNoMemory<T>(_ read: () throws -> T, isEmpty: (T) -> Bool) {
        sqlite3_hard_heap_limit64(sqlite3_memory_used() + 12_000_000)
        defer { sqlite3_hard_heap_limit64(0) }
        do {
            let value = try read()
            exit(isEmpty(value) ? Failure.readAsEmpty.rawValue : Failure.notFailing.rawValue)
        } catch let error as SQLiteError where error.code == .noMemory {
            return
        } catch {
            exit(Failure.otherError.rawValue)
        }
    }

    @Test func rowsThrowRatherThanReadEmptyTextOrBytes() async {
        await #expect(processExitsWith: .success) {
            let conn = try OutOfMemoryTests.makeConnection()
            OutOfMemoryTests.expectNoMemory({ try conn.rows("SELECT text FROM t", arguments: []) }) { rows in
                rows.first.map { (try? $0[0] as String) == "" } ?? false
            }
            OutOfMemoryTests.expectNoMemory({ try conn.rowCursor("SELECT text FROM t", arguments: []).next() }) { row in
                row.map { (try? $0[0] as String) == "" } ?? false
            }
            OutOfMemoryTests.expectNoMemory({ try conn.rows("SELECT zeroblob(20000000)", arguments: []) }) { rows in
                rows.first.map { (try? $0[0] as Data)?.isEmpty == true } ?? false
            }
            // Memory is back: the same reads succeed.
            let rows = try conn.rows("SELECT text FROM t", arguments: [])
            guard (try rows.first?[0] as String?)?.utf8.count == 4_000_000 else { exit(Failure.notFailing.rawValue) }
        }
    }

    @Test func decodingThrowsRatherThanReadEmptyTextOrBytes() async {
        await #expect(processExitsWith: .success) {
            let conn = try OutOfMemoryTests.makeConnection()
            // Cursors hand the first record over before stepping again (a later step would fail anyway).
            OutOfMemoryTests.expectNoMemory({ try conn.fetchCursor(Line.self, sql: "SELECT text FROM t").next() }) {
                $0?.text.isEmpty == true
            }
            OutOfMemoryTests.expectNoMemory({ try conn.fetchCursor(MaybeLine.self, sql: "SELECT text FROM t").next() })
            {
                $0?.text?.isEmpty == true
            }
            OutOfMemoryTests.expectNoMemory({ try conn.fetchCursor(String.self, sql: "SELECT text FROM t").next() }) {
                $0?.isEmpty == true
            }
            OutOfMemoryTests.expectNoMemory({ try conn.fetchCursor(Stamp.self, sql: "SELECT text FROM t").next() }) {
                _ in false
            }
            OutOfMemoryTests.expectNoMemory({ try conn.fetchCursor(Nested.self, sql: "SELECT text FROM t").next() }) {
                $0?.text.isEmpty == true
            }
            OutOfMemoryTests.expectNoMemory({
                try conn.fetchCursor(Payload.self, sql: "SELECT zeroblob(20000000) AS bytes").next()
            }) { $0?.bytes.isEmpty == true }
            OutOfMemoryTests.expectNoMemory({ try conn.fetchCursor(Data.self, sql: "SELECT zeroblob(20000000)").next() }
            ) {
                $0?.isEmpty == true
            }
            // Memory is back: the same read succeeds.
            guard try conn.fetchCursor(Line.self, sql: "SELECT text FROM t").next()?.text.utf8.count == 4_000_000 else {
                exit(Failure.notFailing.rawValue)
            }
        }
    }

    @Test func anEmptyBlobAndEmptyTextAreStillEmpty() throws {
        let conn = try Connection.inMemory()
        let row = try #require(try conn.rows("SELECT x'', '', zeroblob(0)", arguments: []).first)
        #expect(try row[0] as Data == Data())
        #expect(try row[1] as String == "")
        #expect(try row[2] as Data == Data())
        #expect(try conn.fetchAll(Data.self, sql: "SELECT x''") == [Data()])
        #expect(try conn.fetchAll(String.self, sql: "SELECT ''") == [""])
        #expect(try conn.fetchOne(Payload.self, sql: "SELECT x'' AS bytes")?.bytes == Data())
    }
}
