import Foundation
import Testing

@testable import Bindery

/// `insert` runs a plain INSERT (no `RETURNING`) when the table stores the row as given, and returns
/// the same record as `RETURNING *` would: each case inserts the same records on two connections, one
/// allowed the plain INSERT and one made to ask for `RETURNING *` always, and compares what came back
/// (records or error messages) and what was stored.
@Suite struct InsertWithoutReturningTests {
    struct Person: Record, Equatable {
        static let tableName = "t"
        static let primaryKey = ["id"]
        var id: Int?
        var name: String
        var age: Int
        var score: Double
        var active: Bool
        var born: Date
        var photo: Data?
        var nick: String?
    }

    static let people = [
        Person(
            id: nil, name: "Ana", age: 31, score: 2.5, active: true,
            born: Date(timeIntervalSince1970: 1_000_000.123_456_7), photo: Data([1, 2]), nick: nil),
        Person(
            id: 10, name: "Ben", age: 40, score: -1, active: false, born: Date(timeIntervalSince1970: 0),
            photo: nil, nick: "B"),
        Person(
            id: nil, name: "Cy\u{0}d", age: 0, score: 1e300, active: true, born: Date(timeIntervalSince1970: -5.5),
            photo: Data(), nick: "é"),
    ]

    static let personTable =
        "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL, "
        + "active BOOLEAN NOT NULL, born TEXT NOT NULL, photo BLOB, nick TEXT"

    /// What one insert gave: the record, or the error's description.
    enum Outcome<T: Equatable>: Equatable {
        case record(T)
        case error(String)
    }

    /// Inserts `records` one by one both ways into tables made by `schema`; expects the same outcomes
    /// and the same stored rows; returns the outcomes and how many plain INSERTs ran.
    @discardableResult
    static func bothWays<T: Record & Equatable>(
        _ schema: String, _ records: [T], policy: ConflictPolicy = .abort, orderBy: String = "rowid",
        between: (Connection) throws -> Void = { _ in }
    ) throws -> (outcomes: [Outcome<T>], plainInserts: Int) {
        var outcomes: [[Outcome<T>]] = []
        var tables: [[Row]] = []
        var plainInserts = 0
        for returningAlways in [false, true] {
            let conn = try Connection.inMemory()
            try conn.execute(script: schema)
            conn.recordContext.insertsReturningAlways = returningAlways
            var these: [Outcome<T>] = []
            for (index, record) in records.enumerated() {
                if index == 1 {
                    try between(conn)
                }
                do {
                    these.append(.record(try conn.insert(record, onConflict: policy)))
                } catch {
                    // The SQL an error names is the only difference: one of them ends in RETURNING *.
                    these.append(.error("\(error)".replacingOccurrences(of: " RETURNING *", with: "")))
                }
            }
            outcomes.append(these)
            tables.append(try conn.rows(SQL(text: "SELECT * FROM t ORDER BY \(orderBy)")))
            if !returningAlways {
                plainInserts = conn.recordContext.plainInsertCount
            } else {
                #expect(conn.recordContext.plainInsertCount == 0)
            }
        }
        #expect(outcomes[0] == outcomes[1])
        #expect(tables[0] == tables[1])
        return (outcomes[0], plainInserts)
    }

    @Test func aTableWithoutDefaultsTakesThePlainInsert() throws {
        let (outcomes, plain) = try Self.bothWays(Self.personTable + ")", Self.people)
        #expect(plain == 3)
        guard case .record(let first) = outcomes[0], case .record(let second) = outcomes[1],
            case .record(let third) = outcomes[2]
        else {
            Issue.record("an insert failed: \(outcomes)")
            return
        }
        #expect(first.id == 1)
        #expect(second.id == 10)
        #expect(third.id == 11)
        // The date comes back as stored (to the millisecond), not as given.
        #expect(first.born != Self.people[0].born)
        #expect(abs(first.born.timeIntervalSince(Self.people[0].born)) < 0.001)
        #expect(third.name == "Cy\u{0}d")
    }

    @Test func aDefaultForALeftOutColumnNeedsReturning() throws {
        let schema = Self.personTable + " DEFAULT 'none')"
        let (outcomes, plain) = try Self.bothWays(schema, Self.people)
        // The first person leaves the nick to its default: the others give one.
        #expect(plain == 2)
        #expect(outcomes[0] == .record(Self.stored(Self.people[0], id: 1, nick: "none")))
    }

