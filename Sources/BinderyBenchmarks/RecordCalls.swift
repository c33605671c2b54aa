import Bindery
import CSQLite
import Foundation

/// A record whose INTEGER PRIMARY KEY SQLite assigns: inserted with a nil `id`, it comes back with the
/// rowid. Its nine other columns have no defaults, so nothing but the rowid can come back, and it is
/// ``StoredAsGiven``: `insert` returns it as given with the rowid set, as the C loop does.
struct NumberedIntegers: Record, StoredAsGiven, Equatable {
    static let tableName = "numbered"
    var id: Int?
    var c1: Int
    var c2: Int
    var c3: Int
    var c4: Int
    var c5: Int
    var c6: Int
    var c7: Int
    var c8: Int
    var c9: Int

    init(id: Int?, _ n: Int) {
        self.id = id
        (c1, c2, c3, c4, c5, c6, c7, c8, c9) = (n, n &* 3, n &+ 7, -n, n / 2, n % 97, n << 3, 42, n &* n)
    }

    /// The same record, from its ``DecodedIntegers`` twin.
    init(_ decoded: DecodedIntegers) {
        id = decoded.id
        (c1, c2, c3, c4, c5, c6, c7, c8, c9) =
            (decoded.c1, decoded.c2, decoded.c3, decoded.c4, decoded.c5, decoded.c6, decoded.c7, decoded.c8, decoded.c9)
    }

    mutating func didInsert(rowID: Int64) {
        id = Int(rowID)
    }
}

/// ``NumberedIntegers`` as a plain ``Record``, not ``StoredAsGiven``: `insert` decodes the stored row
/// to return it.
struct DecodedIntegers: Record, Equatable {
    static let tableName = "numbered"
    var id: Int?
    var c1: Int
    var c2: Int
    var c3: Int
    var c4: Int
    var c5: Int
    var c6: Int
    var c7: Int
    var c8: Int
    var c9: Int

    init(id: Int?, _ n: Int) {
        let record = NumberedIntegers(id: id, n)
        self.id = id
        (c1, c2, c3, c4, c5, c6, c7, c8, c9) =
            (record.c1, record.c2, record.c3, record.c4, record.c5, record.c6, record.c7, record.c8, record.c9)
    }
}

/// A record that leaves a column with a default (`c9`) nil, and its id: its insert must read the row
/// back to learn both.
struct DefaultedIntegers: Record, Equatable {
    static let tableName = "defaulted"
    var id: Int?
    var c1: Int
    var c2: Int
    var c3: Int
    var c4: Int
    var c5: Int
    var c6: Int
    var c7: Int
    var c8: Int
    var c9: Int?

    init(id: Int?, _ n: Int, c9: Int?) {
        self.id = id
        (c1, c2, c3, c4, c5, c6, c7, c8) = (n, n &* 3, n &+ 7, -n, n / 2, n % 97, n << 3, 42)
        self.c9 = c9
    }
}

/// The calls an app makes one record at a time (`insert`, `update`, `upsert`, `delete(_:id:)`,
/// `find(_:id:)`, `exists(_:id:)`), each 100,000 times in one transaction, beside a C loop running the
/// same statement re-bound in one transaction. Each side's loop is a function of its own, so that
/// callgrind can compare the two.
enum RecordCalls {
    static let count = 100_000
    static let numberedSchema =
        "CREATE TABLE numbered (id INTEGER PRIMARY KEY, c1 INTEGER NOT NULL, c2 INTEGER NOT NULL, "
        + "c3 INTEGER NOT NULL, c4 INTEGER NOT NULL, c5 INTEGER NOT NULL, c6 INTEGER NOT NULL, c7 INTEGER NOT NULL, "
        + "c8 INTEGER NOT NULL, c9 INTEGER NOT NULL)"
    static let defaultedSchema =
        "CREATE TABLE defaulted (id INTEGER PRIMARY KEY, c1 INTEGER NOT NULL, c2 INTEGER NOT NULL, "
        + "c3 INTEGER NOT NULL, c4 INTEGER NOT NULL, c5 INTEGER NOT NULL, c6 INTEGER NOT NULL, c7 INTEGER NOT NULL, "
        + "c8 INTEGER NOT NULL, c9 INTEGER NOT NULL DEFAULT 1)"
    /// The records of `ten` as every line after the inserts starts with, kept to restore them.
    static let seedSchema = IntegerRecords.schema.replacingOccurrences(of: "TABLE ten", with: "TABLE seed")

