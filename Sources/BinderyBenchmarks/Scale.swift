import Bindery
import CSQLite
import Foundation

/// `bindery-bench --scale`: whether Bindery's costs grow with the work and no faster.
///
/// For each size (1, 4 and 16 million rows unless `--scale-rows` says otherwise), in a temporary
/// directory removed afterwards, it inserts ``TenIntegers`` into a database file opened by ``Database``
/// (WAL, `synchronous = NORMAL`, SQLite's default page cache and auto-checkpoint) and the same rows
/// into a second file through a C loop with the same settings, then reads them back on both sides. It
/// prints the time per row of each step beside the C loop's, each time per row divided by the same
/// step's at the smallest size, and how much the process's resident memory grew during the step. The
/// insert runs twice on each side, each time into empty files, once in each order (the side that goes
/// second pays more at 16 million rows, whichever it is), and each side's faster run counts.
///
/// The records come from a lazy sequence, never from an array: 16 million records would take 1.3 GB.
/// For the same reason `fetchAll` runs only up to ``fetchAllLimit`` rows. Not part of CI: the largest
/// size takes minutes and over 2 GB of disk.
enum Scale {
    /// The sizes of `--scale` without `--scale-rows`, in millions of rows.
    static let defaultMillions: [Double] = [1, 4, 16]
    /// The largest size at which `fetchAll` runs: its result holds 80 bytes a row on each side
    /// (320 MB at 4 million rows, 1.3 GB at 16 million), which no app would load at once.
    static let fetchAllLimit = 4_000_000
    /// The goal for a read's time per row: at most this many times the smallest size's.
    static let timeGoal = 1.2
    /// The goal for the bulk insert's time per row (multi-row statements, issue 39): at most this many
    /// times the smallest size's. SQLite's own B-tree work per row grows with the table (the C loop's
    /// insert grows about as much).
    static let insertTimeGoal = 1.3

    /// The goal for `step`'s time per row.
    static func timeGoal(_ step: Step) -> Double {
        step == .insert ? insertTimeGoal : timeGoal
    }
    /// The goal for a cursor scan: resident memory grows by at most this many bytes, whatever the size.
    static let memoryGoal = 16 << 20
    /// Resident memory is sampled once every this many rows (a power of two).
    static let sampleInterval = 1 << 16

    /// What a step does on both sides.
    enum Step: String {
        case insert = "insert(contentsOf:)"
        case databaseCursor = "fetchCursor (Database)"
        case connectionCursor = "fetchCursor (Connection)"
        case fetchAll = "fetchAll"

        /// Whether the step must keep resident memory flat (a cursor's scan).
        var hasMemoryGoal: Bool {
            self == .databaseCursor || self == .connectionCursor
        }
    }

    /// The wall-clock and processor time of one run of a step on one side, and how much resident
    /// memory the run added.
    struct Sample {
        let wall: Double
        let processor: Double
        let growth: Int?
    }

    /// One step at one size on both sides: the fastest run of each side, with the most memory any run
    /// of that side added.
    struct Measurement {
        let rows: Int
        let step: Step
        let bindery: Sample
        let c: Sample

        var binderyPerRow: Double { bindery.wall * 1e9 / Double(rows) }
        var cPerRow: Double { c.wall * 1e9 / Double(rows) }
        var binderyProcessorPerRow: Double { bindery.processor * 1e9 / Double(rows) }
        var cProcessorPerRow: Double { c.processor * 1e9 / Double(rows) }
    }

    /// The peak of the process's resident memory over its samples, and how far it rose above the level
    /// at the start.
    final class MemoryPeak {
        let start: Int?
        private(set) var peak: Int?

        init() {
            start = Scale.residentBytes()
            peak = start
        }

        /// Reads the resident memory now, once every ``Scale/sampleInterval`` values of `row` (every time
        /// when nil).
        @inline(__always)
        func sample(row: Int? = nil) {
            if let row, row & (Scale.sampleInterval - 1) != 0 {
                return
            }
            if let now = Scale.residentBytes(), now > peak ?? 0 {
                peak = now
            }
        }

        /// Bytes by which the peak exceeds the start; nil where resident memory cannot be read.
        var growth: Int? {
            guard let start, let peak else { return nil }
            return peak - start
        }
    }

