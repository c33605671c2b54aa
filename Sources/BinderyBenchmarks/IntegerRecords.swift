import Bindery
import CSQLite
import Foundation

/// A record of 10 INTEGER columns: the C side does almost nothing per value, so the comparison
/// measures the Codable machinery itself.
struct TenIntegers: Record, Equatable {
    static let tableName = "ten"
    static let primaryKey = ["c0"]
    var c0: Int
    var c1: Int
    var c2: Int
    var c3: Int
    var c4: Int
    var c5: Int
    var c6: Int
    var c7: Int
    var c8: Int
    var c9: Int

    init(_ n: Int) {
        (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9) = (n, n &* 3, n &+ 7, -n, n / 2, n % 97, n << 3, 42, n &* n, 1)
    }
}

/// The same record, which also writes and reads its columns by hand (``ColumnCodable``): inserts and
/// fetches skip the standard library's Codable container box.
struct TenIntegersByHand: Record, ColumnCodable, Equatable {
    static let tableName = "ten"
    static let primaryKey = ["c0"]
    var c0: Int
    var c1: Int
    var c2: Int
    var c3: Int
    var c4: Int
    var c5: Int
    var c6: Int
    var c7: Int
    var c8: Int
    var c9: Int

    init(_ record: TenIntegers) {
        (c0, c1, c2, c3, c4) = (record.c0, record.c1, record.c2, record.c3, record.c4)
        (c5, c6, c7, c8, c9) = (record.c5, record.c6, record.c7, record.c8, record.c9)
    }

    init(columns: ColumnReader) throws {
        c0 = try columns.decode(Int.self, forKey: "c0")
        c1 = try columns.decode(Int.self, forKey: "c1")
        c2 = try columns.decode(Int.self, forKey: "c2")
        c3 = try columns.decode(Int.self, forKey: "c3")
        c4 = try columns.decode(Int.self, forKey: "c4")
        c5 = try columns.decode(Int.self, forKey: "c5")
        c6 = try columns.decode(Int.self, forKey: "c6")
        c7 = try columns.decode(Int.self, forKey: "c7")
        c8 = try columns.decode(Int.self, forKey: "c8")
        c9 = try columns.decode(Int.self, forKey: "c9")
    }

    func encodeColumns(to columns: inout ColumnWriter) throws {
        try columns.encode(c0, forKey: "c0")
        try columns.encode(c1, forKey: "c1")
        try columns.encode(c2, forKey: "c2")
        try columns.encode(c3, forKey: "c3")
        try columns.encode(c4, forKey: "c4")
        try columns.encode(c5, forKey: "c5")
        try columns.encode(c6, forKey: "c6")
        try columns.encode(c7, forKey: "c7")
        try columns.encode(c8, forKey: "c8")
        try columns.encode(c9, forKey: "c9")
    }
}