    // The statements Bindery runs for each call, which the C loops run too.
    static let insertNumberedSQL =
        #"INSERT INTO "numbered" ("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9") "#
        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    static let insertDefaultedSQL =
        #"INSERT INTO "defaulted" ("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8") "#
        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *"
    static let updateSQL =
        #"UPDATE "ten" SET "c1" = ?, "c2" = ?, "c3" = ?, "c4" = ?, "c5" = ?, "c6" = ?, "c7" = ?, "c8" = ?, "#
        + #""c9" = ? WHERE "c0" = ?"#
    static let upsertSQL =
        #"INSERT INTO "ten" ("c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9") "#
        + #"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT("c0") DO UPDATE SET "c1" = excluded."c1", "#
        + #""c2" = excluded."c2", "c3" = excluded."c3", "c4" = excluded."c4", "c5" = excluded."c5", "#
        + #""c6" = excluded."c6", "c7" = excluded."c7", "c8" = excluded."c8", "c9" = excluded."c9" RETURNING *"#
    static let deleteSQL = #"DELETE FROM "ten" WHERE "c0" = ?"#
    static let findSQL = #"SELECT * FROM "ten" WHERE "c0" = ?"#
    static let existsSQL = #"SELECT EXISTS(SELECT 1 FROM "ten" WHERE "c0" = ?)"#
    /// Puts back the rows a run deleted (SQLite copies the table without decoding its rows).
    static let refill = "INSERT INTO ten SELECT * FROM seed"

