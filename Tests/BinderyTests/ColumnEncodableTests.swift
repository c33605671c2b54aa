import Foundation
import Testing

@testable import Bindery

/// A record that writes its own columns (`ColumnEncodable`) is stored exactly as its `encode(to:)`
/// would store it, by every record operation, and a hand-written encoding that disagrees with the
/// Codable one is refused before anything is written.
@Suite struct ColumnEncodableTests {
    /// Counts calls from any thread. A lock guards the counts, which makes the `@unchecked Sendable` safe.
    final class CallCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]

        func add(_ name: String) {
            lock.lock()
            counts[name, default: 0] += 1
            lock.unlock()
        }

        func count(_ name: String) -> Int {
            lock.lock()
            defer { lock.unlock() }
            return counts[name, default: 0]
        }
    }

    enum Level: String, Codable, Sendable, CaseIterable { case low, high }

    /// Every kind of value a writer stores: numbers, text, a date, a UUID, a raw-value enum, JSON,
    /// bytes, and optionals that come and go.
    struct Reading: Record, ColumnEncodable, Equatable {
        static let tableName = "readings"
        /// Calls by `counter` name: each test uses its own, so that tests running side by side do not
        /// count each other's calls.
        static let counters = CallCounter()
        var id: Int64?
        var counter: String
        var sensor: String
        var value: Double
        var count: Int?
        var small: UInt8
        var large: UInt64
        var flag: Bool
        var takenAt: Date
        var device: UUID
        var level: Level
        var tags: [String]
        var raw: Data?

        enum CodingKeys: String, CodingKey {
            case id, counter, sensor, value, count, small, large, flag, takenAt, device, level, tags, raw
        }

        init(_ i: Int, counter: String) {
            id = nil
            self.counter = counter
            sensor = "s\(i % 7)"
            value = Double(i) / 8
            count = i % 5 == 0 ? nil : i * 3
            small = UInt8(i % 256)
            large = UInt64(i) * 1_000_003
            flag = i % 2 == 0
            takenAt = Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 61.25)
            device = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", i)) ?? UUID()
            level = i % 3 == 0 ? .high : .low
            tags = i % 4 == 0 ? [] : ["t\(i)", "all"]
            raw = i % 6 == 0 ? Data([UInt8(i % 256), 0, 255]) : nil
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            counter = try container.decode(String.self, forKey: .counter)
            sensor = try container.decode(String.self, forKey: .sensor)
            value = try container.decode(Double.self, forKey: .value)
            count = try container.decodeIfPresent(Int.self, forKey: .count)
            small = try container.decode(UInt8.self, forKey: .small)
            large = try container.decode(UInt64.self, forKey: .large)
            flag = try container.decode(Bool.self, forKey: .flag)
            takenAt = try container.decode(Date.self, forKey: .takenAt)
            device = try container.decode(UUID.self, forKey: .device)
            level = try container.decode(Level.self, forKey: .level)
            tags = try container.decode([String].self, forKey: .tags)
            raw = try container.decodeIfPresent(Data.self, forKey: .raw)
        }

        func encode(to encoder: any Encoder) throws {
            Reading.counters.add("encode(to:) \(counter)")
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(counter, forKey: .counter)
            try container.encode(sensor, forKey: .sensor)
            try container.encode(value, forKey: .value)
            try container.encodeIfPresent(count, forKey: .count)
            try container.encode(small, forKey: .small)
            try container.encode(large, forKey: .large)
            try container.encode(flag, forKey: .flag)
            try container.encode(takenAt, forKey: .takenAt)
            try container.encode(device, forKey: .device)
            try container.encode(level, forKey: .level)
            try container.encode(tags, forKey: .tags)
            try container.encodeIfPresent(raw, forKey: .raw)
        }

        func encodeColumns(to columns: inout ColumnWriter) throws {
            Reading.counters.add("encodeColumns \(counter)")
            try columns.encode(id, forKey: "id")
            try columns.encode(counter, forKey: "counter")
            try columns.encode(sensor, forKey: "sensor")
            try columns.encode(value, forKey: "value")
            try columns.encode(count, forKey: "count")
            try columns.encode(small, forKey: "small")
            try columns.encode(large, forKey: "large")
            try columns.encode(flag, forKey: "flag")
            try columns.encode(takenAt, forKey: "takenAt")
            try columns.encode(device, forKey: "device")
            try columns.encode(level, forKey: "level")
            try columns.encode(tags, forKey: "tags")
            try columns.encode(raw, forKey: "raw")
        }
    }

    /// The same columns written by Codable alone, to compare what is stored.
    struct PlainReading: Record, Equatable {
        static let tableName = "readings"
        var id: Int64?
        var counter: String
        var sensor: String
        var value: Double
        var count: Int?
        var small: UInt8
        var large: UInt64
        var flag: Bool
        var takenAt: Date
        var device: UUID
        var level: Level
        var tags: [String]
        var raw: Data?

        init(_ reading: Reading) {
            (id, counter, sensor, value, count) =
                (reading.id, reading.counter, reading.sensor, reading.value, reading.count)
            (small, large, flag, takenAt, device) =
                (reading.small, reading.large, reading.flag, reading.takenAt, reading.device)
            (level, tags, raw) = (reading.level, reading.tags, reading.raw)
        }
    }

    /// A record whose `encodeColumns(to:)` gets something wrong, chosen by `mistake`.
    struct Faulty: Record, ColumnEncodable {
        static let tableName = "faulty"
        var id: Int
        var a: Int
        var b: Int
        var name: String
        var mistake: String

        enum CodingKeys: String, CodingKey { case id, a, b, name }

        init(id: Int, a: Int, b: Int, name: String, mistake: String) {
            (self.id, self.a, self.b, self.name, self.mistake) = (id, a, b, name, mistake)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            a = try container.decode(Int.self, forKey: .a)
            b = try container.decode(Int.self, forKey: .b)
            name = try container.decode(String.self, forKey: .name)
            mistake = ""
        }

        func encodeColumns(to columns: inout ColumnWriter) throws {
            try columns.encode(id, forKey: "id")
            switch mistake {
            case "swapped":
                try columns.encode(b, forKey: "a")
                try columns.encode(a, forKey: "b")
            case "left out":
                try columns.encode(a, forKey: "a")
            case "misspelt":
                try columns.encode(a, forKey: "a")
                try columns.encode(b, forKey: "bb")
            case "extra":
                try columns.encode(a, forKey: "a")
                try columns.encode(b, forKey: "b")
                try columns.encode(a + b, forKey: "sum")
            case "wrong type":
                try columns.encode(String(a), forKey: "a")
                try columns.encode(b, forKey: "b")
            default:
                try columns.encode(a, forKey: "a")
                try columns.encode(b, forKey: "b")
            }
            try columns.encode(name, forKey: "name")
        }
    }

    private static let readingsTable = """
        CREATE TABLE readings (id INTEGER PRIMARY KEY, counter TEXT NOT NULL, sensor TEXT NOT NULL,
            value REAL NOT NULL, count INTEGER DEFAULT 77, small INTEGER NOT NULL, large INTEGER NOT NULL,
            flag INTEGER NOT NULL, takenAt TEXT NOT NULL, device TEXT NOT NULL, level TEXT NOT NULL,
            tags TEXT NOT NULL, raw BLOB)
        """

    private func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: Self.readingsTable)
        try conn.execute(script: "CREATE TABLE faulty (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, name TEXT)")
        return conn
    }

    /// Every row of `readings` as raw values, in id order.
    private func storedRows(_ conn: Connection) throws -> [[SQLiteValue]] {
        try conn.rows("SELECT * FROM readings ORDER BY id").map { row in
            try (0..<row.count).map { try row[$0] as SQLiteValue }
        }
    }

    @Test func bulkInsertWritesByHandWhatCodableWouldStore() throws {
        let counter = "bulk"
        let records = (1...500).map { Reading($0, counter: counter) }
        let byHand = try makeConnection()
        #expect(try byHand.insert(contentsOf: records) == records.count)
        let byCodable = try makeConnection()
        #expect(try byCodable.insert(contentsOf: records.map(PlainReading.init)) == records.count)

        #expect(try storedRows(byHand) == storedRows(byCodable))
        // A nil count was left out of the INSERT, so the column default applies, as with Codable.
        #expect(try byHand.count(Reading.self, where: "count = 77") == 100)
        var expected = records
        for index in expected.indices { expected[index].id = Int64(index + 1) }
        #expect(try byHand.fetchAll(Reading.self, orderBy: "id").map(\.sensor) == expected.map(\.sensor))
        // Each record was written by hand, once, or twice when it was encoded into a batch that its
        // shape did not end (a nil count every fifth record); encode(to:) ran only for the first
        // records, to check.
        let written = Reading.counters.count("encodeColumns \(counter)")
        #expect(written >= records.count && written <= records.count + records.count / 5)
        #expect(Reading.counters.count("encode(to:) \(counter)") == RowEncoderCore.rowsToVerify)
    }

    @Test func everyRecordOperationWritesByHand() async throws {
        let counter = "operations"
        let conn = try makeConnection()
        var reading = Reading(5, counter: counter)
        let stored = try conn.insert(reading)
        #expect(stored.id == 1)
        #expect(stored.count == 77)  // nil is left out of an INSERT, so the default applies
        reading.id = stored.id
        reading.count = 12
        reading.tags = ["changed"]
        try conn.update(reading)
        #expect(try conn.find(Reading.self, id: 1)?.tags == ["changed"])
        reading.count = nil
        try conn.update(reading)  // update writes NULL for nil
        #expect(try conn.count(Reading.self, where: "count IS NULL") == 1)
        reading.sensor = "only this"
        reading.value = -1
        try conn.update(reading, columns: ["sensor"])
        #expect(try conn.find(Reading.self, id: 1)?.sensor == "only this")
        #expect(try conn.find(Reading.self, id: 1)?.value == 5.0 / 8)
        reading.id = 2
        #expect(try conn.upsert(reading).id == 2)
        reading.sensor = "second"
        #expect(try conn.upsert(reading).sensor == "second")
        #expect(try conn.count(Reading.self) == 2)
        #expect(try conn.delete(reading))
        #expect(try conn.count(Reading.self) == 1)

        let pairs = try RowEncoder().encode(reading)
        #expect(pairs.first { $0.column == "takenAt" }?.value == .text("2023-11-14 22:18:26.250"))
        #expect(pairs.first { $0.column == "level" }?.value == .text("low"))
        #expect(pairs.first { $0.column == "tags" }?.value == .text(#"["changed"]"#))

        let database = try Database.inMemory()
        try await database.write { conn in try conn.execute(script: Self.readingsTable) }
        let records = (1...50).map { Reading($0, counter: counter) }
        #expect(try await database.insert(contentsOf: records) == 50)
        #expect(try await database.count(Reading.self) == 50)
        try await database.close()
        // insert, 2 updates, update(columns:), 2 upserts, delete, RowEncoder and 50 bulk records.
        #expect(Reading.counters.count("encodeColumns \(counter)") == 8 + 50)
    }

    @Test(arguments: [
        ("swapped", #"column "a" holds a different integer"#),
        ("left out", #"column "b" is left out"#),
        ("misspelt", #"column "b" is left out"#),
        ("extra", #"column "sum" is extra"#),
        ("wrong type", #"column "a" holds text instead of integer"#),
    ])
    func aWrongHandWrittenEncodingIsRefusedBeforeAnythingIsWritten(mistake: String, message: String) throws {
        let conn = try makeConnection()
        let record = Faulty(id: 1, a: 10, b: 20, name: "x", mistake: mistake)
        do {
            try conn.insert(record)
            Issue.record("an encodeColumns(to:) that \(mistake) a column was accepted")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(
                context.debugDescription
                    == "encodeColumns(to:) of Faulty does not write what encode(to:) writes: \(message)")
            #expect(context.codingPath.count == 1)
        }
        #expect(try conn.count(Faulty.self) == 0)

        // The same in a bulk insert whose first records happen to agree: a later one of those checked
        // shows the mistake, and the transaction leaves no row.
        var records = (1...5).map {
            Faulty(id: $0, a: 7, b: 7, name: "n", mistake: mistake == "swapped" ? "" : mistake)
        }
        records.append(Faulty(id: 6, a: 1, b: 2, name: "n", mistake: mistake))
        #expect(throws: EncodingError.self) { try conn.insert(contentsOf: records) }
        #expect(try conn.count(Faulty.self) == 0)
    }

    @Test func aCorrectEncodingIsCheckedOnlyForTheFirstRecordsOfEachConnection() throws {
        let counter = "checks"
        let records = (1...20).map { Reading($0, counter: counter) }
        for _ in 0..<2 {
            let conn = try makeConnection()
            for record in records {
                try conn.insert(record)
            }
        }
        #expect(Reading.counters.count("encodeColumns \(counter)") == 40)
        #expect(Reading.counters.count("encode(to:) \(counter)") == 2 * RowEncoderCore.rowsToVerify)
    }

    @Test func valuesSQLiteCannotHoldThrowNamingTheColumn() throws {
        let conn = try makeConnection()
        var tooLarge = Reading(1, counter: "errors")
        tooLarge.large = UInt64.max
        var notANumber = Reading(2, counter: "errors")
        notANumber.value = .nan
        for record in [tooLarge, notANumber] {
            do {
                try conn.insert(contentsOf: (1...20).map { Reading($0, counter: "errors") } + [record])
                Issue.record("a value SQLite cannot hold was inserted")
            } catch let EncodingError.invalidValue(_, context) {
                #expect(["large", "value"].contains(context.codingPath.last?.stringValue ?? ""))
            }
        }
        #expect(try conn.count(Reading.self) == 0)
    }
}

/// The checks that run on every record, after the first ones were compared value by value.
@Suite struct ColumnEncodableLaterRecordTests {
    /// Leaves `note` out when it is nil, while `encode(to:)` writes NULL (so an update would keep an
    /// old note): or, with `mirrorsCodable`, leaves it out both ways.
    struct Note: Record, ColumnEncodable, Equatable {
        static let tableName = "notes"
        var id: Int
        var note: String?
        var mirrorsCodable = false

        enum CodingKeys: String, CodingKey { case id, note }

        init(id: Int, note: String?, mirrorsCodable: Bool) {
            (self.id, self.note, self.mirrorsCodable) = (id, note, mirrorsCodable)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            note = try container.decodeIfPresent(String.self, forKey: .note)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            if note != nil || !mirrorsCodable {
                try container.encodeIfPresent(note, forKey: .note)
            }
        }

        func encodeColumns(to columns: inout ColumnWriter) throws {
            try columns.encode(id, forKey: "id")
            if let note {
                try columns.encode(note, forKey: "note")
            }
        }
    }

    /// Writes its columns out of order, and `b` twice.
    struct Shuffled: Record, ColumnEncodable, Equatable {
        static let tableName = "shuffled"
        var id: Int
        var a: Int
        var b: Int

        func encodeColumns(to columns: inout ColumnWriter) throws {
            try columns.encode(b + 1, forKey: "b")
            if id % 2 == 0 {
                try columns.encode(a, forKey: "a")
                try columns.encode(id, forKey: "id")
            } else {
                try columns.encode(id, forKey: "id")
                try columns.encode(a, forKey: "a")
            }
            try columns.encode(b, forKey: "b")
        }
    }

    /// Keeps its writer after `encodeColumns(to:)` returns.
    struct Keeper: Record, ColumnEncodable {
        static let tableName = "keepers"
        nonisolated(unsafe) static var kept: ColumnWriter?
        var id: Int

        func encodeColumns(to columns: inout ColumnWriter) throws {
            try columns.encode(id, forKey: "id")
            Keeper.kept = columns
        }
    }

    @Test func aColumnLeftOutOnlyAfterTheCheckedRecordsIsStillRefused() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE notes (id INTEGER PRIMARY KEY, note TEXT)")
        var records = (1...20).map { Note(id: $0, note: "n\($0)", mirrorsCodable: false) }
        records[14].note = nil
        do {
            try conn.insert(contentsOf: records)
            Issue.record("a record whose encodeColumns(to:) left a column out was inserted")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.hasSuffix(#"column "note" is left out"#))
        }
        #expect(try conn.count(Note.self) == 0)
        try conn.insert(contentsOf: records[..<14])
        var changed = records[3]
        changed.note = nil
        #expect(throws: EncodingError.self) { try conn.update(changed) }
        #expect(try conn.find(Note.self, id: 4)?.note == "n4")
    }

    @Test func aColumnLeftOutBothWaysIsAccepted() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE notes (id INTEGER PRIMARY KEY, note TEXT DEFAULT 'none')")
        let records = (1...40).map { Note(id: $0, note: $0 % 9 == 0 ? nil : "n\($0)", mirrorsCodable: true) }
        #expect(try conn.insert(contentsOf: records) == 40)
        #expect(try conn.count(Note.self, where: "note = 'none'") == 4)
    }

    @Test func keysOutOfOrderOrWrittenTwiceKeepTheLastValue() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE shuffled (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER)")
        let records = (1...50).map { Shuffled(id: $0, a: $0 * 10, b: $0 * 100) }
        // Both ways store the same row (the second b wins), so nothing is refused, and every record
        // gets its own values whether its keys come in the learned order or not.
        #expect(try conn.insert(contentsOf: records) == 50)
        #expect(try conn.fetchAll(Shuffled.self, orderBy: "id") == records)
        try conn.update(Shuffled(id: 7, a: -1, b: -2))
        #expect(try conn.find(Shuffled.self, id: 7) == Shuffled(id: 7, a: -1, b: -2))
    }

    @Test func aWriterKeptPastItsCallRefusesToWrite() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE keepers (id INTEGER PRIMARY KEY)")
        try conn.insert(Keeper(id: 1))
        guard var kept = Keeper.kept else {
            Issue.record("encodeColumns(to:) did not run")
            return
        }
        do {
            try kept.encode(99, forKey: "id")
            Issue.record("a kept writer wrote into a row it does not belong to")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.contains("used after the encodeColumns(to:) call"))
        }
        try conn.insert(Keeper(id: 2))
        #expect(try conn.fetchAll(Int.self, sql: "SELECT id FROM keepers ORDER BY id") == [1, 2])
    }
}