    // MARK: Running

    /// Measures every size of `millions` (in millions of rows), smallest first, and prints the table.
    static func run(millions: [Double]) async throws {
        let sizes = Set(millions.map { Int(($0 * 1_000_000).rounded()) }).filter { $0 > 0 }.sorted()
        guard let smallest = sizes.first else { return }
        printHeader(reference: smallest)
        var references: [Step: Measurement] = [:]
        for rows in sizes {
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("bindery-scale-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await measure(rows: rows, in: directory, first: rows == smallest) { measurement in
                let reference = references[measurement.step] ?? measurement
                references[measurement.step] = reference
                printLine(measurement, reference: reference)
            }
        }
    }

    /// Runs every step with `rows` rows on two new database files in `directory`, and hands each
    /// measurement to `report` as soon as it is taken.
    /// The first size also prints the settings both files share, and the column titles.
    private static func measure(rows: Int, in directory: URL, first: Bool, report: (Measurement) -> Void)
        async throws
    {
        let expected = (0..<rows).reduce(0) { $0 &+ checksum(record($1)) }
        let (db, raw) = try await openPair(in: directory, suffix: "", printingSettings: first)
        do {
            let select = try raw.prepare("SELECT * FROM ten")
            defer { sqlite3_finalize(select) }

            report(try await insert(rows: rows, db: db, raw: raw, in: directory))
            let scanWithC = { try scan(select, rows: rows, raw: raw, expected: expected) }
            report(
                try await compare(rows: rows, .databaseCursor, baseline: scanWithC) {
                    try await databaseCursor(rows: rows, db: db, expected: expected)
                })
            report(
                try await compare(rows: rows, .connectionCursor, baseline: scanWithC) {
                    try await connectionCursor(rows: rows, db: db, expected: expected)
                })
            if rows <= fetchAllLimit {
                report(try await fetchAll(rows: rows, db: db, select: select, expected: expected))
            } else {
                let limit = grouped(fetchAllLimit)
                print("\(formatRows(rows)) \(pad(Step.fetchAll.rawValue, 26)) skipped: above \(limit) rows")
            }
            try await db.close()
        } catch {
            try? await db.close()
            throw error
        }
    }

    /// Runs `baseline` and `bindery` alternately `repeats` times and keeps each side's fastest run (the
    /// least disturbed by other processes: on a shared machine noise only adds time), with the most
    /// resident memory any of its runs added. Each body returns the resident memory it added.
    private static func compare(
        rows: Int, _ step: Step, repeats: Int = 3, baseline: () async throws -> Int?, bindery: () async throws -> Int?
    ) async throws -> Measurement {
        var cSamples: [Sample] = []
        var binderySamples: [Sample] = []
        for _ in 0..<repeats {
            cSamples.append(try await sample(baseline))
            binderySamples.append(try await sample(bindery))
        }
        let fastest = { (samples: [Sample]) -> Sample in
            let best = samples.min { $0.wall < $1.wall } ?? samples[0]
            let growth = samples.compactMap(\.growth).max()
            return Sample(wall: best.wall, processor: best.processor, growth: growth)
        }
        return Measurement(rows: rows, step: step, bindery: fastest(binderySamples), c: fastest(cSamples))
    }

    /// Times one run of `body`, which returns the resident memory it added.
    private static func sample(_ body: () async throws -> Int?) async throws -> Sample {
        let wall = DispatchTime.now().uptimeNanoseconds
        let processor = processorSeconds()
        let growth = try await body()
        return Sample(
            wall: Double(DispatchTime.now().uptimeNanoseconds - wall) / 1e9,
            processor: processorSeconds() - processor, growth: growth)
    }

