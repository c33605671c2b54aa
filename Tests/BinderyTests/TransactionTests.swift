import Foundation
import Testing

@testable import Bindery

@Suite struct TransactionTests {
    /// An error thrown by test bodies to make a transaction roll back.
    private struct Boom: Error, Equatable {
        var tag: String
    }

    // MARK: Helpers

    private func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(x INTEGER PRIMARY KEY)")
        return conn
    }

    private func insert(_ conn: Connection, _ x: Int) throws {
        try conn.execute("INSERT INTO t(x) VALUES (?)", arguments: [.integer(Int64(x))])
    }

    private func values(_ conn: Connection) throws -> [Int] {
        try conn.rows("SELECT x FROM t ORDER BY x", arguments: []).map { try $0[0] as Int }
    }

    // MARK: Commit and rollback

    @Test func commitsWhenTheBodyReturns() throws {
        try TableTFile.with { path in
            let conn = try Connection(path: path)
            let result = try conn.transaction { conn in
                try insert(conn, 1)
                try insert(conn, 2)
                return "done"
            }
            #expect(result == "done")
            #expect(!conn.isInTransaction)
            // Another connection sees the rows: they were committed.
            let other = try Connection(path: path)
            #expect(try values(other) == [1, 2])
        }
    }

    @Test func isInTransactionOnlyInsideTheBody() throws {
        let conn = try makeConnection()
        #expect(!conn.isInTransaction)
        try conn.transaction { conn in
            #expect(conn.isInTransaction)
            try conn.transaction { inner in
                #expect(inner.isInTransaction)
            }
            #expect(conn.isInTransaction)
        }
        #expect(!conn.isInTransaction)
    }

    @Test func throwingBodyLeavesNoTrace() throws {
        let conn = try makeConnection()
        try insert(conn, 1)
        let error = try #require(throws: Boom.self) {
            try conn.transaction { conn in
                try insert(conn, 2)
                try conn.execute("UPDATE t SET x = x + 100", arguments: [])
                try conn.execute(script: "CREATE TABLE made_inside(y)")
                throw Boom(tag: "body")
            }
        }
        #expect(error == Boom(tag: "body"))
        #expect(!conn.isInTransaction)
        #expect(try values(conn) == [1])
        let tables = try conn.rows("SELECT name FROM sqlite_schema WHERE name = 'made_inside'", arguments: [])
        #expect(tables.isEmpty)
    }

    @Test func sqliteErrorInTheBodyRollsBackEarlierWrites() throws {
        let conn = try makeConnection()
        let error = try #require(throws: SQLiteError.self) {
            try conn.transaction(.immediate) { conn in
                try insert(conn, 1)
                try insert(conn, 2)
                try insert(conn, 1)  // PRIMARY KEY violation
            }
        }
        #expect(error.code == .constraint)
        #expect(!conn.isInTransaction)
        #expect(try values(conn).isEmpty)
    }

    @Test func aConnectionIsUsableAfterARolledBackTransaction() throws {
        let conn = try makeConnection()
        #expect(throws: Boom.self) {
            try conn.transaction { conn in
                try insert(conn, 1)
                throw Boom(tag: "first")
            }
        }
        try conn.transaction { conn in try insert(conn, 2) }
        #expect(try values(conn) == [2])
    }

    // MARK: Savepoints

    @Test func nestedSavepointRollsBackAloneWhileTheOuterCommits() throws {
        let conn = try makeConnection()
        try conn.transaction { conn in
            try insert(conn, 1)
            let error = try #require(throws: Boom.self) {
                try conn.transaction { conn in
                    try insert(conn, 2)
                    try conn.execute("UPDATE t SET x = 10 WHERE x = 1", arguments: [])
                    throw Boom(tag: "inner")
                }
            }
            #expect(error.tag == "inner")
            #expect(conn.isInTransaction)
            #expect(try values(conn) == [1])
            try insert(conn, 3)
        }
        #expect(!conn.isInTransaction)
        #expect(try values(conn) == [1, 3])
    }

    @Test func innerCommitThenOuterThrowRollsBackBoth() throws {
        let conn = try makeConnection()
        #expect(throws: Boom.self) {
            try conn.transaction { conn in
                try insert(conn, 1)
                try conn.transaction { conn in
                    try insert(conn, 2)
                }
                #expect(try values(conn) == [1, 2])
                throw Boom(tag: "outer")
            }
        }
        #expect(!conn.isInTransaction)
        #expect(try values(conn).isEmpty)
    }

    @Test func threeLevelsRollBackFromTheMiddle() throws {
        let conn = try makeConnection()
        try conn.transaction { conn in
            try insert(conn, 1)
            #expect(throws: Boom.self) {
                try conn.transaction { conn in
                    try insert(conn, 2)
                    try conn.transaction { conn in
                        try insert(conn, 3)
                    }
                    throw Boom(tag: "middle")
                }
            }
            try conn.transaction { conn in
                try insert(conn, 4)
                try conn.transaction { conn in
                    try insert(conn, 5)
                }
            }
        }
        #expect(try values(conn) == [1, 4, 5])
    }

    @Test func siblingSavepointsAreIndependent() throws {
        let conn = try makeConnection()
        try conn.transaction { conn in
            for x in 1...6 {
                do {
                    try conn.transaction { conn in
                        try insert(conn, x)
                        if x.isMultiple(of: 2) {
                            throw Boom(tag: "even")
                        }
                    }
                } catch is Boom {
                    continue
                }
            }
        }
        #expect(try values(conn) == [1, 3, 5])
    }

    @Test func savepointCaughtSQLiteErrorLetsTheOuterCommit() throws {
        let conn = try makeConnection()
        try conn.transaction { conn in
            try insert(conn, 1)
            let error = try #require(throws: SQLiteError.self) {
                try conn.transaction { conn in
                    try insert(conn, 2)
                    try insert(conn, 1)
                }
            }
            #expect(error.code == .constraint)
            try insert(conn, 3)
        }
        #expect(try values(conn) == [1, 3])
    }

    // MARK: Kinds

    @Test(arguments: [Connection.TransactionKind.deferred, .immediate, .exclusive])
    func everyKindCommitsAndRollsBack(kind: Connection.TransactionKind) throws {
        let conn = try makeConnection()
        try conn.transaction(kind) { conn in
            #expect(conn.isInTransaction)
            try insert(conn, 1)
        }
        #expect(throws: Boom.self) {
            try conn.transaction(kind) { conn in
                try insert(conn, 2)
                throw Boom(tag: "\(kind)")
            }
        }
        // Inside a transaction, any kind becomes a savepoint.
        try conn.transaction(.deferred) { conn in
            try conn.transaction(kind) { conn in
                try insert(conn, 3)
            }
        }
        #expect(!conn.isInTransaction)
        #expect(try values(conn) == [1, 3])
    }

    @Test func immediateTakesTheWriteLockAtOnce() throws {
        try TableTFile.with { path in
            let conn = try Connection(path: path)
            let other = try Connection(path: path, options: Connection.Options(busyTimeout: 0))
            try conn.transaction(.immediate) { _ in
                // No statement ran yet, but the write lock is held: another writer is refused.
                let error = try #require(throws: SQLiteError.self) {
                    try other.execute(script: "BEGIN IMMEDIATE")
                }
                #expect(error.code == .busy)
                // Readers are still welcome.
                #expect(try values(other).isEmpty)
            }
            try other.execute(script: "BEGIN IMMEDIATE; INSERT INTO t VALUES (1); COMMIT;")
            #expect(try values(conn) == [1])
        }
    }

    @Test func exclusiveKeepsReadersOut() throws {
        try TableTFile.with { path in
            let conn = try Connection(path: path)
            let other = try Connection(path: path, options: Connection.Options(busyTimeout: 0))
            try conn.transaction(.exclusive) { conn in
                try insert(conn, 1)
                let error = try #require(throws: SQLiteError.self) {
                    try values(other)
                }
                #expect(error.code == .busy)
            }
            #expect(try values(other) == [1])
        }
    }

    @Test func deferredTakesNoLockUntilNeeded() throws {
        try TableTFile.with { path in
            let conn = try Connection(path: path)
            let other = try Connection(path: path, options: Connection.Options(busyTimeout: 0))
            try conn.transaction(.deferred) { _ in
                try other.execute(script: "BEGIN IMMEDIATE; INSERT INTO t VALUES (7); COMMIT;")
            }
            #expect(try values(conn) == [7])
        }
    }

    @Test func transactionOnAClosedConnectionThrowsMisuse() throws {
        let conn = try makeConnection()
        conn.close()
        var ran = false
        let error = try #require(throws: SQLiteError.self) {
            try conn.transaction { _ in ran = true }
        }
        #expect(error.code == .misuse)
        #expect(!ran)
    }
}