    static func run(_ benchmark: Benchmark) throws {
        let conn = try Connection.inMemory()
        let raw = try RawDatabase(path: ":memory:")
        for schema in [numberedSchema, defaultedSchema, IntegerRecords.schema, seedSchema] {
            try conn.execute(script: schema)
            try raw.exec(schema)
        }
        let records = (0..<count).map(TenIntegers.init)
        try conn.insert(contentsOf: records)
        try conn.execute(script: "INSERT INTO seed SELECT * FROM ten")
        let insert = try raw.prepare(IntegerRecords.insertSQL)
        try raw.exec("BEGIN")
        for record in records {
            IntegerRecords.bind(insert, record)
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        try raw.exec("COMMIT; INSERT INTO seed SELECT * FROM ten")
        guard try stored(conn, "ten") == stored(raw, "ten") else {
            throw BenchmarkError.mismatch("the records to update, upsert, delete and find differ")
        }

        try insertOneByOne(benchmark, conn, raw)
        try insertDecodedOneByOne(benchmark, conn, raw)
        try insertReturningDefaults(benchmark, conn, raw)
        try updateByKey(benchmark, conn, raw)
        try restore(conn, raw)
        try upsertHalfExisting(benchmark, conn, raw)
        try restore(conn, raw)
        try BulkWrites.updateByKey(benchmark, conn, raw)
        try restore(conn, raw)
        try BulkWrites.upsertHalfExisting(benchmark, conn, raw)
        try restore(conn, raw)
        try deleteByID(benchmark, conn, raw)
        try findByID(benchmark, conn, raw)
        try existsByID(benchmark, conn, raw)
        try ConditionCalls.run(benchmark, conn, raw)
    }

    // MARK: The lines

    static func insertOneByOne(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        try compareWrite(
            benchmark, "insert() 100,000 records one by one, nil rowid id", goal: 1.5, sql: insertNumberedSQL,
            table: "numbered", conn, raw,
            c: { statement, _ in try insertNumberedWithC(raw, statement) },
            bindery: { _ in try insertNumberedWithBindery(conn) })
    }

    /// The same inserts of a record that is not ``StoredAsGiven``, which `insert` decodes from the values
    /// bound: no goal, printed to show what ``StoredAsGiven`` saves.
    static func insertDecodedOneByOne(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        try compareWrite(
            benchmark, "insert() 100,000 decoded records one by one, nil id", goal: nil,
            sql: insertNumberedSQL, table: "numbered", conn, raw,
            c: { statement, _ in try insertNumberedWithC(raw, statement) },
            bindery: { _ in try insertDecodedWithBindery(conn).map(NumberedIntegers.init) })
    }

    static func insertReturningDefaults(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        try compareWrite(
            benchmark, "insert() 100,000 records one by one, with a default", goal: 1.3, sql: insertDefaultedSQL,
            table: "defaulted", conn, raw,
            c: { statement, _ in try insertDefaultedWithC(raw, statement) },
            bindery: { _ in try insertDefaultedWithBindery(conn) })
    }

    static func updateByKey(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        try compareWrite(
            benchmark, "update() 100,000 records by key", goal: 1.5, sql: updateSQL, table: "ten", conn, raw,
            c: { statement, run in try updateWithC(raw, statement, run: run) },
            bindery: { run in try updateWithBindery(conn, run: run) })
    }

    static func upsertHalfExisting(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        try compareWrite(
            benchmark, "upsert() 100,000 records, half of them new", goal: 1.5, sql: upsertSQL, table: "ten",
            conn, raw,
            c: { statement, run in try upsertWithC(raw, statement, run: run) },
            bindery: { run in try upsertWithBindery(conn, run: run) })
    }

    static func deleteByID(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        // Each run deletes every row, then puts them back with one statement, the same on both sides.
        try compareWrite(
            benchmark, "delete(_:id:) 100,000 records", goal: 1.5, sql: deleteSQL, table: "ten", conn, raw,
            c: { statement, _ in
                let deleted = try deleteWithC(raw, statement)
                try raw.exec(refill)
                return deleted
            },
            bindery: { _ in
                let deleted = try deleteWithBindery(conn)
                try conn.execute(script: refill)
                return deleted
            })
    }

    /// Compares a line that writes `table`: the C side runs `sql` prepared on `raw`; each side gets the
    /// number of its run (from 1, the warm-up included). Afterwards both tables must hold the same rows.
    static func compareWrite<R: Equatable>(
        _ benchmark: Benchmark, _ name: String, goal: Double?, sql: String, table: String, _ conn: Connection,
        _ raw: RawDatabase, c: (OpaquePointer, Int) throws -> R, bindery: (Int) throws -> R
    ) throws {
        let statement = try raw.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var cRun = 0
        var binderyRun = 0
        let ran = try compare(
            benchmark, name, goal: goal,
            c: {
                cRun += 1
                return try c(statement, cRun)
            },
            bindery: {
                binderyRun += 1
                return try bindery(binderyRun)
            })
        if ran, try stored(conn, table) != stored(raw, table) {
            throw BenchmarkError.mismatch("\(name): the tables differ")
        }
    }

    static func findByID(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        let statement = try raw.prepare(findSQL)
        defer { sqlite3_finalize(statement) }
        try compare(
            benchmark, "find(_:id:) 100,000 records", goal: 1.5,
            c: { try ConditionCalls.recordsWithC(raw, statement, keys: 0..<count) },
            bindery: { try findWithBindery(conn) })
    }

    static func existsByID(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        let statement = try raw.prepare(existsSQL)
        defer { sqlite3_finalize(statement) }
        try compare(
            benchmark, "exists(_:id:) 100,000 keys, half of them stored", goal: 1.5,
            c: { try ConditionCalls.nonZeroWithC(raw, statement) },
            bindery: { try existsWithBindery(conn) })
    }

    // MARK: The loops

    /// The record of `n` for the update and upsert runs: run `run` writes other values than the last.
    @inline(__always)
    static func record(_ n: Int, run: Int) -> TenIntegers {
        var record = TenIntegers(n)
        record.c9 = run
        return record
    }

    @inline(never)
    static func insertNumberedWithC(_ raw: RawDatabase, _ statement: OpaquePointer) throws -> [NumberedIntegers] {
        try raw.exec("DELETE FROM numbered; BEGIN IMMEDIATE")
        var stored: [NumberedIntegers] = []
        stored.reserveCapacity(count)
        for n in 0..<count {
            let record = NumberedIntegers(id: nil, n)
            sqlite3_bind_int64(statement, 1, Int64(record.c1))
            sqlite3_bind_int64(statement, 2, Int64(record.c2))
            sqlite3_bind_int64(statement, 3, Int64(record.c3))
            sqlite3_bind_int64(statement, 4, Int64(record.c4))
            sqlite3_bind_int64(statement, 5, Int64(record.c5))
            sqlite3_bind_int64(statement, 6, Int64(record.c6))
            sqlite3_bind_int64(statement, 7, Int64(record.c7))
            sqlite3_bind_int64(statement, 8, Int64(record.c8))
            sqlite3_bind_int64(statement, 9, Int64(record.c9))
            let code = sqlite3_step(statement)
            sqlite3_reset(statement)
            guard code == SQLITE_DONE else { throw failure(raw) }
            var inserted = record
            inserted.id = Int(sqlite3_last_insert_rowid(raw.handle))
            stored.append(inserted)
        }
        try raw.exec("COMMIT")
        return stored
    }

    @inline(never)
    static func insertNumberedWithBindery(_ conn: Connection) throws -> [NumberedIntegers] {
        try conn.execute(script: "DELETE FROM numbered")
        var stored: [NumberedIntegers] = []
        stored.reserveCapacity(count)
        try conn.transaction(.immediate) { conn in
            for n in 0..<count {
                stored.append(try conn.insert(NumberedIntegers(id: nil, n)))
            }
        }
        return stored
    }

    @inline(never)
    static func insertDecodedWithBindery(_ conn: Connection) throws -> [DecodedIntegers] {
        try conn.execute(script: "DELETE FROM numbered")
        var stored: [DecodedIntegers] = []
        stored.reserveCapacity(count)
        try conn.transaction(.immediate) { conn in
            for n in 0..<count {
                stored.append(try conn.insert(DecodedIntegers(id: nil, n)))
            }
        }
        return stored
    }

    @inline(never)
    static func insertDefaultedWithC(_ raw: RawDatabase, _ statement: OpaquePointer) throws -> [DefaultedIntegers] {
        try raw.exec("DELETE FROM defaulted; BEGIN IMMEDIATE")
        var stored: [DefaultedIntegers] = []
        stored.reserveCapacity(count)
        for n in 0..<count {
            let record = DefaultedIntegers(id: nil, n, c9: nil)
            sqlite3_bind_int64(statement, 1, Int64(record.c1))
            sqlite3_bind_int64(statement, 2, Int64(record.c2))
            sqlite3_bind_int64(statement, 3, Int64(record.c3))
            sqlite3_bind_int64(statement, 4, Int64(record.c4))
            sqlite3_bind_int64(statement, 5, Int64(record.c5))
            sqlite3_bind_int64(statement, 6, Int64(record.c6))
            sqlite3_bind_int64(statement, 7, Int64(record.c7))
            sqlite3_bind_int64(statement, 8, Int64(record.c8))
            guard sqlite3_step(statement) == SQLITE_ROW else {
                sqlite3_reset(statement)
                throw failure(raw)
            }
            var row = DefaultedIntegers(id: Int(sqlite3_column_int64(statement, 0)), 0, c9: nil)
            row.c1 = Int(sqlite3_column_int64(statement, 1))
            row.c2 = Int(sqlite3_column_int64(statement, 2))
            row.c3 = Int(sqlite3_column_int64(statement, 3))
            row.c4 = Int(sqlite3_column_int64(statement, 4))
            row.c5 = Int(sqlite3_column_int64(statement, 5))
            row.c6 = Int(sqlite3_column_int64(statement, 6))
            row.c7 = Int(sqlite3_column_int64(statement, 7))
            row.c8 = Int(sqlite3_column_int64(statement, 8))
            row.c9 = Int(sqlite3_column_int64(statement, 9))
            let code = sqlite3_step(statement)
            sqlite3_reset(statement)
            guard code == SQLITE_DONE else { throw failure(raw) }
            stored.append(row)
        }
        try raw.exec("COMMIT")
        return stored
    }

    @inline(never)
    static func insertDefaultedWithBindery(_ conn: Connection) throws -> [DefaultedIntegers] {
        try conn.execute(script: "DELETE FROM defaulted")
        var stored: [DefaultedIntegers] = []
        stored.reserveCapacity(count)
        try conn.transaction(.immediate) { conn in
            for n in 0..<count {
                stored.append(try conn.insert(DefaultedIntegers(id: nil, n, c9: nil)))
            }
        }
        return stored
    }

    /// Updates every row; returns how many rows were changed.
    @inline(never)
    static func updateWithC(_ raw: RawDatabase, _ statement: OpaquePointer, run: Int) throws -> Int {
        try raw.exec("BEGIN IMMEDIATE")
        var updated = 0
        for n in 0..<count {
            let record = record(n, run: run)
            sqlite3_bind_int64(statement, 1, Int64(record.c1))
            sqlite3_bind_int64(statement, 2, Int64(record.c2))
            sqlite3_bind_int64(statement, 3, Int64(record.c3))
            sqlite3_bind_int64(statement, 4, Int64(record.c4))
            sqlite3_bind_int64(statement, 5, Int64(record.c5))
            sqlite3_bind_int64(statement, 6, Int64(record.c6))
            sqlite3_bind_int64(statement, 7, Int64(record.c7))
            sqlite3_bind_int64(statement, 8, Int64(record.c8))
            sqlite3_bind_int64(statement, 9, Int64(record.c9))
            sqlite3_bind_int64(statement, 10, Int64(record.c0))
            let code = sqlite3_step(statement)
            sqlite3_reset(statement)
            guard code == SQLITE_DONE, sqlite3_changes64(raw.handle) == 1 else { throw failure(raw) }
            updated += 1
        }
        try raw.exec("COMMIT")
        return updated
    }

    @inline(never)
    static func updateWithBindery(_ conn: Connection, run: Int) throws -> Int {
        var updated = 0
        try conn.transaction(.immediate) { conn in
            for n in 0..<count {
                try conn.update(record(n, run: run))
                updated += 1
            }
        }
        return updated
    }

    /// The key of the `n`th record a run upserts: an even `n` updates the row `n`, an odd one inserts
    /// a row with a new key (above every key stored), so that half the records update and half insert.
    @inline(__always)
    static func upsertKey(_ n: Int, run: Int) -> Int {
        n & 1 == 0 ? n : count * (run + 1) + n
    }

    @inline(never)
    static func upsertWithC(_ raw: RawDatabase, _ statement: OpaquePointer, run: Int) throws -> [TenIntegers] {
        try raw.exec("BEGIN IMMEDIATE")
        var stored: [TenIntegers] = []
        stored.reserveCapacity(count)
        for n in 0..<count {
            IntegerRecords.bind(statement, record(upsertKey(n, run: run), run: run))
            guard sqlite3_step(statement) == SQLITE_ROW else {
                sqlite3_reset(statement)
                throw failure(raw)
            }
            let row = IntegerRecords.read(statement)
            let code = sqlite3_step(statement)
            sqlite3_reset(statement)
            guard code == SQLITE_DONE else { throw failure(raw) }
            stored.append(row)
        }
        try raw.exec("COMMIT")
        return stored
    }

    @inline(never)
    static func upsertWithBindery(_ conn: Connection, run: Int) throws -> [TenIntegers] {
        var stored: [TenIntegers] = []
        stored.reserveCapacity(count)
        try conn.transaction(.immediate) { conn in
            for n in 0..<count {
                stored.append(try conn.upsert(record(upsertKey(n, run: run), run: run)))
            }
        }
        return stored
    }

    /// Deletes every row by key; returns how many were found.
    @inline(never)
    static func deleteWithC(_ raw: RawDatabase, _ statement: OpaquePointer) throws -> Int {
        try raw.exec("BEGIN IMMEDIATE")
        var deleted = 0
        for n in 0..<count {
            sqlite3_bind_int64(statement, 1, Int64(n))
            let code = sqlite3_step(statement)
            sqlite3_reset(statement)
            guard code == SQLITE_DONE else { throw failure(raw) }
            if sqlite3_changes64(raw.handle) > 0 {
                deleted += 1
            }
        }
        try raw.exec("COMMIT")
        return deleted
    }

    @inline(never)
    static func deleteWithBindery(_ conn: Connection) throws -> Int {
        var deleted = 0
        try conn.transaction(.immediate) { conn in
            for n in 0..<count {
                if try conn.delete(TenIntegers.self, id: n) {
                    deleted += 1
                }
            }
        }
        return deleted
    }

    @inline(never)
    static func findWithBindery(_ conn: Connection) throws -> [TenIntegers] {
        var found: [TenIntegers] = []
        found.reserveCapacity(count)
        try conn.transaction(.immediate) { conn in
            for n in 0..<count {
                if let record = try conn.find(TenIntegers.self, id: n) {
                    found.append(record)
                }
            }
        }
        return found
    }

    @inline(never)
    static func existsWithBindery(_ conn: Connection) throws -> Int {
        var stored = 0
        try conn.transaction(.immediate) { conn in
            for n in ConditionCalls.keys {
                if try conn.exists(TenIntegers.self, id: n) {
                    stored += 1
                }
            }
        }
        return stored
    }

    // MARK: Helpers

    /// Runs one comparison; when it ran, throws ``BenchmarkError/mismatch(_:)`` if the two sides'
    /// last results differ. Returns whether it ran.
    @discardableResult
    static func compare<R: Equatable>(
        _ benchmark: Benchmark, _ name: String, goal: Double?, c: () throws -> R, bindery: () throws -> R
    ) throws -> Bool {
        var fromC: R?
        var fromBindery: R?
        let ran = try benchmark.compare(
            name, goal: goal, baseline: { fromC = try c() }, bindery: { fromBindery = try bindery() })
        guard ran > 0 else { return false }
        guard fromC != nil, fromC == fromBindery else {
            throw BenchmarkError.mismatch("\(name): Bindery and the C loop returned different results")
        }
        return true
    }

    /// Puts `ten` back as `seed` holds it, in both databases.
    static func restore(_ conn: Connection, _ raw: RawDatabase) throws {
        try conn.execute(script: "DELETE FROM ten; \(refill)")
        try raw.exec("DELETE FROM ten; \(refill)")
    }

    /// Every row of `table` in rowid order.
    static func stored(_ conn: Connection, _ table: String) throws -> [[SQLiteValue]] {
        try conn.rows("SELECT * FROM \(table) ORDER BY rowid", arguments: []).map(\.values)
    }

    /// Every row of `table` in rowid order (every column of these tables is an INTEGER).
    static func stored(_ raw: RawDatabase, _ table: String) throws -> [[SQLiteValue]] {
        let statement = try raw.prepare("SELECT * FROM \(table) ORDER BY rowid")
        defer { sqlite3_finalize(statement) }
        var rows: [[SQLiteValue]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((0..<sqlite3_column_count(statement)).map { .integer(sqlite3_column_int64(statement, $0)) })
        }
        return rows
    }

    /// The C side's last error.
    static func failure(_ raw: RawDatabase) -> BenchmarkError {
        .sqlite(String(cString: sqlite3_errmsg(raw.handle)))
    }
}
