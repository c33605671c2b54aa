import Foundation
import Testing

@testable import Bindery

/// `insert(contentsOf:)`, `insertAndFetch(contentsOf:)` and `insertOrIgnoreAndFetch(contentsOf:)`
/// put runs of records of one shape through multi-row INSERTs. Every case here compares them with
/// what inserting the same records one at a time (``Connection/insert(_:onConflict:)``) gives, on
/// sequences long enough for several batches (a batch holds up to 100 records).
@Suite struct BatchInsertTests {
    static let schema = """
        CREATE TABLE items (
            id INTEGER PRIMARY KEY, code TEXT UNIQUE, qty INTEGER NOT NULL CHECK (qty >= 0),
            note TEXT DEFAULT 'none');
        INSERT INTO items (id, code, qty) VALUES (5, 'c-existing', 1), (150, 'c20', 2);
        """

    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var code: String
        var qty: Int
        var note: String?
    }

    /// `count` items with nil ids, codes all different, and a note left nil (another shape) for three
    /// records from 230 on.
    static func items(_ count: Int) -> [Item] {
        (0..<count).map { Item(id: nil, code: "k\($0)", qty: $0, note: (230..<233).contains($0) ? nil : "n\($0)") }
    }

    /// How many records went through multi-row statements since `before` (see
    /// ``RecordContext/batchedRecordCount``).
    static func batched(_ conn: Connection, since before: Int) -> Int {
        conn.recordContext.batchedRecordCount - before
    }

    static func connection(_ extra: String = "") throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: schema + extra)
        return conn
    }

    static func table(_ conn: Connection) throws -> [Item] {
        try conn.fetchAll(Item.self, orderBy: "id")
    }

    /// Inserts `records` one at a time in a transaction, as the reference; returns what each insert
    /// returned (nil for a row `.ignore` skipped), or the position and error of the first that threw.
    static func oneByOne(_ conn: Connection, _ records: [Item], _ policy: ConflictPolicy) throws
        -> Result<[Item?], IndexedFailure>
    {
        var failure: IndexedFailure?
        var results: [Item?] = []
        do {
            try conn.transaction(.immediate) { conn in
                for (index, record) in records.enumerated() {
                    let before = conn.totalChanges
                    do {
                        let stored = try conn.insert(record, onConflict: policy)
                        results.append(conn.totalChanges == before ? nil : stored)
                    } catch let error as SQLiteError {
                        failure = IndexedFailure(index: index, code: error.code, message: error.message)
                        throw error
                    }
                }
            }
        } catch {
            guard let failure else { throw error }
            return .failure(failure)
        }
        return .success(results)
    }

    struct IndexedFailure: Error, Equatable {
        var index: Int?
        var code: SQLiteError.Code
        var message: String
    }

    static func failure(_ error: SQLiteError) -> IndexedFailure {
        IndexedFailure(index: error.recordIndex, code: error.code, message: error.message)
    }

    /// Records of one shape with conflicts in three batches: an id taken before the call (record 120),
    /// a code taken before the call (record 260), and an id given twice within one batch (records 270
    /// and 271).
    static func conflicting() -> [Item] {
        var records = (0..<350).map { Item(id: Int64(1_000 + $0), code: "k\($0)", qty: $0, note: "n\($0)") }
        records[120].id = 5
        records[260].code = "c20"
        records[270].id = 7_777
        records[271].id = 7_777
        return records
    }

    @Test(arguments: ConflictPolicy.allCases)
    func everyPolicyGivesWhatOneByOneGives(_ policy: ConflictPolicy) throws {
        let records = Self.conflicting()
        let reference = try Self.connection()
        let expected = try Self.oneByOne(reference, records, policy)
        let expectedTable = try Self.table(reference)

        // insert(contentsOf:)
        let batched = try Self.connection()
        switch expected {
        case .success(let results):
            let mark = batched.recordContext.batchedRecordCount
            let inserted = try batched.insert(contentsOf: records, onConflict: policy)
            #expect(inserted == results.compactMap { $0 }.count)
            // The first batch ran whole; the others failed or held a conflict (which `.ignore` and
            // `.replace` resolve within the batch).
            #expect(Self.batched(batched, since: mark) >= 100)
        case .failure(let failure):
            #expect(failure.index == 120)
            #expect(throws: failure) {
                do {
                    try batched.insert(contentsOf: records, onConflict: policy)
                } catch let error as SQLiteError {
                    throw Self.failure(error)
                }
            }
        }
        #expect(try Self.table(batched) == expectedTable)
        #expect(!batched.isInTransaction)

        // insertAndFetch(contentsOf:) and insertOrIgnoreAndFetch(contentsOf:)
        let fetching = try Self.connection()
        switch expected {
        case .success(let results):
            let fetched = try fetching.insertAndFetch(contentsOf: records, onConflict: policy)
            #expect(fetched == zip(results, records).map { $0 ?? $1 })
            if policy == .ignore {
                let again = try Self.connection()
                #expect(try again.insertOrIgnoreAndFetch(contentsOf: records) == results)
                #expect(try Self.table(again) == expectedTable)
            }
        case .failure(let failure):
            #expect(throws: failure) {
                do {
                    _ = try fetching.insertAndFetch(contentsOf: records, onConflict: policy)
                } catch let error as SQLiteError {
                    throw Self.failure(error)
                }
            }
        }
        #expect(try Self.table(fetching) == expectedTable)
    }

    /// A trigger refuses one record in the second batch: for every policy the error names it, and
    /// nothing of the call is stored, while a row the caller's own transaction inserted before stays.
    @Test(arguments: ConflictPolicy.allCases, ["ABORT", "FAIL"])
    func aFailingRecordIsNamedAndNothingIsStored(_ policy: ConflictPolicy, raise: String) throws {
        let trigger = """
            CREATE TRIGGER refuse BEFORE INSERT ON items WHEN NEW.qty = 150
            BEGIN SELECT RAISE(\(raise), 'no 150'); END;
            """
        let conn = try Self.connection(trigger)
        let before = try Self.table(conn)
        let records = Self.items(300)
        for fetching in [false, true] {
            do {
                if fetching {
                    _ = try conn.insertAndFetch(contentsOf: records, onConflict: policy)
                } else {
                    try conn.insert(contentsOf: records, onConflict: policy)
                }
                Issue.record("the insert did not fail")
            } catch let error as SQLiteError {
                #expect(error.recordIndex == 150)
                #expect(error.message == "no 150")
                #expect(error.description.contains("index 150"))
            }
            #expect(try Self.table(conn) == before)
        }
        // Inside the caller's transaction, only the call's own rows go.
        try conn.transaction { conn in
            try conn.insert(Item(id: 900, code: "mine", qty: 1, note: nil))
            #expect(throws: SQLiteError.self) { try conn.insert(contentsOf: records, onConflict: policy) }
            #expect(try conn.count(Item.self) == before.count + 1)
        }
        #expect(try conn.count(Item.self) == before.count + 1)
    }

    /// A CHECK failing in a batch: ``ConflictPolicy/ignore`` skips that row alone, as one by one; the
    /// others throw its error.
    @Test(arguments: ConflictPolicy.allCases)
    func aCheckFailureInABatchActsAsOneByOne(_ policy: ConflictPolicy) throws {
        var records = Self.items(250)
        records[170].qty = -1
        let reference = try Self.connection()
        let expected = try Self.oneByOne(reference, records, policy)
        let conn = try Self.connection()
        let outcome: Result<[Item], IndexedFailure>
        do {
            outcome = .success(try conn.insertAndFetch(contentsOf: records, onConflict: policy))
        } catch let error as SQLiteError {
            outcome = .failure(Self.failure(error))
        }
        switch (expected, outcome) {
        case (.success(let results), .success(let fetched)):
            #expect(fetched == zip(results, records).map { $0 ?? $1 })
        case (.failure(let failure), .failure(let got)):
            #expect(got == failure)
            #expect(got.index == 170)
        default:
            Issue.record("one by one gave \(expected), batches \(outcome)")
        }
        #expect(try Self.table(conn) == Self.table(reference))
    }

    /// Runs of each shape, long and short, with ids given and not: stored whole and in order, through
    /// an array and through a sequence that is not one.
    @Test func shapesChangingMidwayAreStoredWholeAndInOrder() throws {
        var records: [Item] = []
        var number = 0
        for (run, length) in [1, 2, 150, 3, 99, 101, 1, 100, 250, 7].enumerated() {
            for _ in 0..<length {
                let note: String? = run % 2 == 0 ? "n\(number)" : nil
                let id: Int64? = run % 3 == 2 ? Int64(10_000 + number) : nil
                records.append(Item(id: id, code: "s\(number)", qty: number, note: note))
                number += 1
            }
        }
        let reference = try Self.connection()
        guard case .success(let results) = try Self.oneByOne(reference, records, .abort) else {
            Issue.record("the reference failed")
            return
        }
        let expectedTable = try Self.table(reference)

        let viaArray = try Self.connection()
        #expect(try viaArray.insert(contentsOf: records) == records.count)
        #expect(try Self.table(viaArray) == expectedTable)
        #expect(Self.batched(viaArray, since: 0) >= 300)

        let viaSequence = try Self.connection()
        #expect(try viaSequence.insert(contentsOf: records.lazy.map { $0 }) == records.count)
        #expect(try Self.table(viaSequence) == expectedTable)

        let fetching = try Self.connection()
        #expect(try fetching.insertAndFetch(contentsOf: records) == results.map { $0 })
        #expect(Self.batched(fetching, since: 0) >= 300)
        let fetchingSequence = try Self.connection()
        #expect(try fetchingSequence.insertAndFetch(contentsOf: AnySequence(records)) == results.map { $0 })
        #expect(try Self.table(fetchingSequence) == expectedTable)
        #expect(Self.batched(fetchingSequence, since: 0) >= 300)
    }

    /// A trigger's `RAISE(IGNORE)` skips rows under any policy: a batch returns fewer rows than it has
    /// records, and which is which is found one by one.
    @Test func rowsSkippedByATriggerComeBackAsOneByOne() throws {
        let trigger = """
            CREATE TRIGGER skip BEFORE INSERT ON items WHEN NEW.qty % 40 = 13
            BEGIN SELECT RAISE(IGNORE); END;
            """
        let records = Self.items(320)
        let reference = try Self.connection(trigger)
        guard case .success(let results) = try Self.oneByOne(reference, records, .abort) else {
            Issue.record("the reference failed")
            return
        }
        #expect(results.filter { $0 == nil }.count == 8)
        let conn = try Self.connection(trigger)
        #expect(try conn.insertAndFetch(contentsOf: records) == zip(results, records).map { $0 ?? $1 })
        #expect(try Self.table(conn) == Self.table(reference))
        let ignoring = try Self.connection(trigger)
        #expect(try ignoring.insertOrIgnoreAndFetch(contentsOf: records) == results)
        let counting = try Self.connection(trigger)
        #expect(try counting.insert(contentsOf: records) == 312)
        #expect(Self.batched(counting, since: 0) >= 200)
    }

    /// An AFTER INSERT trigger that changes the rows: each comes back as stored. A batch in which a
    /// trigger changed rows is undone and inserted one by one, each row read back after its own INSERT
    /// (a later row's trigger could have changed it: see `BatchReturningAfterTriggersTests`).
    @Test func rowsATriggerChangedAreReadBack() throws {
        let trigger = """
            CREATE TRIGGER touch AFTER INSERT ON items
            BEGIN UPDATE items SET note = 'touched ' || NEW.qty WHERE id = NEW.id; END;
            """
        let conn = try Self.connection(trigger)
        let fetched = try conn.insertAndFetch(contentsOf: Self.items(250))
        #expect(fetched.map(\.note) == (0..<250).map { "touched \($0)" })
        #expect(Self.batched(conn, since: 0) == 0)
        #expect(try Array(Self.table(conn).dropFirst(2)) == fetched)
    }

    /// A record whose `encode(to:)` throws in the middle of a batch: nothing is stored, and the error
    /// is the record's own.
    @Test func anEncodingErrorInABatchStoresNothing() throws {
        struct Refused: Error, Equatable {}
        struct Picky: Record {
            static let tableName = "items"
            var qty: Int
            var code: String
            func encode(to encoder: any Encoder) throws {
                if qty == 130 { throw Refused() }
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(qty, forKey: .qty)
                try container.encode(code, forKey: .code)
            }
        }
        let conn = try Self.connection()
        let records = (0..<300).map { Picky(qty: $0, code: "p\($0)") }
        #expect(throws: Refused()) { try conn.insert(contentsOf: records) }
        #expect(throws: Refused()) { _ = try conn.insertAndFetch(contentsOf: records) }
        #expect(try conn.count(Item.self) == 2)
        #expect(!conn.isInTransaction)
    }

    /// A record one by one (the last ones, fewer than a batch) is named as well.
    @Test func aRecordAfterTheLastBatchIsNamed() throws {
        var records = Self.items(130)
        records[125].code = "c20"
        let conn = try Self.connection()
        do {
            try conn.insert(contentsOf: records)
            Issue.record("the insert did not fail")
        } catch let error as SQLiteError {
            #expect(error.recordIndex == 125)
            #expect(error.code == .constraint)
        }
        #expect(try conn.count(Item.self) == 2)
    }
}

