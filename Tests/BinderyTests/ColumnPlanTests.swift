import Foundation
import Testing

@testable import Bindery

/// A bulk insert of `ColumnEncodable` records binds each value of a record of the planned shape to its
/// parameter as it is written (see `ColumnPlan`): every value must land in its own row and column, and
/// every record that leaves the plan (keys in another order, a key skipped, written twice or extra, a
/// NULL, text, an error, a writer kept from an earlier record) must be stored, refused or reported as
/// without the plan.
@Suite struct ColumnPlanTests {
    /// Integers, a real, an optional and a flag, each record's values its own.
    struct Wide: Record, ColumnEncodable, Equatable {
        static let tableName = "wide"
        var id: Int
        var a: Int
        var b: Double
        var c: Int?
        var d: Bool

        init(_ i: Int, nilC: Bool = false) {
            (id, a, b, c, d) = (i, i * 7 + 1, Double(i) / 4, nilC ? nil : -i, i % 3 == 0)
        }

        func encodeColumns(to columns: inout ColumnWriter) throws {
            try columns.encode(id, forKey: "id")
            try columns.encode(a, forKey: "a")
            try columns.encode(b, forKey: "b")
            try columns.encode(c, forKey: "c")
            try columns.encode(d, forKey: "d")
        }
    }

    /// Writes its keys as `quirk` says: 0 in order, 1 reversed, 2 with `a` written twice (the last
    /// value wins), 3 without `c` (as its `encode(to:)` does then), 4 with an extra key `e` (which its
    /// `encode(to:)` does not write), 5 with `a` and `b` swapped.
    struct Shifting: Record, ColumnEncodable, Equatable {
        static let tableName = "shifting"
        var id: Int
        var a: Int
        var b: Int
        var c: Int
        var quirk: Int

        enum CodingKeys: String, CodingKey { case id, a, b, c, quirk }

        init(_ i: Int, quirk: Int = 0) {
            (id, a, b, c, self.quirk) = (i, i * 10, i * 100, i * 1000, quirk)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            a = try container.decode(Int.self, forKey: .a)
            b = try container.decode(Int.self, forKey: .b)
            c = try container.decode(Int.self, forKey: .c)
            quirk = try container.decode(Int.self, forKey: .quirk)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(a, forKey: .a)
            try container.encode(b, forKey: .b)
            if quirk != 3 {
                try container.encode(c, forKey: .c)
            }
            try container.encode(quirk, forKey: .quirk)
        }

        func encodeColumns(to columns: inout ColumnWriter) throws {
            switch quirk {
            case 1:
                try columns.encode(quirk, forKey: "quirk")
                try columns.encode(c, forKey: "c")
                try columns.encode(b, forKey: "b")
                try columns.encode(a, forKey: "a")
                try columns.encode(id, forKey: "id")
            case 5:
                try columns.encode(id, forKey: "id")
                try columns.encode(b, forKey: "b")
                try columns.encode(a, forKey: "a")
                try columns.encode(c, forKey: "c")
                try columns.encode(quirk, forKey: "quirk")
            case 2:
                try columns.encode(id, forKey: "id")
                try columns.encode(-1, forKey: "a")
                try columns.encode(b, forKey: "b")
                try columns.encode(a, forKey: "a")
                try columns.encode(c, forKey: "c")
                try columns.encode(quirk, forKey: "quirk")
            default:
                try columns.encode(id, forKey: "id")
                try columns.encode(a, forKey: "a")
                try columns.encode(b, forKey: "b")
                if quirk != 3 {
                    try columns.encode(c, forKey: "c")
                }
                try columns.encode(quirk, forKey: "quirk")
                if quirk == 4 {
                    try columns.encode(0, forKey: "e")
                }
            }
        }
    }

    /// A label that is nil for most records and text for some, or text for all.
    struct Labelled: Record, ColumnEncodable, Equatable {
        static let tableName = "labelled"
        var id: Int
        var label: String?
        var n: Int

        func encodeColumns(to columns: inout ColumnWriter) throws {
            try columns.encode(id, forKey: "id")
            try columns.encode(label, forKey: "label")
            try columns.encode(n, forKey: "n")
        }
    }

    enum Size: Int, Codable { case small = 1, large = 2 }

    /// Values the writer converts before they are bound (an optional, a `UInt64`, a raw-value enum),
    /// counting its `encodeColumns(to:)` calls: each record that leaves the plan is encoded twice.
    struct Converted: Record, ColumnEncodable, Equatable {
        static let tableName = "converted"
        nonisolated(unsafe) static var calls = 0
        var id: Int
        var maybe: Int?
        var big: UInt64
        var size: Size

