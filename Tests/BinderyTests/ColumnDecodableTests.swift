import Foundation
import Testing

@testable import Bindery

/// A record that reads its own columns (`ColumnDecodable`) is read by every fetch exactly as its
/// `init(from:)` would read it, with the same errors, and a hand-written decoding that disagrees with
/// the Codable one is refused.
@Suite struct ColumnDecodableTests {
    typealias CallCounter = ColumnEncodableTests.CallCounter
    typealias Level = ColumnEncodableTests.Level

    struct Sample: Record, ColumnCodable, Equatable {
        static let tableName = "samples"
        static let counters = CallCounter()
        var id: Int64?
        var counter: String
        var name: String
        var score: Double?
        var rank: Int32
        var small: UInt8?
        var flag: Bool
        var takenAt: Date
        var device: UUID
        var level: Level
        var tags: [String]
        var raw: Data?

        enum CodingKeys: String, CodingKey {
            case id, counter, name, score, rank, small, flag, takenAt, device, level, tags, raw
        }

        init(_ i: Int, counter: String) {
            id = Int64(i)
            self.counter = counter
            name = "n\(i)"
            score = i % 3 == 0 ? nil : Double(i) * 1.5
            rank = Int32(-i)
            small = i % 4 == 0 ? nil : UInt8(i % 200)
            flag = i % 2 == 1
            takenAt = Date(timeIntervalSince1970: 1_600_000_000 + Double(i) * 3.5)
            device = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", i)) ?? UUID()
            level = i % 5 == 0 ? .high : .low
            tags = ["x\(i)"]
            raw = i % 6 == 0 ? Data([1, 2, UInt8(i % 256)]) : nil
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            counter = try container.decode(String.self, forKey: .counter)
            Sample.counters.add("init(from:) \(counter)")
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            score = try container.decodeIfPresent(Double.self, forKey: .score)
            rank = try container.decode(Int32.self, forKey: .rank)
            small = try container.decodeIfPresent(UInt8.self, forKey: .small)
            flag = try container.decode(Bool.self, forKey: .flag)
            takenAt = try container.decode(Date.self, forKey: .takenAt)
            device = try container.decode(UUID.self, forKey: .device)
            level = try container.decode(Level.self, forKey: .level)
            tags = try container.decode([String].self, forKey: .tags)
            raw = try container.decodeIfPresent(Data.self, forKey: .raw)
        }

        init(columns: ColumnReader) throws {
            counter = try columns.decode(String.self, forKey: "counter")
            Sample.counters.add("init(columns:) \(counter)")
            id = try columns.decodeIfPresent(Int64.self, forKey: "id")
            name = try columns.decode(String.self, forKey: "name")
            score = try columns.decodeIfPresent(Double.self, forKey: "score")
            rank = try columns.decode(Int32.self, forKey: "rank")
            small = try columns.decodeIfPresent(UInt8.self, forKey: "small")
            flag = try columns.decode(Bool.self, forKey: "flag")
            takenAt = try columns.decode(Date.self, forKey: "takenAt")
            device = try columns.decode(UUID.self, forKey: "device")
            level = try columns.decode(Level.self, forKey: "level")
            tags = try columns.decode([String].self, forKey: "tags")
            raw = try columns.decodeIfPresent(Data.self, forKey: "raw")
        }

        func encodeColumns(to columns: inout ColumnWriter) throws {
            try columns.encode(id, forKey: "id")
            try columns.encode(counter, forKey: "counter")
            try columns.encode(name, forKey: "name")
            try columns.encode(score, forKey: "score")
            try columns.encode(rank, forKey: "rank")
            try columns.encode(small, forKey: "small")
            try columns.encode(flag, forKey: "flag")
            try columns.encode(takenAt, forKey: "takenAt")
            try columns.encode(device, forKey: "device")
            try columns.encode(level, forKey: "level")
            try columns.encode(tags, forKey: "tags")
            try columns.encode(raw, forKey: "raw")
        }
    }

    /// Reads `a` and `b` crosswise when `swapped` is set in the row.
    struct Crossed: Record, ColumnDecodable {
        static let tableName = "crossed"
        var id: Int
        var a: Int
        var b: Int

        init(columns: ColumnReader) throws {
            id = try columns.decode(Int.self, forKey: "id")
            let swapped = try columns.decodeIfPresent(Bool.self, forKey: "swapped") ?? false
            a = try columns.decode(Int.self, forKey: swapped ? "b" : "a")
            b = try columns.decode(Int.self, forKey: swapped ? "a" : "b")
        }
    }

