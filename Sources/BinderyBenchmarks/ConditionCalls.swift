import Bindery
import CSQLite

/// The calls an app makes with a condition it writes (`exists(_:where:)`, `count(_:where:)`,
/// `fetchOne(_:where:)`, a request's `fetchOne`, `delete(_:where:)`), each 100,000 times in one
/// transaction with the same condition and a new value each time, beside a C loop re-binding the
/// statement Bindery runs. Runs after ``RecordCalls``, on its tables: `ten` holds keys 0 to 99,999.
enum ConditionCalls {
    static let count = RecordCalls.count
    /// The keys the look-ups ask for: the second half of the stored keys, then as many unstored.
    static let keys = (count / 2)..<(count / 2 + count)

    // The statements Bindery runs for each call, which the C loops run too.
    static let existsSQL = #"SELECT EXISTS(SELECT 1 FROM "ten" WHERE c0 = ?)"#
    static let countSQL = #"SELECT count(*) FROM "ten" WHERE c0 = ?"#
    static let fetchOneSQL = #"SELECT * FROM "ten" WHERE c0 = ? LIMIT 1"#
    static let requestSQL = #"SELECT "ten".* FROM "ten" WHERE c0 = ? LIMIT 1"#
    static let deleteSQL = #"DELETE FROM "ten" WHERE c0 = ?"#

    static func run(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        try compareInt(
            benchmark, "exists(_:where:) 100,000 keys, half of them stored", sql: existsSQL, raw,
            bindery: existsWithBindery(conn))
        try compareInt(
            benchmark, "count(_:where:) 100,000 keys, half of them stored", sql: countSQL, raw,
            bindery: countWithBindery(conn))
        try compareRecords(
            benchmark, "fetchOne(_:where:) 100,000 keys, half of them stored", sql: fetchOneSQL, raw,
            bindery: fetchOneWithBindery(conn))
        try compareRecords(
            benchmark, "fetchOne(request) 100,000 keys, half of them stored", sql: requestSQL, raw,
            bindery: requestWithBindery(conn))
        let statement = try raw.prepare(deleteSQL)
        defer { sqlite3_finalize(statement) }
        // Each run deletes half of the keys it asks for, then puts them back with one statement, the
        // same on both sides.
        try RecordCalls.compareWrite(
            benchmark, "delete(_:where:) 100,000 keys, half of them stored", goal: 1.5, sql: deleteSQL, table: "ten",
            conn, raw,
            c: { statement, _ in
                let deleted = try deleteWithC(raw, statement)
                try raw.exec("DELETE FROM ten; \(RecordCalls.refill)")
                return deleted
            },
            bindery: { _ in
                let deleted = try deleteWithBindery(conn)
                try conn.execute(script: "DELETE FROM ten; \(RecordCalls.refill)")
                return deleted
            })
    }

    /// Compares a line whose C loop counts the rows whose single INTEGER column is not 0.
    static func compareInt(
        _ benchmark: Benchmark, _ name: String, sql: String, _ raw: RawDatabase,
        bindery: @autoclosure () -> () throws -> Int
    ) throws {
        let statement = try raw.prepare(sql)
        defer { sqlite3_finalize(statement) }
        try RecordCalls.compare(
            benchmark, name, goal: 1.5, c: { try nonZeroWithC(raw, statement) }, bindery: bindery())
    }

    /// Compares a line whose C loop reads the record each key finds.
    static func compareRecords(
        _ benchmark: Benchmark, _ name: String, sql: String, _ raw: RawDatabase,
        bindery: @autoclosure () -> () throws -> [TenIntegers]
    ) throws {
        let statement = try raw.prepare(sql)
        defer { sqlite3_finalize(statement) }
        try RecordCalls.compare(
            benchmark, name, goal: 1.5, c: { try recordsWithC(raw, statement) }, bindery: bindery())
    }

    // MARK: The loops