    /// A Bindery file and a C file in `directory` with the schema and the same settings (WAL,
    /// `synchronous = NORMAL`, SQLite's default page cache and auto-checkpoint), checked; the first size
    /// prints the settings and the column titles.
    private static func openPair(in directory: URL, suffix: String, printingSettings: Bool) async throws
        -> (Database, RawDatabase)
    {
        let db = try Database(path: directory.appendingPathComponent("bindery\(suffix).sqlite").path)
        do {
            let raw = try RawDatabase(path: directory.appendingPathComponent("c\(suffix).sqlite").path)
            // The settings Database gives its file; the page cache and auto-checkpoint keep their defaults.
            try raw.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
            try raw.exec(IntegerRecords.schema)
            try await db.write { conn in try conn.execute(script: IntegerRecords.schema) }
            // Both files must be read and written under the same settings.
            let mode = try await db.read { conn in try conn.fetchOne(String.self, sql: "PRAGMA journal_mode") }
            guard mode == "wal", try pragma(raw, "journal_mode") == "wal" else {
                throw BenchmarkError.mismatch("a database file is not in WAL mode")
            }
            let names = ["synchronous", "page_size", "cache_size", "wal_autocheckpoint"]
            let binderySettings = try await db.write { conn in
                try names.map { name in try conn.fetchOne(Int.self, sql: "PRAGMA \(raw: name)") }
            }
            let cSettings = try names.map { Int(try pragma(raw, $0)) }
            guard binderySettings == cSettings else {
                throw BenchmarkError.mismatch("settings \(names): Bindery \(binderySettings), C \(cSettings)")
            }
            if printingSettings {
                let settings = zip(names, cSettings).map { "\($0) \($1.map(String.init) ?? "?")" }
                print("settings of both files: journal_mode wal, " + settings.joined(separator: ", "))
                printColumns()
            }
            return (db, raw)
        } catch {
            try? await db.close()
            throw error
        }
    }

    /// Inserts the rows on both sides twice, each time into empty files, and keeps each side's faster
    /// insert: first the C loop then Bindery into `db` and `raw` (which the reads use afterwards), then
    /// Bindery then the C loop into a second pair of files, removed afterwards. Whichever side inserts
    /// second pays more at 16 million rows (2026-12-02: 1.22–1.29× its 1 M time when Bindery went
    /// second, 1.30× for the C loop when it did, 1.00× for Bindery going first), so each side gets one
    /// run in each place. Each side's disk writes are flushed before it starts.
    private static func insert(rows: Int, db: Database, raw: RawDatabase, in directory: URL) async throws
        -> Measurement
    {
        let c = try await insertWithC(rows: rows, raw: raw)
        let bindery = try await insertWithBindery(rows: rows, db: db)
        let suffix = "-2"
        let (secondDB, secondRaw) = try await openPair(in: directory, suffix: suffix, printingSettings: false)
        defer {
            for name in ["bindery\(suffix).sqlite", "c\(suffix).sqlite"] {
                for file in [name, name + "-wal", name + "-shm"] {
                    try? FileManager.default.removeItem(at: directory.appendingPathComponent(file))
                }
            }
        }
        do {
            let binderySecond = try await insertWithBindery(rows: rows, db: secondDB)
            let cSecond = try await insertWithC(rows: rows, raw: secondRaw)
            try await secondDB.close()
            let faster = { (first: Sample, second: Sample) in first.wall <= second.wall ? first : second }
            return Measurement(
                rows: rows, step: .insert, bindery: faster(bindery, binderySecond), c: faster(c, cSecond))
        } catch {
            try? await secondDB.close()
            throw error
        }
    }