    @Test func aGeneratedColumnNeedsReturning() throws {
        let schema =
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL, "
            + "active BOOLEAN NOT NULL, born TEXT NOT NULL, photo BLOB, nick TEXT GENERATED ALWAYS AS (name || '!'))"
        let records = Self.people.map { person in
            var person = person
            person.nick = nil
            return person
        }
        let (outcomes, plain) = try Self.bothWays(schema, records)
        #expect(plain == 0)
        #expect(outcomes[1] == .record(Self.stored(records[1], id: 10, nick: "Ben!")))
    }

    @Test func aTriggerNeedsReturning() throws {
        let schema =
            Self.personTable + "); CREATE TRIGGER bump AFTER INSERT ON t BEGIN UPDATE t SET age = age + 1 "
            + "WHERE id = NEW.id; END"
        let (outcomes, plain) = try Self.bothWays(schema, Self.people)
        #expect(plain == 0)
        // RETURNING gives the row as inserted, before the trigger ran: the row is read back as stored.
        var bumped = Self.people[1]
        bumped.age += 1
        #expect(outcomes[1] == .record(bumped))
    }

    @Test func aTempTriggerOnTheTableNeedsReturning() throws {
        let schema =
            Self.personTable + "); CREATE TEMP TRIGGER bump AFTER INSERT ON main.t BEGIN UPDATE t SET age = 0; END"
        let (_, plain) = try Self.bothWays(schema, Self.people)
        #expect(plain == 0)
    }

    @Test func aTriggerCreatedBetweenInsertsIsSeen() throws {
        let (outcomes, plain) = try Self.bothWays(Self.personTable + ")", Self.people) { conn in
            try conn.execute(
                script: "CREATE TRIGGER bump AFTER INSERT ON t BEGIN UPDATE t SET age = age + 1 WHERE id = NEW.id; END")
        }
        #expect(plain == 1)
        // The row as stored, after the trigger ran.
        var bumped = Self.people[1]
        bumped.age += 1
        #expect(outcomes[1] == .record(bumped))
    }

    @Test func aDefaultAddedBetweenInsertsIsSeen() throws {
        let records = [Self.people[0], Self.people[0], Self.people[1]]
        let (outcomes, plain) = try Self.bothWays(Self.personTable + ")", records) { conn in
            try conn.execute("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'", arguments: [])
            try conn.execute("ALTER TABLE t DROP COLUMN nick", arguments: [])
            try conn.execute("ALTER TABLE t ADD COLUMN nick TEXT DEFAULT 'late'", arguments: [])
        }
        // The first and the last give what they leave out no default; the second gets the new one.
        #expect(plain == 2)
        #expect(outcomes[0] == .record(Self.stored(Self.people[0], id: 1, nick: nil)))
        #expect(outcomes[1] == .record(Self.stored(Self.people[0], id: 2, nick: "late")))
    }

    /// A record with one property of each kind a column's affinity may convert.
    struct Loose: Record, Equatable {
        static let tableName = "t"
        static let primaryKey = ["id"]
        var id: Int?
        var number: SQLiteValue
        var text: SQLiteValue
        var real: SQLiteValue
        var numeric: SQLiteValue
        var anything: SQLiteValue
    }

    @Test func valuesTheColumnsAffinityConvertsNeedReturning() throws {
        let schema =
            "CREATE TABLE t (id INTEGER PRIMARY KEY, number INTEGER, text TEXT, real REAL, numeric NUMERIC, anything)"
        let kept = Loose(id: nil, number: 5, text: "5", real: 2.5, numeric: 7, anything: "7")
        var converting: [Loose] = []
        for value: SQLiteValue in ["12", 2.0, 2.5] {
            var record = kept
            record.number = value
            converting.append(record)
        }
        for value: SQLiteValue in [12, 2.5] {
            var record = kept
            record.text = value
            converting.append(record)
        }
        for value: SQLiteValue in [3, "4.5", .real(.nan)] {
            var record = kept
            record.real = value
            converting.append(record)
        }
        for value: SQLiteValue in [.real(-0.0)] {
            var record = kept
            record.real = value
            converting.append(record)
        }
        for value: SQLiteValue in ["8", 3.0] {
            var record = kept
            record.numeric = value
            converting.append(record)
        }
        let (outcomes, plain) = try Self.bothWays(schema, [kept, kept] + converting)
        #expect(plain == 2)
        // The stored forms come back: 12, '12', 8. An INTEGER given to a REAL column comes back as
        // RETURNING gives it: as the INTEGER (a SELECT reads 3.0). A NaN is refused before anything runs.
        #expect(outcomes[2] == .record(Self.with(kept, id: 3) { $0.number = 12 }))
        #expect(outcomes[5] == .record(Self.with(kept, id: 6) { $0.text = "12" }))
        #expect(outcomes[7] == .record(Self.with(kept, id: 8) { $0.real = 3 }))
        guard case .error(let message) = outcomes[9] else {
            Issue.record("a NaN was stored: \(outcomes[9])")
            return
        }
        #expect(message.contains("NaN"))
        // A negative zero in a REAL column is stored as 0 and comes back as RETURNING gives it.
        #expect(outcomes[10] == .record(Self.with(kept, id: 10) { $0.real = 0 }))
        #expect(outcomes[11] == .record(Self.with(kept, id: 11) { $0.numeric = 8 }))
    }