/// A batch undone inside a synced transaction (here: `.ignore` skipped a row, so the batch is inserted
/// again one by one) leaves the changeset of what was committed, no more and no less.
@Suite struct BatchInsertSyncTests {
    @Test func aBatchUndoneAndRedoneIsCapturedOnce() async throws {
        var options = Database.Options()
        options.sync = SyncConfiguration(tables: [SyncTable(SyncTodo.self)])
        let db = try Database.inMemory(options: options)
        try await db.write { try $0.execute(script: SyncCaptureTests.schema) }
        try await db.write { try $0.insert(SyncTodo(id: "t150", title: "first", done: false, rank: 0)) }
        let todos = (0..<300).map { SyncTodo(id: "t\($0)", title: "todo \($0)", done: $0 % 2 == 0, rank: $0) }
        let stored = try await db.write { conn in
            let mark = conn.recordContext.batchedRecordCount
            let stored = try conn.insertOrIgnoreAndFetch(contentsOf: todos)
            // The first batch ran whole; the second skipped a row and went one by one, and so did the
            // third (BatchPacing waits one batch after that).
            #expect(conn.recordContext.batchedRecordCount - mark == 100)
            return stored
        }
        #expect(stored.filter { $0 == nil }.count == 1)
        #expect(stored[150] == nil)
        let outbox = try await db.read { try SyncState.pending(on: $0) }
        #expect(outbox.count == 2)
        let changeset = try Changeset(parsing: try #require(outbox.last).changeset)
        let changes = try #require(changeset.tables.first).changes
        #expect(changes.count == 299)
        #expect(changes.allSatisfy { $0.operation == .insert })
        let ids = Set(
            changes.compactMap { change -> String? in
                if case .text(let id) = change.new[0] { return id }
                return nil
            })
        #expect(ids == Set(todos.map(\.id)).subtracting(["t150"]))
        let table = try await db.read { try $0.fetchAll(SyncTodo.self, orderBy: "rank") }
        #expect(table.count == 300)
        #expect(table.first { $0.id == "t150" }?.title == "first")
    }
}
