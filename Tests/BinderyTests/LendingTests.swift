import Testing

@testable import Bindery

/// The contract of what a connection lends: a statement from its cache (``Connection/withStatement(_:_:)``)
/// and a layer's per-connection state (``Connection/withExtensionState(_:_:)``) live until the lend ends,
/// whatever the body does to the connection meanwhile, and are freed once it has ended; a lend made
/// inside another never hands out what the outer one is using.
@Suite struct LendingTests {
    /// Counts the deinitializations of ``Probe``s, without touching a freed probe.
    final class Tracker {
        var freed = 0
    }

    /// A per-connection state that tells its tracker when it is freed.
    final class Probe {
        let tracker: Tracker
        let number: Int

        init(tracker: Tracker, number: Int) {
            self.tracker = tracker
            self.number = number
        }

        deinit {
            tracker.freed += 1
        }
    }

    @Test func aLentObjectIsRecognisedByItsExactClass() {
        let tracker = Tracker()
        let probe = Probe(tracker: tracker, number: 1)
        let lent = Lent<AnyObject>(probe)
        // What the statement's attachment (an insert plan) and the extension store's memo rely on:
        // without it, every insert would make its plan again from the table's schema.
        #expect(lent.exactly(Probe.self)?.object === probe)
        #expect(lent.exactly(Tracker.self) == nil)
        #expect(Lent(probe).exactly(Probe.self)?.object === probe)
    }

    @Test func anInsertReusesThePlanItsStatementKeeps() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE items(id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
        try conn.transaction(.immediate) { conn in
            for n in 1...3 {
                try conn.insert(Item(id: nil, n: n))
            }
        }
        var plans: [ObjectIdentifier] = []
        for n in 4...6 {
            _ = try conn.transaction(.immediate) { conn in try conn.insert(Item(id: nil, n: n)) }
            let sql = #"INSERT INTO "items" ("n") VALUES (?)"#
            try conn.withStatement(sql) { statement in
                if let plan = statement.lentAttachment(as: InsertPlan.self) {
                    plans.append(ObjectIdentifier(plan.object))
                }
            }
        }
        #expect(plans.count == 3 && Set(plans).count == 1)
    }

    struct Item: Record {
        static let tableName = "items"
        var id: Int64?
        var n: Int
    }

    @Test func aLentStatementOutlivesClearStatementCache() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2), (3)")
        let sql = "SELECT x FROM t ORDER BY x"
        try conn.withStatement(sql) { _ in }  // cached now
        var read: [Int64] = []
        var finalizedInside = true
        var lent: Statement?
        try conn.withStatement(sql) { statement in
            lent = statement
            #expect(try statement.step())
            read.append(statement.int64(at: 0))
            conn.clearStatementCache()
            // The cache no longer holds the statement, but keeps it until it comes back: it steps on.
            finalizedInside = statement.isFinalized
            #expect(conn.statementsLentUnheld == 1)
            while try statement.step() {
                read.append(statement.int64(at: 0))
            }
        }
        #expect(!finalizedInside)
        #expect(read == [1, 2, 3])
        // Given back, it is finalized and forgotten: the next lend prepares a new one.
        #expect(lent?.isFinalized == true)
        #expect(conn.statementsLentUnheld == 0)
        try conn.withStatement(sql) { statement in
            let stepped = try statement.step()
            #expect(statement !== lent && stepped)
        }
    }

    @Test func anExtensionStateLentLivesThroughCloseInsideTheBody() throws {
        let tracker = Tracker()
        let conn = try Connection.inMemory()
        var freedInside = -1
        let number = conn.withExtensionState({ Probe(tracker: tracker, number: 7) }) { probe in
            conn.close()
            // The connection dropped its states; the one lent lives until the lend ends.
            freedInside = tracker.freed
            return probe.number
        }
        #expect(conn.isClosed)
        #expect(freedInside == 0)
        #expect(number == 7)
        #expect(tracker.freed == 1)
    }

    @Test func anExtensionStateReplacedInsideItsLendLivesUntilTheLendEnds() throws {
        let tracker = Tracker()
        let conn = try Connection.inMemory()
        var freedInside = -1
        var innerNumber = 0
        let outerNumber = conn.withExtensionState({ Probe(tracker: tracker, number: 1) }) { outer in
            conn.setExtensionState(Probe(tracker: tracker, number: 2))
            // A lend made inside this one sees the new state; the outer one still holds the old one.
            innerNumber = conn.withExtensionState({ Probe(tracker: tracker, number: 3) }) { $0.number }
            freedInside = tracker.freed
            return outer.number
        }
        #expect(freedInside == 0)
        #expect((outerNumber, innerNumber) == (1, 2))
        #expect(tracker.freed == 1)  // the replaced state, once its lend ended
        #expect(conn.withExtensionState({ Probe(tracker: tracker, number: 4) }) { $0.number } == 2)
    }

    @Test func aStatementLentInsideTheLendOfTheSameSQLIsAnotherOne() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2)")
        let sql = "SELECT x FROM t ORDER BY x"
        var outerRows: [Int64] = []
        var innerRows: [Int64] = []
        var distinct = false
        try conn.withStatement(sql) { outer in
            #expect(try outer.step())
            outerRows.append(outer.int64(at: 0))
            try conn.withStatement(sql) { inner in
                distinct = inner !== outer
                while try inner.step() {
                    innerRows.append(inner.int64(at: 0))
                }
            }
            // The inner lend did not reset the outer statement: it goes on where it was.
            while try outer.step() {
                outerRows.append(outer.int64(at: 0))
            }
        }
        #expect(distinct)
        #expect(outerRows == [1, 2])
        #expect(innerRows == [1, 2])
        #expect(conn.statementsLentUnheld == 0)
    }
}