    struct Reals: Record, StoredAsGiven, Equatable {
        static let tableName = "t"
        static let primaryKey = ["id"]
        var id: Int64?
        var a: SQLiteValue
        var b: SQLiteValue

        mutating func didInsert(rowID: Int64) { id = rowID }
    }

    /// A row whose every value is of a kind its column keeps skips the look at each value; a negative
    /// zero, a REAL like the others, is still seen: the REAL column stores it as 0, so the row needs
    /// `RETURNING *` and comes back as stored, not as given.
    @Test func aNegativeZeroAmongKeptRealsNeedsReturning() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (id INTEGER PRIMARY KEY, a REAL, b REAL)")
        let kept = try conn.insert(Reals(id: nil, a: .real(1.5), b: .real(2.5)))
        #expect(kept == Reals(id: 1, a: .real(1.5), b: .real(2.5)))
        #expect(conn.recordContext.plainInsertCount == 1)
        let zero = try conn.insert(Reals(id: nil, a: .real(-0.0), b: .real(2.5)))
        #expect(conn.recordContext.plainInsertCount == 1)
        #expect(zero == Reals(id: 2, a: .integer(0), b: .real(2.5)))
        let again = try conn.insert(Reals(id: nil, a: .real(0.5), b: .real(-2.5)))
        #expect(conn.recordContext.plainInsertCount == 2)
        #expect(again == Reals(id: 3, a: .real(0.5), b: .real(-2.5)))
    }

    /// A whole REAL kept in a REAL column comes back as a REAL, as `find` reads it. (SQLite's `RETURNING`
    /// gives such a value as an INTEGER; decoded as a number, both are the same.)
    @Test func aWholeRealComesBackAsFindReadsIt() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (id INTEGER PRIMARY KEY, number, text, real REAL, numeric, anything)")
        let saved = try conn.insert(Loose(id: nil, number: 1, text: "a", real: 2.0, numeric: 3, anything: 4))
        #expect(conn.recordContext.plainInsertCount == 1)
        #expect(saved.real == .real(2.0))
        #expect(try conn.find(Loose.self, id: 1) == saved)
    }

    @Test func aStrictTableConvertsToo() throws {
        let schema =
            "CREATE TABLE t (id INTEGER PRIMARY KEY, number INTEGER, text TEXT, real REAL, numeric ANY, "
            + "anything ANY) STRICT"
        let kept = Loose(id: nil, number: 5, text: "5", real: 2.5, numeric: 7, anything: .blob(Data([1])))
        let records = [
            kept, Self.with(kept, id: nil) { $0.real = 3 }, Self.with(kept, id: nil) { $0.number = "12" },
            Self.with(kept, id: nil) { $0.anything = "x" },
        ]
        let (outcomes, plain) = try Self.bothWays(schema, records)
        #expect(plain == 1)
        #expect(outcomes[1] == .record(Self.with(kept, id: 2) { $0.real = 3 }))
        #expect(outcomes[3] == .record(Self.with(kept, id: 4) { $0.anything = "x" }))
    }

    @Test func aDecodingThatFailsOnTheStoredRowFailsBothWays() throws {
        struct Typed: Record, Equatable {
            static let tableName = "t"
            static let primaryKey = ["id"]
            var id: Int?
            var value: String
        }
        let (outcomes, plain) = try Self.bothWays(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, value INTEGER)", [Typed(id: nil, value: "12")])
        #expect(plain == 0)
        guard case .error(let message) = outcomes[0] else {
            Issue.record("expected an error, got \(outcomes[0])")
            return
        }
        #expect(message.contains("value"))
    }

    @Test func anIntegerPrimaryKeyDescIsNotTheRowid() throws {
        let schema =
            "CREATE TABLE t (id INTEGER PRIMARY KEY DESC, name TEXT NOT NULL, age INTEGER NOT NULL, "
            + "score REAL NOT NULL, active BOOLEAN NOT NULL, born TEXT NOT NULL, photo BLOB, nick TEXT)"
        let (outcomes, plain) = try Self.bothWays(schema, [Self.people[0]])
        #expect(plain == 1)
        #expect(outcomes[0] == .record(Self.stored(Self.people[0], id: nil, nick: nil)))
    }

    @Test func aTableLevelKeyIsTheRowid() throws {
        let schema =
            "CREATE TABLE t (id INTEGER, name TEXT NOT NULL, age INTEGER NOT NULL, score REAL NOT NULL, "
            + "active BOOLEAN NOT NULL, born TEXT NOT NULL, photo BLOB, nick TEXT, PRIMARY KEY (id DESC))"
        let (outcomes, plain) = try Self.bothWays(schema, [Self.people[0]])
        #expect(plain == 1)
        #expect(outcomes[0] == .record(Self.stored(Self.people[0], id: 1, nick: nil)))
    }

    @Test func aTableWithoutRowidNeedsReturning() throws {
        struct Tag: Record, Equatable {
            static let tableName = "t"
            static let primaryKey = ["name"]
            var name: String
            var uses: Int
        }
        let (outcomes, plain) = try Self.bothWays(
            "CREATE TABLE t (name TEXT PRIMARY KEY, uses INTEGER NOT NULL) WITHOUT ROWID",
            [Tag(name: "a", uses: 1), Tag(name: "b", uses: 2)], orderBy: "name")
        #expect(plain == 0)
        #expect(outcomes == [.record(Tag(name: "a", uses: 1)), .record(Tag(name: "b", uses: 2))])
    }

    @Test func aColumnNamedRowidIsReadBackByAnotherName() throws {
        struct Odd: Record, Equatable {
            static let tableName = "t"
            static let primaryKey = ["id"]
            var id: Int?
            var rowid: String
            var kind: UUID
        }
        let records = [Odd(id: nil, rowid: "r", kind: UUID()), Odd(id: 7, rowid: "s", kind: UUID())]
        let (outcomes, plain) = try Self.bothWays(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, rowid TEXT NOT NULL, kind BLOB NOT NULL)", records,
            orderBy: "id")
        #expect(plain == 2)
        #expect(outcomes[0] == .record(Odd(id: 1, rowid: "r", kind: records[0].kind)))
    }

    enum Mood: String, Codable {
        case calm, busy
    }

    /// A record of types the inserted-row decoder leaves to the row read back.
    struct Rich: Record, Equatable {
        static let tableName = "t"
        static let primaryKey = ["id"]
        var id: Int?
        var mood: Mood
        var key: UUID
        var tags: [String]
        var link: URL?
        var small: Int8
    }

    @Test func typesTheDecoderLeavesAreReadBack() throws {
        let records = [
            Rich(id: nil, mood: .busy, key: UUID(), tags: ["a", "b"], link: URL(string: "https://x.org/a"), small: 3),
            Rich(id: nil, mood: .calm, key: UUID(), tags: [], link: nil, small: -8),
        ]
        let (outcomes, plain) = try Self.bothWays(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, mood TEXT, key BLOB, tags TEXT, link TEXT, small INTEGER)",
            records)
        #expect(plain == 2)
        #expect(outcomes[1] == .record(Self.with(records[1], id: 2) { _ in }))
    }

    /// Decodes a column its `encode(to:)` never writes, and swallows what it cannot decode.
    struct Lopsided: Record, Equatable {
        static let tableName = "t"
        static let primaryKey = ["id"]
        var id: Int?
        var name: String
        var extra: String?
        var key: UUID?

        enum CodingKeys: String, CodingKey {
            case id, name, extra, key
        }

        init(id: Int?, name: String, key: UUID?) {
            (self.id, self.name, self.extra, self.key) = (id, name, nil, key)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            extra = try container.decodeIfPresent(String.self, forKey: .extra)
            key = try? container.decode(UUID.self, forKey: .key)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(key, forKey: .key)
        }
    }

    @Test func aColumnTheRecordDoesNotWriteIsReadBack() throws {
        let key = UUID()
        let (outcomes, plain) = try Self.bothWays(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, extra TEXT DEFAULT 'x', key BLOB)",
            [Lopsided(id: nil, name: "a", key: key), Lopsided(id: nil, name: "b", key: nil)])
        #expect(plain == 2)
        var first = Lopsided(id: 1, name: "a", key: key)
        first.extra = "x"
        #expect(outcomes[0] == .record(first))
    }

    @Test func conflictPoliciesGiveTheSameRecords() throws {
        let records = [Self.people[1], Self.with(Self.people[1], id: 10) { $0.name = "Ben 2" }]
        let (ignored, plainIgnore) = try Self.bothWays(Self.personTable + ")", records, policy: .ignore)
        #expect(plainIgnore == 2)
        #expect(ignored == [.record(records[0]), .record(records[1])])
        let (replaced, plainReplace) = try Self.bothWays(Self.personTable + ")", records, policy: .replace)
        #expect(plainReplace == 2)
        #expect(replaced == [.record(records[0]), .record(records[1])])
        let (aborted, _) = try Self.bothWays(Self.personTable + ")", records)
        guard case .error(let message) = aborted[1] else {
            Issue.record("expected a constraint error, got \(aborted[1])")
            return
        }
        #expect(message.contains("UNIQUE"))
    }

    @Test func aColumnDecodableRecordIsReadBack() throws {
        struct Counted: Record, ColumnCodable, Equatable {
            static let tableName = "t"
            static let primaryKey = ["id"]
            var id: Int64?
            var count: Int

            init(id: Int64?, count: Int) {
                (self.id, self.count) = (id, count)
            }

            init(columns: ColumnReader) throws {
                id = try columns.decodeIfPresent(Int64.self, forKey: "id")
                count = try columns.decode(Int.self, forKey: "count")
            }

            func encodeColumns(to columns: inout ColumnWriter) throws {
                try columns.encode(id, forKey: "id")
                try columns.encode(count, forKey: "count")
            }
        }
        let (outcomes, plain) = try Self.bothWays(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, count INTEGER NOT NULL)", [Counted(id: nil, count: 2)])
        #expect(plain == 1)
        #expect(outcomes == [.record(Counted(id: 1, count: 2))])
    }

    @Test func aKeptContainerThrowsAfterItsRow() throws {
        final class Box: @unchecked Sendable {
            // Safe: the test is the only user, one call at a time.
            var container: KeyedDecodingContainer<Keeper.CodingKeys>?
        }
        struct Keeper: Record {
            static let tableName = "t"
            static let primaryKey = ["id"]
            static let box = Box()
            var id: Int?
            var name: String

            enum CodingKeys: String, CodingKey {
                case id, name
            }

            init(id: Int?, name: String) {
                (self.id, self.name) = (id, name)
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decodeIfPresent(Int.self, forKey: .id)
                name = try container.decode(String.self, forKey: .name)
                Keeper.box.container = container
            }
        }
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        let saved = try conn.insert(Keeper(id: nil, name: "a"))
        #expect(saved.id == 1)
        #expect(conn.recordContext.plainInsertCount == 1)
        #expect(throws: DecodingError.self) { try Keeper.box.container?.decode(String.self, forKey: .name) }
    }

    // MARK: Helpers

    static func stored(_ person: Person, id: Int?, nick: String?) -> Person {
        with(person, id: id) { $0.nick = nick }
    }

    /// `record` with its stored date (to the millisecond), `id`, and the change `change` makes.
    static func with<T>(_ record: T, id: Int?, _ change: (inout T) -> Void) -> T {
        var record = record
        if var person = record as? Person {
            person.id = id
            let milliseconds = (person.born.timeIntervalSince1970 * 1000).rounded(.down)
            person.born = Date(timeIntervalSince1970: milliseconds / 1000)
            record = person as? T ?? record
        } else if var loose = record as? Loose {
            loose.id = id
            record = loose as? T ?? record
        } else if var rich = record as? Rich {
            rich.id = id
            record = rich as? T ?? record
        }
        change(&record)
        return record
    }
}