        func encodeColumns(to columns: inout ColumnWriter) throws {
            Converted.calls += 1
            try columns.encode(id, forKey: "id")
            try columns.encode(maybe, forKey: "maybe")
            try columns.encode(big, forKey: "big")
            try columns.encode(size, forKey: "size")
        }
    }

    struct Boom: Error, Equatable {
        let id: Int
    }

    /// Throws from `encodeColumns(to:)` when `fails`, which is no column.
    struct Thrower: Record, ColumnEncodable {
        static let tableName = "throwers"
        var id: Int
        var x: Double
        var fails = false

        enum CodingKeys: String, CodingKey { case id, x }

        func encodeColumns(to columns: inout ColumnWriter) throws {
            if fails {
                throw Boom(id: id)
            }
            try columns.encode(id, forKey: "id")
            try columns.encode(x, forKey: "x")
        }
    }

    /// Keeps each record's writer, and record 300 writes through the one kept from the record before
    /// rather than its own.
    struct Borrower: Record, ColumnEncodable {
        static let tableName = "borrowers"
        nonisolated(unsafe) static var kept: ColumnWriter?
        var id: Int

        func encodeColumns(to columns: inout ColumnWriter) throws {
            if id == 300, var old = Borrower.kept {
                try old.encode(id, forKey: "id")
            } else {
                Borrower.kept = columns
                try columns.encode(id, forKey: "id")
            }
        }
    }

    /// Calls back into its connection from `encodeColumns(to:)`: record 250 inserts a `Side` and
    /// counts, record 260 inserts another `Caller`.
    struct Caller: Record, ColumnEncodable {
        static let tableName = "callers"
        nonisolated(unsafe) static var connection: Connection?
        var id: Int
        var v: Int

        func encodeColumns(to columns: inout ColumnWriter) throws {
            if id == 250 {
                try Caller.connection?.insert(Side(id: 1))
                _ = try Caller.connection?.count(Caller.self)
            }
            if id == 260 {
                try Caller.connection?.insert(Caller(id: 100_000, v: 5))
            }
            try columns.encode(id, forKey: "id")
            try columns.encode(v, forKey: "v")
        }
    }

    struct Side: Record {
        static let tableName = "sides"
        var id: Int
    }

    @Test func eachValueLandsInItsOwnRowAndColumn() throws {
        let conn = try Connection.inMemory()
        // Columns in another order than the record writes them, and no constraint that a value bound
        // to the wrong parameter could break (which would send the records one by one).
        try conn.execute(script: "CREATE TABLE wide (d INTEGER, c INTEGER, b REAL, a INTEGER, id INTEGER)")
        // A NULL now and then changes the shape in the middle of a batch.
        let records = (0..<1_050).map { Wide($0, nilC: $0 % 250 == 7) }
        #expect(try conn.insert(contentsOf: records) == 1_050)
        #expect(try conn.fetchAll(Wide.self, orderBy: "id") == records)
    }