    /// Decodable only: nothing to compare the two decodings with, so nothing is checked.
    struct Pair: Decodable, ColumnDecodable, Equatable {
        static let counters = CallCounter()
        var number: Int
        var word: String?

        enum CodingKeys: String, CodingKey { case number, word }

        init(number: Int, word: String?) {
            (self.number, self.word) = (number, word)
        }

        init(from decoder: any Decoder) throws {
            Pair.counters.add("init(from:)")
            let container = try decoder.container(keyedBy: CodingKeys.self)
            number = try container.decode(Int.self, forKey: .number)
            word = try container.decodeIfPresent(String.self, forKey: .word)
        }

        init(columns: ColumnReader) throws {
            Pair.counters.add("init(columns:)")
            number = try columns.decode(Int.self, forKey: "number")
            word = try columns.decodeIfPresent(String.self, forKey: "word")
        }
    }

    /// One 64-bit column.
    struct Big: Decodable, ColumnDecodable {
        var n: Int64

        init(columns: ColumnReader) throws {
            n = try columns.decode(Int64.self, forKey: "n")
        }
    }

    /// Keeps its reader after `init(columns:)` returns.
    struct Keeper: Decodable, ColumnDecodable {
        nonisolated(unsafe) static var kept: ColumnReader?
        var n: Int

        init(columns: ColumnReader) throws {
            n = try columns.decode(Int.self, forKey: "n")
            Keeper.kept = columns
        }
    }

    /// Stored with `.snakeCase` keys.
    struct Snake: Record, ColumnCodable, Equatable {
        static let tableName = "snakes"
        var id: Int
        var takenAt: Int

        init(id: Int, takenAt: Int) {
            (self.id, self.takenAt) = (id, takenAt)
        }

        init(columns: ColumnReader) throws {
            id = try columns.decode(Int.self, forKey: "id")
            takenAt = try columns.decode(Int.self, forKey: "takenAt")
        }

        func encodeColumns(to columns: inout ColumnWriter) throws {
            try columns.encode(id, forKey: "id")
            try columns.encode(takenAt, forKey: "takenAt")
        }
    }