    /// Inserts the rows into `raw` with the C loop in one transaction, after flushing earlier writes.
    private static func insertWithC(rows: Int, raw: RawDatabase) async throws -> Sample {
        let statement = try raw.prepare(IntegerRecords.insertSQL)
        defer { sqlite3_finalize(statement) }
        sync()
        return try await sample {
            let memory = MemoryPeak()
            try raw.exec("BEGIN IMMEDIATE")
            for row in 0..<rows {
                memory.sample(row: row)
                IntegerRecords.bind(statement, record(row))
                guard sqlite3_step(statement) == SQLITE_DONE else {
                    throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(raw.handle)))
                }
                sqlite3_reset(statement)
            }
            memory.sample()
            try raw.exec("COMMIT")
            return memory.growth
        }
    }

    /// Inserts the rows into `db` through `insert(contentsOf:)` from a lazy sequence, in one write,
    /// after flushing earlier writes; checks that every row was inserted.
    private static func insertWithBindery(rows: Int, db: Database) async throws -> Sample {
        sync()
        var inserted = 0
        let sample = try await sample {
            let (count, growth) = try await db.write { conn in
                let memory = MemoryPeak()
                let records = (0..<rows).lazy.map { row in
                    memory.sample(row: row)
                    return record(row)
                }
                let inserted = try conn.insert(contentsOf: records)
                memory.sample()
                return (inserted, memory.growth)
            }
            inserted = count
            return growth
        }
        guard inserted == rows else {
            throw BenchmarkError.mismatch("insert(contentsOf:) inserted \(inserted) rows of \(rows)")
        }
        return sample
    }

    /// The C read loop: steps `select` (`SELECT * FROM ten`) and reads every column of every row.
    private static func scan(_ select: OpaquePointer, rows: Int, raw: RawDatabase, expected: Int) throws -> Int? {
        let memory = MemoryPeak()
        var count = 0
        var sum = 0
        while sqlite3_step(select) == SQLITE_ROW {
            memory.sample(row: count)
            sum &+= checksum(IntegerRecords.read(select))
            count += 1
        }
        memory.sample()
        guard sqlite3_reset(select) == SQLITE_OK else {
            throw BenchmarkError.sqlite(String(cString: sqlite3_errmsg(raw.handle)))
        }
        try check("the C read loop", count: count, sum: sum, rows: rows, expected: expected)
        return memory.growth
    }

    /// `Database.fetchCursor`: the asynchronous sequence, which decodes on a reader a batch at a time.
    private static func databaseCursor(rows: Int, db: Database, expected: Int) async throws -> Int? {
        let memory = MemoryPeak()
        var count = 0
        var sum = 0
        for try await record in db.fetchCursor(TenIntegers.self) {
            memory.sample(row: count)
            sum &+= checksum(record)
            count += 1
        }
        memory.sample()
        try check(Step.databaseCursor.rawValue, count: count, sum: sum, rows: rows, expected: expected)
        return memory.growth
    }

    /// `Connection.fetchCursor` in a read: the synchronous cursor, one row decoded at a time.
    private static func connectionCursor(rows: Int, db: Database, expected: Int) async throws -> Int? {
        let (count, sum, growth) = try await db.read { conn in
            let memory = MemoryPeak()
            let cursor = try conn.fetchCursor(TenIntegers.self)
            var count = 0
            var sum = 0
            while let record = try cursor.next() {
                memory.sample(row: count)
                sum &+= checksum(record)
                count += 1
            }
            memory.sample()
            return (count, sum, memory.growth)
        }
        try check(Step.connectionCursor.rawValue, count: count, sum: sum, rows: rows, expected: expected)
        return growth
    }

    /// Every row into one array, by the C loop and by `fetchAll` in a read. The memory each side adds is
    /// its result, which it holds when measured; the records are checked after the clock stops.
    private static func fetchAll(rows: Int, db: Database, select: OpaquePointer, expected: Int) async throws
        -> Measurement
    {
        var records: [TenIntegers] = []
        var reader: String?
        var failure: (any Error)?
        // Checks and drops the records the last run fetched, outside the timed runs.
        let checked = {
            if let name = reader {
                do {
                    try check(name, records, rows: rows, expected: expected)
                } catch {
                    failure = failure ?? error
                }
            }
            records = []
            reader = nil
        }
        let measurement = try await compare(
            rows: rows, .fetchAll,
            baseline: {
                checked()
                let memory = MemoryPeak()
                records = IntegerRecords.rows(select)
                reader = "the C fetch loop"
                memory.sample()
                return memory.growth
            },
            bindery: {
                checked()
                let memory = MemoryPeak()
                records = try await db.read { conn in try conn.fetchAll(TenIntegers.self) }
                reader = Step.fetchAll.rawValue
                memory.sample()
                return memory.growth
            })
        checked()
        if let failure {
            throw failure
        }
        return measurement
    }

    /// The processor time of the process so far (every thread, user and system), in seconds.
    private static func processorSeconds() -> Double {
        var time = timespec()
        guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    // MARK: Records

    /// The record of row `row`: its key is `row`, and every other column holds a value whose stored size
    /// is the same in every row (4, 4, 4, 1, 2, 6, 1, 8 and 0 bytes), so that a row takes as many bytes
    /// at 16 million rows as at 1 million and time per row measures the work, not a growing row.
    /// (``TenIntegers/init(_:)`` stores 3-byte integers for the first 1 million rows and 4-byte ones
    /// beyond 8 million.)
    @inline(__always)
    static func record(_ row: Int) -> TenIntegers {
        var record = TenIntegers(0)
        (record.c0, record.c1, record.c2, record.c3) = (
            row, 1_000_000_000 + row, 1_000_000_000 - row, -1_000_000_000 - row
        )
        (record.c4, record.c5, record.c6) = (row % 97, 10_000 + row % 20_000, (1 << 40) + row)
        (record.c7, record.c8, record.c9) = (42, Int.max - row, 1)
        return record
    }

    // MARK: Checking

    /// A value of every column of `record`, summed into the checksum of a scan.
    @inline(__always)
    static func checksum(_ record: TenIntegers) -> Int {
        record.c0 &+ record.c1 &+ record.c2 &+ record.c3 &+ record.c4 &+ record.c5 &+ record.c6 &+ record.c7
            &+ record.c8 &+ record.c9
    }

    private static func check(_ reader: String, count: Int, sum: Int, rows: Int, expected: Int) throws {
        guard count == rows, sum == expected else {
            throw BenchmarkError.mismatch("\(reader) read \(count) rows of \(rows), checksum \(sum), not \(expected)")
        }
    }

    private static func check(_ reader: String, _ records: [TenIntegers], rows: Int, expected: Int) throws {
        try check(
            reader, count: records.count, sum: records.reduce(0) { $0 &+ checksum($1) }, rows: rows, expected: expected)
    }

    /// The value `PRAGMA name` reads on the C side's connection.
    private static func pragma(_ raw: RawDatabase, _ name: String) throws -> String {
        let statement = try raw.prepare("PRAGMA \(name)")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
            throw BenchmarkError.sqlite("PRAGMA \(name) returned nothing")
        }
        return String(cString: text)
    }

    // MARK: Resident memory

    private static let residentKey = Array("VmRSS:".utf8)

    /// The process's resident memory in bytes (`VmRSS` in /proc/self/status); nil where there is none.
    static func residentBytes() -> Int? {
        #if os(Linux)
            let file = open("/proc/self/status", O_RDONLY)
            guard file >= 0 else { return nil }
            defer { close(file) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8192) { buffer -> Int? in
                guard let base = buffer.baseAddress else { return nil }
                var length = 0
                while length < buffer.count {
                    let count = read(file, base + length, buffer.count - length)
                    guard count > 0 else { break }
                    length += count
                }
                return residentBytes(in: UnsafeBufferPointer(start: base, count: length))
            }
        #else
            return nil
        #endif
    }

    /// The bytes of the `VmRSS:` line of a /proc status file (given in kB there).
    static func residentBytes(in status: UnsafeBufferPointer<UInt8>) -> Int? {
        let key = residentKey
        var index = 0
        while index + key.count <= status.count {
            if index == 0 || status[index - 1] == UInt8(ascii: "\n"),
                status[index..<index + key.count].elementsEqual(key)
            {
                var position = index + key.count
                while position < status.count, status[position] == UInt8(ascii: " ") || status[position] == 9 {
                    position += 1
                }
                var kilobytes = 0
                var digits = 0
                while position < status.count, status[position] >= UInt8(ascii: "0"),
                    status[position] <= UInt8(ascii: "9")
                {
                    kilobytes = kilobytes * 10 + Int(status[position] - UInt8(ascii: "0"))
                    digits += 1
                    position += 1
                }
                return digits > 0 ? kilobytes * 1024 : nil
            }
            index += 1
        }
        return nil
    }

    // MARK: Printing

    private static func printHeader(reference: Int) {
        print(
            "bindery-bench --scale: TenIntegers (10 INTEGER columns, rows of one size) in database files, WAL, synchronous = NORMAL"
        )
        let version = String(cString: sqlite3_libversion())
        print("directory: \(FileManager.default.temporaryDirectory.path); SQLite \(version)")
        #if os(Linux)
            if let load = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
                print("load average at start: \(load.split(separator: " ").prefix(3).joined(separator: " "))")
            }
        #else
            print("resident memory: not measured on this system (read from /proc/self/status on Linux)")
        #endif
        print(
            """
            ns/row: wall-clock time of the step / rows (inserts: the faster of 2, one in each order; reads: the fastest of 3); \
            ratio = Bindery / C; vs ref = ns/row / the same step's at \(grouped(reference)) rows \
            (CPU: the same with the process's processor time); RSS: growth of resident memory during the step \
            (peak, sampled every \(sampleInterval) rows); goals: Bindery vs ref ≤ \(format(insertTimeGoal, 2))× for \
            the insert, ≤ \(format(timeGoal, 2))× for the reads, \
            cursor RSS ≤ \(memoryGoal >> 20) MB
            """)
        fflush(nil)  // every output stream: the table appears as it is measured
    }

    private static func printColumns() {
        print(
            "\(pad("rows", 10, right: true)) \(pad("step", 26)) \(pad("Bindery ns/row", 14, right: true)) "
                + "\(pad("C ns/row", 9, right: true)) \(pad("ratio", 6, right: true)) "
                + "\(pad("vs ref", 7, right: true)) \(pad("C vs ref", 8, right: true)) "
                + "\(pad("CPU vs ref", 10, right: true)) \(pad("C CPU", 6, right: true)) "
                + "\(pad("RSS Bindery", 11, right: true)) \(pad("RSS C", 9, right: true))  verdict")
        fflush(nil)  // every output stream: the table appears as it is measured
    }

    private static func printLine(_ measurement: Measurement, reference: Measurement) {
        let growth = measurement.binderyPerRow / reference.binderyPerRow
        let goal = timeGoal(measurement.step)
        var verdicts = [growth <= goal ? "time ok" : "time OVER \(format(goal, 2))×"]
        if measurement.step.hasMemoryGoal {
            if let bytes = measurement.bindery.growth {
                verdicts.append(bytes <= memoryGoal ? "RSS ok" : "RSS OVER \(memoryGoal >> 20) MB")
            } else {
                verdicts.append("RSS not measured")
            }
        }
        let times = (measurement.cPerRow / reference.cPerRow)
        let processor = measurement.binderyProcessorPerRow / reference.binderyProcessorPerRow
        let cProcessor = measurement.cProcessorPerRow / reference.cProcessorPerRow
        print(
            "\(formatRows(measurement.rows)) \(pad(measurement.step.rawValue, 26)) "
                + "\(pad(format(measurement.binderyPerRow, 1), 14, right: true)) "
                + "\(pad(format(measurement.cPerRow, 1), 9, right: true)) "
                + "\(pad(format(measurement.bindery.wall / measurement.c.wall, 2) + "×", 6, right: true)) "
                + "\(pad(format(growth, 2) + "×", 7, right: true)) \(pad(format(times, 2) + "×", 8, right: true)) "
                + "\(pad(format(processor, 2) + "×", 10, right: true)) \(pad(format(cProcessor, 2) + "×", 6, right: true)) "
                + "\(pad(formatBytes(measurement.bindery.growth), 11, right: true)) "
                + "\(pad(formatBytes(measurement.c.growth), 9, right: true))  \(verdicts.joined(separator: ", "))")
        fflush(nil)  // every output stream: the table appears as it is measured
    }

    /// `rows` with thousands separators, right-aligned in 10 columns.
    static func formatRows(_ rows: Int) -> String {
        pad(grouped(rows), 10, right: true)
    }

    /// `number` with thousands separators.
    static func grouped(_ number: Int) -> String {
        var digits = String(number)
        var groups = ""
        while digits.count > 3 {
            groups = "," + digits.suffix(3) + groups
            digits.removeLast(3)
        }
        return digits + groups
    }

    /// Bytes as signed megabytes with one decimal, or "n/a".
    private static func formatBytes(_ bytes: Int?) -> String {
        guard let bytes else { return "n/a" }
        return (bytes < 0 ? "" : "+") + format(Double(bytes) / Double(1 << 20), 1) + " MB"
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        guard text.count < width else { return text }
        let padding = String(repeating: " ", count: width - text.count)
        return right ? padding + text : text + padding
    }

    private static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// The sizes of a `--scale-rows` argument, in millions of rows (`1,4` or `0.25,1`); nil when one
    /// of them is not a positive number.
    static func millions(from argument: String) -> [Double]? {
        let values = argument.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) > 0 && ($0 ?? 0) < 1e4 }) else { return nil }
        return values.compactMap { $0 }
    }
}