    @Test func recordsThatNullAColumnThroughoutFollowTheirOwnPlan() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE wide (id INTEGER, a INTEGER, b REAL, c INTEGER, d INTEGER)")
        // The first 500 leave c NULL (a plan with a key and no parameter), the rest do not.
        let records = (0..<1_000).map { Wide($0, nilC: $0 < 500) }
        #expect(try conn.insert(contentsOf: records) == 1_000)
        #expect(try conn.fetchAll(Wide.self, orderBy: "id") == records)
    }

    @Test func valuesTheWriterConvertsFollowThePlan() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE converted (id INTEGER, maybe INTEGER, big INTEGER, size INTEGER)")
        let records = (0..<1_000).map { Converted(id: $0, maybe: $0 * 2, big: UInt64($0) << 40, size: .large) }
        Converted.calls = 0
        #expect(try conn.insert(contentsOf: records) == 1_000)
        // Each record encoded once: none left the plan to be encoded again.
        #expect(Converted.calls == 1_000)
        #expect(try conn.fetchAll(Converted.self, orderBy: "id") == records)
    }

    @Test func keysReorderedRepeatedOrSkippedMidwayKeepTheirValues() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: "CREATE TABLE shifting (quirk INTEGER, c INTEGER DEFAULT -7, b INTEGER, a INTEGER, id INTEGER)")
        let quirks = [150: 1, 151: 1, 420: 2, 555: 5, 777: 3, 778: 2, 779: 1, 901: 3, 1_001: 5]
        let records = (0..<1_200).map { Shifting($0, quirk: quirks[$0] ?? 0) }
        #expect(try conn.insert(contentsOf: records) == 1_200)
        var expected = records
        for (index, quirk) in quirks where quirk == 3 {
            expected[index].c = -7
        }
        #expect(try conn.fetchAll(Shifting.self, orderBy: "id") == expected)
    }

    @Test func anExtraKeyLongAfterTheCheckedRecordsIsRefused() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: "CREATE TABLE shifting (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c INTEGER, quirk INTEGER)")
        let records = (0..<1_000).map { Shifting($0, quirk: $0 == 600 ? 4 : 0) }
        do {
            try conn.insert(contentsOf: records)
            Issue.record("a record writing an extra column was inserted")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.hasSuffix(#"column "e" is extra"#))
        }
        #expect(try conn.count(Shifting.self) == 0)
    }

    @Test(arguments: [97, 1])
    func textNowAndThenOrAlwaysIsStored(every: Int) throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE labelled (id INTEGER PRIMARY KEY, label TEXT, n INTEGER)")
        let records = (0..<1_000).map { Labelled(id: $0, label: $0 % every == 0 ? "l\($0)" : nil, n: $0 * 3) }
        #expect(try conn.insert(contentsOf: records) == 1_000)
        #expect(try conn.fetchAll(Labelled.self, orderBy: "id") == records)
    }

    @Test func anErrorThrownByRecord150InsertsNothing() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE throwers (id INTEGER PRIMARY KEY, x REAL)")
        var records = (0..<1_000).map { Thrower(id: $0, x: Double($0)) }
        records[150].fails = true
        #expect(throws: Boom(id: 150)) { try conn.insert(contentsOf: records) }
        #expect(try conn.count(Thrower.self) == 0)
        records[150].fails = false
        records[300].x = .nan
        #expect(throws: EncodingError.self) { try conn.insert(contentsOf: records) }
        #expect(try conn.count(Thrower.self) == 0)
        records[300].x = 1
        #expect(try conn.insert(contentsOf: records) == 1_000)
    }

    @Test func aFailingRecordIsNamedAndNothingIsInserted() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE wide (id INTEGER PRIMARY KEY, a INTEGER, b REAL, c INTEGER, d INTEGER)")
        var records = (0..<1_000).map { Wide($0) }
        records[437].id = 5
        do {
            try conn.insert(contentsOf: records)
            Issue.record("a duplicate key was inserted")
        } catch let error as SQLiteError {
            #expect(error.recordIndex == 437)
        }
        #expect(try conn.count(Wide.self) == 0)
    }

    @Test func aWriterKeptFromAnEarlierRecordRefusesToWrite() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE borrowers (id INTEGER PRIMARY KEY)")
        do {
            try conn.insert(contentsOf: (0..<1_000).map { Borrower(id: $0) })
            Issue.record("a writer kept from an earlier record wrote")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.contains("used after the encodeColumns(to:) call"))
        }
        #expect(try conn.count(Borrower.self) == 0)
    }

    @Test func recordsThatCallBackIntoTheConnectionAreStored() throws {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE callers (id INTEGER PRIMARY KEY, v INTEGER);
                CREATE TABLE sides (id INTEGER PRIMARY KEY);
                """)
        Caller.connection = conn
        defer { Caller.connection = nil }
        let records = (0..<1_000).map { Caller(id: $0, v: $0 * 2) }
        #expect(try conn.insert(contentsOf: records) == 1_000)
        #expect(try conn.count(Side.self) == 1)
        #expect(try conn.count(Caller.self) == 1_001)
        let stored = try conn.fetchAll(Int.self, sql: "SELECT v FROM callers WHERE id < 1000 ORDER BY id")
        #expect(stored == records.map(\.v))
    }

    @Test func insertAndFetchUpsertAndUpdateStoreEachValue() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE wide (id INTEGER PRIMARY KEY, a INTEGER, b REAL, c INTEGER, d INTEGER)")
        let records = (0..<700).map { Wide($0) }
        #expect(try conn.insertAndFetch(contentsOf: records) == records)
        var changed = records.map { record in
            var record = record
            record.a += 5
            record.b *= 2
            return record
        }
        changed.append(contentsOf: (700..<900).map { Wide($0) })
        try conn.upsert(contentsOf: changed)
        #expect(try conn.fetchAll(Wide.self, orderBy: "id") == changed)
        let updated = changed.map { record in
            var record = record
            record.c = record.id % 2 == 0 ? nil : record.a
            return record
        }
        try conn.update(contentsOf: updated)
        #expect(try conn.fetchAll(Wide.self, orderBy: "id") == updated)
    }
}