    private func makeConnection(_ counter: String, rows: Int) throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Sample.self)
        try conn.insert(contentsOf: (1...rows).map { Sample($0, counter: counter) })
        return conn
    }

    @Test func everyFetchReadsByHandWhatCodableReads() throws {
        let counter = "fetches"
        let conn = try makeConnection(counter, rows: 300)
        let expected = (1...300).map { Sample($0, counter: counter) }
        #expect(try conn.fetchAll(Sample.self, orderBy: "id") == expected)
        #expect(try conn.fetchAll(Sample.self, sql: "SELECT * FROM samples ORDER BY id") == expected)
        #expect(try conn.fetchOne(Sample.self, where: "id = \(7)") == expected[6])
        #expect(try conn.find(Sample.self, id: 12) == expected[11])
        let cursor = try conn.fetchCursor(Sample.self, where: "id > \(290)", orderBy: "id")
        var tail: [Sample] = []
        while let sample = try cursor.next() { tail.append(sample) }
        #expect(tail == Array(expected[290...]))
        var new = Sample(301, counter: counter)
        new.id = nil
        new.score = nil
        #expect(try conn.insert(new).id == 301)
        new.id = 301
        new.name = "upserted"
        #expect(try conn.upsert(new) == new)

        // 300 + 300 + 1 + 1 + 10 + insert + upsert: every row was read by hand; init(from:) ran only
        // to check the first rows of each statement.
        #expect(Sample.counters.count("init(columns:) \(counter)") == 614)
        let checked = Sample.counters.count("init(from:) \(counter)")
        #expect(checked > 0 && checked <= 7 * RowEncoderCore.rowsToVerify)
    }

    @Test func errorsAreTheOnesCodableWouldThrow() throws {
        let counter = "errors"
        let conn = try makeConnection(counter, rows: 20)
        try conn.execute("UPDATE samples SET rank = \(5_000_000_000 as Int64) WHERE id = \(15)")
        do {
            _ = try conn.fetchAll(Sample.self, orderBy: "id")
            Issue.record("an INTEGER too large for Int32 was decoded")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.last?.stringValue == "rank")
            #expect(context.debugDescription.contains("Int32"))
        }
        // Row 15 is past the rows decoded both ways: init(columns:) alone found the error.
        #expect(Sample.counters.count("init(from:) \(counter)") == RowEncoderCore.rowsToVerify)
        #expect(Sample.counters.count("init(columns:) \(counter)") == 15)
        #expect(throws: DecodingError.self) {
            try conn.fetchAll(
                Sample.self,
                sql: "SELECT id, counter, name, score, NULL AS rank, small, flag, takenAt, device, level, tags, raw "
                    + "FROM samples WHERE id = 1")
        }
        do {
            _ = try conn.fetchAll(Sample.self, sql: "SELECT id, counter FROM samples")
            Issue.record("a row without a name column was decoded")
        } catch let DecodingError.keyNotFound(key, context) {
            #expect(key.stringValue == "name")
            #expect(context.debugDescription.contains(#"no column "name""#))
        }
    }

    @Test func aWrongHandWrittenDecodingIsRefused() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE crossed (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, swapped INTEGER)")
        try conn.execute(script: "INSERT INTO crossed VALUES (1, 5, 5, 1), (2, 1, 2, 0), (3, 3, 4, 1)")
        // Row 1 reads the same either way; row 3 does not.
        do {
            _ = try conn.fetchAll(Crossed.self, orderBy: "id")
            Issue.record("an init(columns:) that reads two columns crosswise was accepted")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(
                context.debugDescription
                    == #"init(columns:) of Crossed does not read what init(from:) reads: encoded again, column "a" holds a different integer"#
            )
            #expect(context.codingPath.last?.stringValue == "a")
        }
        #expect(try conn.fetchAll(Crossed.self, where: "swapped = 0").map(\.b) == [2])
    }

    @Test func aDecodableOnlyTypeIsReadByHandWithoutACheck() throws {
        let conn = try Connection.inMemory()
        let pairs = try conn.fetchAll(
            Pair.self, sql: "SELECT 1 AS number, 'one' AS word UNION ALL SELECT 2, NULL ORDER BY 1")
        #expect(pairs == [Pair(number: 1, word: "one"), Pair(number: 2, word: nil)])
        // An absent column throws, optional or not: nil means NULL, not "not selected".
        #expect(throws: DecodingError.self) { try conn.fetchAll(Pair.self, sql: "SELECT 3 AS number") }
        #expect(Pair.counters.count("init(columns:)") == 3)
        #expect(Pair.counters.count("init(from:)") == 0)
    }

    @Test func aValueThatCannotBeEncodedAgainIsReadWithoutTheCheck() throws {
        let conn = try makeConnection("far future", rows: 3)
        // Milliseconds stored by mistake: a date in year 55,800, which init(from:) reads too, but which
        // cannot be stored again.
        let samples = try conn.fetchAll(
            Sample.self,
            sql: "SELECT id, counter, name, score, rank, small, flag, "
                + "CASE id WHEN 2 THEN 1700000000000 ELSE takenAt END AS takenAt, device, level, tags, raw "
                + "FROM samples ORDER BY id")
        #expect(samples.count == 3)
        #expect(samples[1].takenAt.timeIntervalSince1970 == 1_700_000_000_000)
    }

    @Test func anInt64ErrorNamesInt64() throws {
        let conn = try Connection.inMemory()
        do {
            _ = try conn.fetchAll(Big.self, sql: "SELECT 'abc' AS n")
            Issue.record("TEXT was decoded as an Int64")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("Int64"))
        } catch let DecodingError.typeMismatch(type, _) {
            #expect(type is Int64.Type)
        }
        #expect(try conn.fetchAll(Big.self, sql: "SELECT 5000000000 AS n").map(\.n) == [5_000_000_000])
    }

    @Test func aReaderKeptPastItsCallRefusesToRead() throws {
        let conn = try Connection.inMemory()
        #expect(try conn.fetchAll(Keeper.self, sql: "SELECT 1 AS n UNION ALL SELECT 2").map(\.n) == [1, 2])
        guard let kept = Keeper.kept else {
            Issue.record("init(columns:) did not run")
            return
        }
        do {
            _ = try kept.decode(Int.self, forKey: "n")
            Issue.record("a kept reader read a row that is gone")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("used after the init(columns:) call"))
        }
    }

    @Test func snakeCaseKeysNameTheColumns() throws {
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(keyStrategy: .snakeCase)
        try conn.execute(script: "CREATE TABLE snakes (id INTEGER PRIMARY KEY, taken_at INTEGER NOT NULL)")
        let snakes = (1...20).map { Snake(id: $0, takenAt: $0 * 7) }
        #expect(try conn.insert(contentsOf: snakes) == 20)
        #expect(try conn.fetchAll(Snake.self, orderBy: "id") == snakes)
        #expect(try conn.fetchOne(Int.self, sql: "SELECT taken_at FROM snakes WHERE id = 3") == 21)
    }
}