    /// Runs `statement` for each key; returns how many gave a first column other than 0.
    @inline(never)
    static func nonZeroWithC(_ raw: RawDatabase, _ statement: OpaquePointer) throws -> Int {
        try raw.exec("BEGIN IMMEDIATE")
        var found = 0
        for n in keys {
            sqlite3_bind_int64(statement, 1, Int64(n))
            guard sqlite3_step(statement) == SQLITE_ROW else {
                sqlite3_reset(statement)
                throw RecordCalls.failure(raw)
            }
            if sqlite3_column_int64(statement, 0) != 0 {
                found += 1
            }
            sqlite3_reset(statement)
        }
        try raw.exec("COMMIT")
        return found
    }

    /// Runs `statement` for each key of `keys` (``keys`` unless given); returns the records found.
    @inline(never)
    static func recordsWithC(_ raw: RawDatabase, _ statement: OpaquePointer, keys: Range<Int> = keys) throws
        -> [TenIntegers]
    {
        try raw.exec("BEGIN IMMEDIATE")
        var found: [TenIntegers] = []
        found.reserveCapacity(keys.count)
        for n in keys {
            sqlite3_bind_int64(statement, 1, Int64(n))
            var code = sqlite3_step(statement)
            if code == SQLITE_ROW {
                found.append(IntegerRecords.read(statement))
                code = sqlite3_step(statement)
            }
            sqlite3_reset(statement)
            guard code == SQLITE_DONE else { throw RecordCalls.failure(raw) }
        }
        try raw.exec("COMMIT")
        return found
    }

    /// Deletes each key; returns how many rows went.
    @inline(never)
    static func deleteWithC(_ raw: RawDatabase, _ statement: OpaquePointer) throws -> Int {
        try raw.exec("BEGIN IMMEDIATE")
        var deleted = 0
        for n in keys {
            sqlite3_bind_int64(statement, 1, Int64(n))
            let code = sqlite3_step(statement)
            sqlite3_reset(statement)
            guard code == SQLITE_DONE else { throw RecordCalls.failure(raw) }
            deleted += Int(sqlite3_changes64(raw.handle))
        }
        try raw.exec("COMMIT")
        return deleted
    }

    static func existsWithBindery(_ conn: Connection) -> () throws -> Int {
        { try countFound(conn) { conn, n in try conn.exists(TenIntegers.self, where: "c0 = \(n)") ? 1 : 0 } }
    }

    static func countWithBindery(_ conn: Connection) -> () throws -> Int {
        { try countFound(conn) { conn, n in try conn.count(TenIntegers.self, where: "c0 = \(n)") } }
    }

    static func fetchOneWithBindery(_ conn: Connection) -> () throws -> [TenIntegers] {
        { try fetchFound(conn) { conn, n in try conn.fetchOne(TenIntegers.self, where: "c0 = \(n)") } }
    }

    static func requestWithBindery(_ conn: Connection) -> () throws -> [TenIntegers] {
        { try fetchFound(conn) { conn, n in try conn.fetchOne(TenIntegers.filter("c0 = \(n)")) } }
    }

    @inline(never)
    static func deleteWithBindery(_ conn: Connection) throws -> Int {
        try countFound(conn) { conn, n in try conn.delete(TenIntegers.self, where: "c0 = \(n)") }
    }

    /// Sums what `call` gives for each key, in one transaction.
    @inline(never)
    static func countFound(_ conn: Connection, _ call: (Connection, Int) throws -> Int) throws -> Int {
        var found = 0
        try conn.transaction(.immediate) { conn in
            for n in keys {
                found += try call(conn, n)
            }
        }
        return found
    }

    /// The records `call` finds for the keys, in one transaction.
    @inline(never)
    static func fetchFound(_ conn: Connection, _ call: (Connection, Int) throws -> TenIntegers?) throws
        -> [TenIntegers]
    {
        var found: [TenIntegers] = []
        found.reserveCapacity(count / 2)
        try conn.transaction(.immediate) { conn in
            for n in keys {
                if let record = try call(conn, n) {
                    found.append(record)
                }
            }
        }
        return found
    }
}
