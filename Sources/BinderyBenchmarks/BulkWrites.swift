import Bindery
import CSQLite

/// `update(contentsOf:)` and `upsert(contentsOf:)` of 100,000 records against the C loops that write
/// the same rows one statement at a time in one transaction (the loops of ``RecordCalls``).
enum BulkWrites {
    static let count = RecordCalls.count

    /// The upsert of ``RecordCalls/upsertSQL`` without `RETURNING`: the bulk call returns nothing.
    static let upsertSQL = RecordCalls.upsertSQL.replacingOccurrences(of: " RETURNING *", with: "")

    static func updateByKey(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        try RecordCalls.compareWrite(
            benchmark, "update(contentsOf:) 100,000 records by key", goal: 1.2, sql: RecordCalls.updateSQL,
            table: "ten", conn, raw,
            c: { statement, run in try RecordCalls.updateWithC(raw, statement, run: run) },
            bindery: { run in
                // An array, as an app would hold its records (built in the timed run: the C loop makes
                // each record as it goes).
                try conn.update(contentsOf: (0..<count).map { RecordCalls.record($0, run: run) })
                return count
            })
    }

    static func upsertHalfExisting(_ benchmark: Benchmark, _ conn: Connection, _ raw: RawDatabase) throws {
        try RecordCalls.compareWrite(
            benchmark, "upsert(contentsOf:) 100,000 records, half of them new", goal: 1.2, sql: upsertSQL,
            table: "ten", conn, raw,
            c: { statement, run in try upsertWithC(raw, statement, run: run) },
            bindery: { run in
                try conn.upsert(
                    contentsOf: (0..<count).map { RecordCalls.record(RecordCalls.upsertKey($0, run: run), run: run) })
                return count
            })
    }

    /// Upserts the records of run `run` one statement each; returns how many.
    @inline(never)
    static func upsertWithC(_ raw: RawDatabase, _ statement: OpaquePointer, run: Int) throws -> Int {
        try raw.exec("BEGIN IMMEDIATE")
        for n in 0..<count {
            IntegerRecords.bind(statement, RecordCalls.record(RecordCalls.upsertKey(n, run: run), run: run))
            let code = sqlite3_step(statement)
            sqlite3_reset(statement)
            guard code == SQLITE_DONE else { throw RecordCalls.failure(raw) }
        }
        try raw.exec("COMMIT")
        return count
    }
}