/// Inserting and reading 100,000 ``TenIntegers`` with Bindery and with the C API.
enum IntegerRecords {
    static let count = 100_000
    static let schema =
        "CREATE TABLE ten (c0 INTEGER PRIMARY KEY, c1 INTEGER NOT NULL, c2 INTEGER NOT NULL, "
        + "c3 INTEGER NOT NULL, c4 INTEGER NOT NULL, c5 INTEGER NOT NULL, c6 INTEGER NOT NULL, c7 INTEGER NOT NULL, "
        + "c8 INTEGER NOT NULL, c9 INTEGER NOT NULL)"
    static let insertSQL =
        "INSERT INTO ten (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    /// Rows in each statement of the C loop of multi-row INSERTs (as many as Bindery's batches hold).
    static let batchRows = 100
    static let batchInsertSQL =
        "INSERT INTO ten (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9) VALUES "
        + Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: batchRows).joined(separator: ", ")

    static func run(_ benchmark: Benchmark) throws {
        let records = (0..<count).map(TenIntegers.init)
        let conn = try Connection.inMemory()
        try conn.execute(script: schema)
        let raw = try RawDatabase(path: ":memory:")
        try raw.exec(schema)
        let insert = try raw.prepare(insertSQL)
        let insertReturning = try raw.prepare(insertSQL + " RETURNING *")
        let insertBatch = try raw.prepare(batchInsertSQL)
        // Bindery's own batch statements (see the floor for multi-row INSERTs below).
        let failingBatch = try raw.prepare("INSERT OR FAIL" + batchInsertSQL.dropFirst("INSERT".count))
        let openSavepoint = try raw.prepare("SAVEPOINT floor")
        let releaseSavepoint = try raw.prepare("RELEASE SAVEPOINT floor")
        let select = try raw.prepare("SELECT * FROM ten")
        defer {
            sqlite3_finalize(insertBatch)
            sqlite3_finalize(failingBatch)
            sqlite3_finalize(openSavepoint)
            sqlite3_finalize(releaseSavepoint)
            sqlite3_finalize(insert)
            sqlite3_finalize(insertReturning)
            sqlite3_finalize(select)
        }
        var failure: Error?
        // The C sides: every bulk insert is compared with the same loop, every fetch with the same read.
        let insertWithC = {
            try? raw.exec("DELETE FROM ten; BEGIN IMMEDIATE")
            for record in records {
                bind(insert, record)
                sqlite3_step(insert)
                sqlite3_reset(insert)
            }
            try? raw.exec("COMMIT")
        }
        let fetchWithC = { _ = rows(select) }
        // The careful C loop of multi-row statements: 100 records bound to one INSERT of 100 rows.
        let insertBatchesWithC = {
            try? raw.exec("DELETE FROM ten; BEGIN IMMEDIATE")
            var start = 0
            while start < records.count {
                for offset in 0..<batchRows {
                    bind(insertBatch, records[start + offset], first: Int32(offset * 10 + 1))
                }
                sqlite3_step(insertBatch)
                sqlite3_reset(insertBatch)
                start += batchRows
            }
            try? raw.exec("COMMIT")
        }
        let bulkInsert = {
            do {
                try conn.execute(script: "DELETE FROM ten")
                try conn.insert(contentsOf: records)
            } catch {
                failure = error
            }
        }

        benchmark.compare(
            "bulk insert 100,000 records, 10 INTEGER columns", goal: 1.0,
            baseline: insertWithC, bindery: bulkInsert)
        if let failure { throw failure }
        let batchFloorRan = benchmark.compare(
            "bulk insert vs a C loop of 100-row INSERTs", goal: 1.3, baselineName: "C, 100 rows a statement",
            baseline: insertBatchesWithC, bindery: bulkInsert)
        if let failure { throw failure }
        if batchFloorRan > 0 {
            insertBatchesWithC()
            guard rows(select) == records else {
                throw BenchmarkError.mismatch("the C loop of 100-row INSERTs did not insert the records")
            }
        }

        // The floor under Codable encoders: the same loop with each record's own `encode(to:)` binding
        // its values through an encoder that does nothing else (see BareEncoder).
        let bare = BareEncoder(statement: insert)
        var bareInserted = 0
        let floorRan = benchmark.compare(
            "bulk insert, a bare Encoder that only binds (floor)", goal: nil, binderyName: "bare Encoder",
            baseline: insertWithC,
            bindery: {
                bareInserted = 0
                try? raw.exec("DELETE FROM ten; BEGIN IMMEDIATE")
                for record in records {
                    try? record.encode(to: bare)
                    if sqlite3_step(insert) == SQLITE_DONE {
                        bareInserted &+= 1
                    }
                    sqlite3_reset(insert)
                }
                try? raw.exec("COMMIT")
            })
        if floorRan > 0 && (bare.refused || bareInserted != records.count || rows(select) != records) {
            throw BenchmarkError.mismatch("the bare encoder did not insert the records")
        }

        // The floor under Codable encoders for multi-row INSERTs: the statements Bindery runs (100-row
        // `INSERT OR FAIL`s, ten to a savepoint: see BulkInserter+Groups.swift) with each record's own
        // `encode(to:)` binding its values through the bare encoder, at its row's parameters. No Codable
        // encoder can do less over those statements; the goal of plain Codable bulk inserts (≤ 1.0×
        // the one-row C loop) is to be read against it.
        let bareBatch = BareEncoder(statement: failingBatch, first: 1)
        var bareBatchRefused = false
        let batchFloorOfCodableRan = benchmark.compare(
            "bulk insert, a bare Encoder binding 100-row INSERTs (floor)", goal: nil, binderyName: "bare Encoder",
            baseline: insertWithC,
            bindery: {
                try? raw.exec("DELETE FROM ten; BEGIN IMMEDIATE")
                var start = 0
                var batches = 0
                while start < records.count {
                    if batches % 10 == 0 {
                        sqlite3_step(openSavepoint)
                        sqlite3_reset(openSavepoint)
                    }
                    for offset in 0..<batchRows {
                        bareBatch.first = Int32(offset * 10 + 1)
                        try? records[start + offset].encode(to: bareBatch)
                    }
                    if sqlite3_step(failingBatch) != SQLITE_DONE {
                        bareBatchRefused = true
                    }
                    sqlite3_reset(failingBatch)
                    start += batchRows
                    batches += 1
                    if batches % 10 == 0 || start >= records.count {
                        sqlite3_step(releaseSavepoint)
                        sqlite3_reset(releaseSavepoint)
                    }
                }
                try? raw.exec("COMMIT")
            })
        if batchFloorOfCodableRan > 0 && (bareBatch.refused || bareBatchRefused || rows(select) != records) {
            throw BenchmarkError.mismatch("the bare encoder did not insert the records through 100-row INSERTs")
        }

        let byHand = records.map(TenIntegersByHand.init)
        let bulkInsertByHand = {
            do {
                try conn.execute(script: "DELETE FROM ten")
                try conn.insert(contentsOf: byHand)
            } catch {
                failure = error
            }
        }
        benchmark.compare(
            "bulk insert 100,000 ColumnEncodable records", goal: 0.85,
            baseline: insertWithC, bindery: bulkInsertByHand)
        if let failure { throw failure }
        benchmark.compare(
            "bulk insert ColumnEncodable vs a C loop of 100-row INSERTs", goal: 1.3,
            baselineName: "C, 100 rows a statement", baseline: insertBatchesWithC, bindery: bulkInsertByHand)
        if let failure { throw failure }

        // The C loop of insertAndFetch: each record inserted with RETURNING * and read back.
        let insertReturningWithC = { () -> [TenIntegers] in
            try? raw.exec("DELETE FROM ten; BEGIN IMMEDIATE")
            var stored: [TenIntegers] = []
            stored.reserveCapacity(records.count)
            for record in records {
                bind(insertReturning, record)
                if sqlite3_step(insertReturning) == SQLITE_ROW {
                    stored.append(read(insertReturning))
                }
                sqlite3_reset(insertReturning)
            }
            try? raw.exec("COMMIT")
            return stored
        }
        var storedWithC: [TenIntegers] = []
        var storedWithBindery: [TenIntegers] = []
        let returningRan = benchmark.compare(
            "insertAndFetch(contentsOf:) 100,000 records", goal: 1.0,
            baseline: { storedWithC = insertReturningWithC() },
            bindery: {
                do {
                    try conn.execute(script: "DELETE FROM ten")
                    storedWithBindery = try conn.insertAndFetch(contentsOf: records)
                } catch {
                    failure = error
                }
            })
        if let failure { throw failure }
        if returningRan > 0 {
            let inTable = try conn.fetchAll(TenIntegers.self, orderBy: "c0")
            guard storedWithBindery == records, storedWithC == records, inTable == records else {
                throw BenchmarkError.mismatch("insertAndFetch(contentsOf:) did not return the records it stored")
            }
        }
        storedWithC = []
        storedWithBindery = []

        // Both databases hold the records for the reads, whichever comparisons ran.
        insertWithC()
        try conn.execute(script: "DELETE FROM ten")
        try conn.insert(contentsOf: records)

        try compareFetch(benchmark, "fetchAll 100,000 records, 10 INTEGER columns", fetchWithC, records) {
            try conn.fetchAll(TenIntegers.self)
        }

        // The floor under Codable decoders: the C read with each record built by its own `init(from:)`,
        // reading its values through a decoder that does nothing else (see BareDecoder).
        let bareDecoder = BareDecoder(statement: select)
        var bareDecoded: [TenIntegers] = []
        var bareFailure: Error?
        let fetchWithBare = {
            do {
                bareDecoded = try decodeBare(select, bareDecoder)
            } catch {
                bareFailure = error
            }
        }
        let decodeFloorRan = benchmark.compare(
            "decode 100,000 rows, a bare Decoder (floor)", goal: nil,
            binderyName: "bare Decoder",
            baseline: fetchWithC,
            bindery: {
                fetchWithBare()
                bareDecoded = []
            })
        // Whether the bare decoder, run once more, decodes the records.
        let checkBare = {
            fetchWithBare()
            if let bareFailure { throw bareFailure }
            guard bareDecoded == records else {
                throw BenchmarkError.mismatch("the bare decoder did not decode the records")
            }
            bareDecoded = []
        }
        if decodeFloorRan > 0 {
            try checkBare()
        }
        // Plain Codable fetchAll against that floor: what Bindery costs above Codable itself.
        let overFloorRan = benchmark.compare(
            "fetchAll vs the bare Decoder floor", goal: 1.10, baselineName: "bare Decoder",
            baseline: {
                fetchWithBare()
                bareDecoded = []
            },
            bindery: {
                do {
                    _ = try conn.fetchAll(TenIntegers.self)
                } catch {
                    failure = error
                }
            })
        if let failure { throw failure }
        if overFloorRan > 0 {
            try checkBare()
            if try conn.fetchAll(TenIntegers.self) != records {
                throw BenchmarkError.mismatch("fetchAll vs the bare Decoder floor: other records than were inserted")
            }
        }
        try compareFetch(benchmark, "fetchAll 100,000 ColumnDecodable records", fetchWithC, byHand) {
            try conn.fetchAll(TenIntegersByHand.self)
        }
        try compareFetch(benchmark, "decode 100,000 rows of 10 INTEGER columns (sql:)", fetchWithC, records) {
            try conn.fetchAll(TenIntegers.self, sql: "SELECT * FROM ten")
        }
    }

    /// Compares a Bindery fetch with the C read, goal 1.75×. Like the C side, each run builds its array
    /// and drops it, so that neither side holds an earlier result while it reads; the records are
    /// checked against `expected` afterwards.
    static func compareFetch<T: Equatable>(
        _ benchmark: Benchmark, _ name: String, _ baseline: () -> Void, _ expected: [T], _ fetch: () throws -> [T]
    ) throws {
        var failure: Error?
        let ran = benchmark.compare(
            name, goal: 1.75, baseline: baseline,
            bindery: {
                do {
                    _ = try fetch()
                } catch {
                    failure = error
                }
            })
        if let failure { throw failure }
        if ran > 0, try fetch() != expected {
            throw BenchmarkError.mismatch("\(name): other records than were inserted")
        }
    }

    /// Every row `select` returns, each decoded by `TenIntegers`' synthesized `init(from:)` through
    /// `decoder`, which reads the same statement. Out of line, so that callgrind shows its cost.
    @inline(never)
    static func decodeBare(_ select: OpaquePointer, _ decoder: BareDecoder) throws -> [TenIntegers] {
        var rows: [TenIntegers] = []
        defer { sqlite3_reset(select) }
        while sqlite3_step(select) == SQLITE_ROW {
            rows.append(try TenIntegers(from: decoder))
        }
        return rows
    }

    /// Every row `select` returns.
    static func rows(_ select: OpaquePointer) -> [TenIntegers] {
        var rows: [TenIntegers] = []
        while sqlite3_step(select) == SQLITE_ROW {
            rows.append(read(select))
        }
        sqlite3_reset(select)
        return rows
    }

    /// Binds `record` to the ten parameters from `first` on.
    @inline(__always)
    static func bind(_ statement: OpaquePointer, _ record: TenIntegers, first: Int32 = 1) {
        sqlite3_bind_int64(statement, first, Int64(record.c0))
        sqlite3_bind_int64(statement, first + 1, Int64(record.c1))
        sqlite3_bind_int64(statement, first + 2, Int64(record.c2))
        sqlite3_bind_int64(statement, first + 3, Int64(record.c3))
        sqlite3_bind_int64(statement, first + 4, Int64(record.c4))
        sqlite3_bind_int64(statement, first + 5, Int64(record.c5))
        sqlite3_bind_int64(statement, first + 6, Int64(record.c6))
        sqlite3_bind_int64(statement, first + 7, Int64(record.c7))
        sqlite3_bind_int64(statement, first + 8, Int64(record.c8))
        sqlite3_bind_int64(statement, first + 9, Int64(record.c9))
    }

    @inline(__always)
    static func read(_ statement: OpaquePointer) -> TenIntegers {
        var record = TenIntegers(0)
        record.c0 = Int(sqlite3_column_int64(statement, 0))
        record.c1 = Int(sqlite3_column_int64(statement, 1))
        record.c2 = Int(sqlite3_column_int64(statement, 2))
        record.c3 = Int(sqlite3_column_int64(statement, 3))
        record.c4 = Int(sqlite3_column_int64(statement, 4))
        record.c5 = Int(sqlite3_column_int64(statement, 5))
        record.c6 = Int(sqlite3_column_int64(statement, 6))
        record.c7 = Int(sqlite3_column_int64(statement, 7))
        record.c8 = Int(sqlite3_column_int64(statement, 8))
        record.c9 = Int(sqlite3_column_int64(statement, 9))
        return record
    }
}
