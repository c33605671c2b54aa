import Foundation
import Testing

@testable import Bindery

/// The change recorder against an oracle: a transaction of random writes (with statements that fail,
/// savepoints rolled back, triggers, keys changed and rows replaced) runs on one database, and its
/// changeset, applied to a second database that held what the first held before, must leave the two
/// equal, with SQLite finding no conflict.
@Suite("Change recorder")
struct ChangeRecorderTests {
    static let schema = """
        CREATE TABLE t(id TEXT PRIMARY KEY, name TEXT UNIQUE, n INTEGER CHECK (n < 1000), r REAL, b BLOB);
        CREATE TABLE w(a TEXT, b INTEGER, v TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID;
        CREATE TABLE log(id INTEGER PRIMARY KEY, note TEXT);
        """
    static let triggers = """
        CREATE TRIGGER t_names AFTER UPDATE OF name ON t BEGIN
            INSERT INTO w(a, b, v) VALUES (new.id, new.n, new.name) ON CONFLICT DO UPDATE SET v = excluded.v;
        END;
        CREATE TRIGGER t_gone AFTER DELETE ON t BEGIN
            DELETE FROM w WHERE a = old.id;
            INSERT INTO log(note) VALUES ('deleted ' || old.id);
        END;
        """

    /// A deterministic generator, so that a failure repeats.
    typealias Generator = ReliabilityTestSupport.SeededGenerator

    /// Two databases with the same rows, and a recorder of `t` and `w` on the first.
    static func pair() throws -> (Connection, Connection, ChangeRecorder) {
        let source = try Connection.inMemory()
        let copy = try Connection.inMemory()
        // The copy has no triggers: the changeset holds what the source's triggers did.
        try source.execute(script: schema + triggers)
        try copy.execute(script: schema)
        for connection in [source, copy] {
            for index in 0..<20 {
                try connection.execute(
                    "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                    arguments: [
                        .text("k\(index)"), .text("name \(index)"), .integer(Int64(index)), .real(Double(index) / 4),
                        .blob(Data([UInt8(index), 0, 255])),
                    ])
                try connection.execute(
                    "INSERT INTO w VALUES (?, ?, ?)", arguments: [.text("k\(index)"), .integer(1), .text("w")])
            }
        }
        return (source, copy, try source.openChangeRecorder(tables: ["t", "w"]))
    }

    /// The recorder's changeset, with the layouts read as the sync layer reads them.
    static func changeset(_ recorder: ChangeRecorder, on connection: Connection) throws -> [UInt8] {
        try recorder.changeset { name in
            let schema = try SyncTableSchema(table: name, on: connection)
            return ChangeRecorder.Layout(
                name: schema.name, keyFlags: schema.keyFlags, heldColumns: schema.heldColumns,
                realColumns: schema.realColumns, requiredDefaults: schema.requiredDefaults,
                selectRowSQL: schema.selectRowSQL)
        }
    }

    static func contents(_ connection: Connection) throws -> [[SQLiteValue]] {
        try
            (connection.rows("SELECT * FROM t ORDER BY id", arguments: [])
            + connection.rows("SELECT * FROM w ORDER BY a, b", arguments: [])).map(\.values)
    }

    /// One random write on `connection`; some fail (a CHECK, a UNIQUE name), and SQLite undoes them.
    static func randomWrite(on connection: Connection, _ random: inout Generator) {
        let key = SQLiteValue.text("k\(Int.random(in: 0..<30, using: &random))")
        let other = SQLiteValue.text("k\(Int.random(in: 0..<30, using: &random))")
        let number = SQLiteValue.integer(Int64.random(in: 0..<40, using: &random))
        let name = SQLiteValue.text("name \(Int.random(in: 0..<30, using: &random))")
        let statements: [(String, [SQLiteValue])] = [
            ("INSERT INTO t(id, name, n, r, b) VALUES (?, ?, ?, 0.5, x'01')", [key, name, number]),
            ("INSERT OR REPLACE INTO t(id, name, n) VALUES (?, ?, ?)", [key, name, number]),
            ("UPDATE t SET n = ?, r = r + 1 WHERE id = ?", [number, key]),
            ("UPDATE t SET name = ? WHERE id = ?", [name, key]),
            ("UPDATE t SET id = ? WHERE id = ?", [other, key]),
            ("DELETE FROM t WHERE id = ?", [key]),
            // Changes rows, then fails on the CHECK (n < 1000) when a row reaches it: all undone.
            ("UPDATE t SET n = n + 990 WHERE id >= ?", [key]),
            ("UPDATE OR FAIL t SET n = n + 500 WHERE id >= ?", [key]),
            // Change rows, then fail on the last one.
            (
                "UPDATE t SET n = CASE WHEN id = (SELECT max(id) FROM t) THEN 5000 ELSE n + 1 END WHERE id >= ?",
                [key]
            ),
            ("INSERT INTO t(id, n) VALUES (? || 'a', 1), (? || 'b', 5000)", [key, key]),
            ("INSERT INTO w VALUES (?, ?, 'x') ON CONFLICT DO UPDATE SET v = v || 'y'", [key, number]),
            ("DELETE FROM w WHERE a = ? AND b = ?", [key, .integer(1)]),
            ("UPDATE t SET n = n WHERE id = ?", [key]),
        ]
        let (sql, arguments) = statements[Int.random(in: 0..<statements.count, using: &random)]
        _ = try? connection.execute(sql, arguments: arguments)
    }

    @Test(arguments: 0..<60)
    func aTransactionsChangesetRebuildsItElsewhere(seed: UInt64) throws {
        let (source, copy, recorder) = try Self.pair()
        var random = Generator(state: seed)
        let bytes = try source.transaction { connection in
            recorder.reset()
            // Even seeds roll no savepoint back: only failed statements undo changes there.
            let kinds = seed.isMultiple(of: 2) ? 2..<10 : 0..<10
            for _ in 0..<Int.random(in: 1..<25, using: &random) {
                switch Int.random(in: kinds, using: &random) {
                case 0:
                    // A savepoint whose writes are rolled back by an error.
                    _ = try? connection.transaction { inner in
                        for _ in 0..<3 { Self.randomWrite(on: inner, &random) }
                        throw CancellationError()
                    }
                case 1:
                    try connection.execute(script: "SAVEPOINT s")
                    for _ in 0..<3 { Self.randomWrite(on: connection, &random) }
                    try connection.execute(script: "ROLLBACK TO s; RELEASE s")
                default:
                    Self.randomWrite(on: connection, &random)
                }
            }
            return try Self.changeset(recorder, on: connection)
        }
        try copy.transaction { connection in
            try connection.applyChangeset(bytes) { conflict in
                Issue.record("a conflict applying the changeset: \(conflict)")
                return .abort
            }
        }
        #expect(try Self.contents(copy) == Self.contents(source))
        // Every update holds whole rows.
        for table in try Changeset(parsing: bytes).tables {
            for change in table.changes where change.operation == .update {
                #expect(!change.old.contains { $0 == nil } && !change.new.contains { $0 == nil })
            }
        }
    }

    @Test func aTransactionOfManyRowsCoalescesEachRowOnce() throws {
        let (source, copy, recorder) = try Self.pair()
        let bytes = try source.transaction { connection in
            recorder.reset()
            for index in 0..<200 {
                try connection.execute(
                    "INSERT INTO t(id, name, n) VALUES (?, ?, ?)",
                    arguments: [.text("m\(index)"), .text("m\(index)"), .integer(Int64(index % 100))])
            }
            try connection.execute(script: "UPDATE t SET r = 2.5 WHERE n < 50; DELETE FROM t WHERE n >= 90")
            try connection.execute(script: "UPDATE t SET id = id || 'x' WHERE id LIKE 'm1%'")
            return try Self.changeset(recorder, on: connection)
        }
        let changeset = try Changeset(parsing: bytes)
        // 19 seed rows updated (every one has n < 50; k10's r was 2.5 already), 180 of the 200 inserted
        // rows left: one change each.
        #expect(changeset.changeCount == 19 + 180)
        try copy.transaction { connection in
            try connection.applyChangeset(bytes) { conflict in
                Issue.record("a conflict applying the changeset: \(conflict)")
                return .abort
            }
        }
        #expect(try Self.contents(copy) == Self.contents(source))
    }

    @Test func generatedColumnsAreLeftOutAndComputedWhereTheChangesetIsApplied() throws {
        let schema = """
            CREATE TABLE g(id TEXT PRIMARY KEY, a INTEGER, v INTEGER AS (a * 2) STORED, \
            s TEXT AS ('s' || a) STORED, z TEXT);
            INSERT INTO g(id, a, z) VALUES ('one', 1, 'z'), ('two', 2, 'z');
            """
        let (bytes, source, copy) = try Self.recordAndApply(schema, tables: ["g"]) { connection in
            try connection.execute(
                script: """
                    INSERT INTO g(id, a, z) VALUES ('three', 3, 'z');
                    UPDATE g SET a = 20 WHERE id = 'two';
                    DELETE FROM g WHERE id = 'one';
                    """)
        }
        let changeset = try Changeset(parsing: bytes)
        #expect(changeset.tables.map(\.columnCount) == [3])
        #expect(changeset.changeCount == 3)
        let rows = { (connection: Connection) in
            try connection.rows("SELECT id, a, v, s, z FROM g ORDER BY id", arguments: []).map(\.values)
        }
        #expect(try rows(copy) == rows(source))
        #expect(try rows(copy).count == 2)
    }

    @Test func aKeyOfColumnsApartFindsEachRowsChanges() throws {
        // The key columns a and c are not next to each other in the row.
        let schema = """
            CREATE TABLE n(a TEXT, v TEXT, c INTEGER, PRIMARY KEY (c, a));
            INSERT INTO n VALUES ('x', 'one', 1), ('x', 'two', 2), ('y', 'three', 1);
            """
        let (bytes, source, copy) = try Self.recordAndApply(schema, tables: ["n"]) { connection in
            try connection.execute(
                script: """
                    UPDATE n SET v = 'uno' WHERE a = 'x' AND c = 1;
                    UPDATE n SET v = 'eins' WHERE a = 'x' AND c = 1;
                    UPDATE n SET c = 5 WHERE a = 'y';
                    INSERT INTO n VALUES ('z', 'four', 4);
                    DELETE FROM n WHERE a = 'z';
                    DELETE FROM n WHERE a = 'x' AND c = 2;
                    """)
        }
        // x/1 updated once, y/1 deleted and y/5 inserted, x/2 deleted; z came and went.
        #expect(try Changeset(parsing: bytes).changeCount == 4)
        let rows = { (connection: Connection) in
            try connection.rows("SELECT * FROM n ORDER BY a, c", arguments: []).map(\.values)
        }
        #expect(try rows(copy) == rows(source))
    }

    /// A source, a copy and a recorder of `tables` for `schema`; `body`'s transaction on the source is
    /// recorded and applied to the copy (every conflict an issue); returns the changeset.
    static func recordAndApply(
        _ schema: String, tables: [String], sourceOnly: String = "", _ body: (Connection) throws -> Void
    ) throws -> (bytes: [UInt8], source: Connection, copy: Connection) {
        let source = try Connection.inMemory()
        let copy = try Connection.inMemory()
        try source.execute(script: schema + sourceOnly)
        try copy.execute(script: schema)
        let recorder = try source.openChangeRecorder(tables: tables)
        let bytes = try source.transaction { connection in
            recorder.reset()
            try body(connection)
            return try Self.changeset(recorder, on: connection)
        }
        try copy.transaction { connection in
            try connection.applyChangeset(bytes) { conflict in
                Issue.record("a conflict applying the changeset: \(conflict)")
                return .abort
            }
        }
        return (bytes, source, copy)
    }

    static func rows(_ connection: Connection, _ table: String) throws -> [[SQLiteValue]] {
        try connection.rows("SELECT * FROM main.\(table) ORDER BY 1", arguments: []).map(\.values)
    }

    @Test func aRowReadAgainIsFoundByTheExactBytesOfItsKey() throws {
        // A key that is not valid UTF-8 (no Swift String holds it), then a failed statement.
        let bad = try Self.recordAndApply(
            "CREATE TABLE t(id TEXT PRIMARY KEY, v TEXT); INSERT INTO t VALUES ('k0', 'v');", tables: ["t"]
        ) { connection in
            try connection.execute("INSERT INTO t VALUES (CAST(X'C3' AS TEXT), 'new')", arguments: [])
            _ = try? connection.execute("INSERT INTO t VALUES ('k0', 'duplicate')", arguments: [])
        }
        #expect(try Changeset(parsing: bad.bytes).changeCount == 1)
        #expect(try Self.rows(bad.copy, "t") == Self.rows(bad.source, "t"))
        // A NOCASE key spelt otherwise by the transaction, then a failed statement.
        let nocase = try Self.recordAndApply(
            "CREATE TABLE c(id TEXT PRIMARY KEY COLLATE NOCASE, v TEXT); INSERT INTO c VALUES ('a','v'),('k0','v');",
            tables: ["c"]
        ) { connection in
            try connection.execute("UPDATE c SET id = 'A' WHERE id = 'a'", arguments: [])
            _ = try? connection.execute("INSERT INTO c VALUES ('k0', 'duplicate')", arguments: [])
        }
        #expect(try Self.rows(nocase.copy, "c") == Self.rows(nocase.source, "c"))
        #expect(try Self.rows(nocase.copy, "c").first?.first == .text("A"))
    }

    @Test func aTempTableOfTheSameNameIsNotReadAgainInstead() throws {
        let result = try Self.recordAndApply(
            "CREATE TABLE t(id TEXT PRIMARY KEY, v TEXT); INSERT INTO t VALUES ('k1', 'old'), ('k0', 'v');",
            tables: ["t"], sourceOnly: "CREATE TEMP TABLE t(id TEXT PRIMARY KEY, v TEXT);"
        ) { connection in
            try connection.execute("UPDATE main.t SET v = 'new' WHERE id = 'k1'", arguments: [])
            _ = try? connection.execute("INSERT INTO main.t VALUES ('k0', 'duplicate')", arguments: [])
        }
        #expect(try Self.rows(result.copy, "t") == Self.rows(result.source, "t"))
        #expect(try Self.rows(result.copy, "t").contains([.text("k1"), .text("new")]))
    }

    @Test func changesOmittedWhileAChangesetIsAppliedAreNotRecorded() throws {
        // A trigger refuses the incoming row: SQLite undoes the insert inside the apply, after the hook
        // saw it, and the conflict handler omits it.
        let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, v TEXT);"
        let guardTrigger = """
            CREATE TRIGGER t_guard AFTER INSERT ON t WHEN new.v = 'bad' BEGIN SELECT RAISE(ABORT, 'refused'); END;
            """
        let other = try Self.recordAndApply(schema, tables: ["t"]) { connection in
            try connection.execute("INSERT INTO t VALUES ('x', 'bad')", arguments: [])
        }
        let target = try Connection.inMemory()
        try target.execute(script: schema + guardTrigger)
        let recorder = try target.openChangeRecorder(tables: ["t"])
        let bytes = try target.transaction { connection in
            recorder.reset()
            try connection.applyChangeset(other.bytes) { _ in .omit }
            return try Self.changeset(recorder, on: connection)
        }
        #expect(try target.rows("SELECT * FROM t", arguments: []).isEmpty)
        #expect(bytes.isEmpty)
    }

    @Test func aWholeRealIsRecordedAsTheRealItIs() throws {
        // SQLite keeps 2.0 as the integer 2 in the row; a row replaced by itself changes nothing, and a
        // REAL key is one key however the hook gives it.
        let result = try Self.recordAndApply(
            """
            CREATE TABLE r(id TEXT PRIMARY KEY, x REAL, y TEXT); INSERT INTO r VALUES ('a', 2.0, 'p'), ('b', 3.0, 'q');
            CREATE TABLE k(x REAL PRIMARY KEY, y TEXT) WITHOUT ROWID; INSERT INTO k VALUES (1.0, 'one');
            """, tables: ["r", "k"]
        ) { connection in
            try connection.execute("INSERT OR REPLACE INTO r VALUES ('a', 2.0, 'p')", arguments: [])
            try connection.execute("DELETE FROM r WHERE id = 'b'", arguments: [])
            try connection.execute("INSERT INTO r VALUES ('b', 3.0, 'q'), ('c', 4.0, 'new')", arguments: [])
            try connection.execute("INSERT INTO k VALUES (5.0, 'five')", arguments: [])
            try connection.execute("UPDATE k SET y = 'FIVE' WHERE x = 5.0", arguments: [])
        }
        let changeset = try Changeset(parsing: result.bytes)
        #expect(changeset.changeCount == 2)
        let inserts = changeset.tables.flatMap(\.changes).map(\.new)
        #expect(inserts.contains([.text("c"), .real(4), .text("new")]))
        #expect(inserts.contains([.real(5), .text("FIVE")]))
        #expect(try Self.rows(result.copy, "r") == Self.rows(result.source, "r"))
        #expect(try Self.rows(result.copy, "k") == Self.rows(result.source, "k"))
    }

    @Test func aRowFromBeforeAnAddedNotNullColumnHasItsDefault() throws {
        // The rows of `d` were written before `c` was added: SQLite reads c as 7 for them, and the
        // hook gives NULL for it in the row before a change.
        let schema = """
            CREATE TABLE d(id TEXT PRIMARY KEY, a TEXT); INSERT INTO d VALUES ('k1', 'p'), ('k2', 'p'), ('k3', 'p');
            ALTER TABLE d ADD COLUMN c INTEGER NOT NULL DEFAULT 7;
            ALTER TABLE d ADD COLUMN e TEXT NOT NULL DEFAULT 'x y';
            """
        let result = try Self.recordAndApply(schema, tables: ["d"]) { connection in
            try connection.execute("UPDATE d SET a = a WHERE id = 'k1'", arguments: [])
            try connection.execute("DELETE FROM d WHERE id = 'k2'", arguments: [])
            try connection.execute("UPDATE d SET a = 'q' WHERE id = 'k3'", arguments: [])
        }
        let changes = try Changeset(parsing: result.bytes).tables.flatMap(\.changes)
        #expect(changes.count == 2)
        #expect(changes.first?.old == [.text("k2"), .text("p"), .integer(7), .text("x y")])
        #expect(changes.last?.old == [.text("k3"), .text("p"), .integer(7), .text("x y")])
        #expect(try Self.rows(result.copy, "d") == Self.rows(result.source, "d"))
    }

    @Test func aNullKeyIsRefusedByName() throws {
        let source = try Connection.inMemory()
        try source.execute(script: "CREATE TABLE n(id TEXT PRIMARY KEY, v TEXT)")
        let recorder = try source.openChangeRecorder(tables: ["n"])
        let error = try #require(throws: SQLiteError.self) {
            try source.transaction { connection in
                recorder.reset()
                try connection.execute("INSERT INTO n VALUES (NULL, 'a'), (NULL, 'b')", arguments: [])
                _ = try Self.changeset(recorder, on: connection)
            }
        }
        #expect(error.code == .constraint)
        #expect(error.message.contains("table n has NULL in a primary key column"))
    }

    @Test func writesThatEndAsTheyBeganRecordNothing() throws {
        let (source, _, recorder) = try Self.pair()
        try source.transaction { connection in
            recorder.reset()
            try connection.execute(script: "INSERT INTO t(id, n) VALUES ('new', 1); DELETE FROM t WHERE id = 'new'")
            try connection.execute(script: "UPDATE t SET n = 500 WHERE id = 'k1'; UPDATE t SET n = 1 WHERE id = 'k1'")
            try connection.execute(script: "UPDATE w SET v = v WHERE a = 'k2'")
            #expect(!recorder.isEmpty)
            #expect(!recorder.needsRereading)
            #expect(try Self.changeset(recorder, on: connection).isEmpty)
        }
    }

    @Test func aFailedStatementOrARolledBackSavepointMakesTheRowsReadAgain() throws {
        let (source, _, recorder) = try Self.pair()
        try source.transaction { connection in
            recorder.reset()
            try connection.execute("UPDATE t SET n = 7 WHERE id = 'k3'", arguments: [])
            #expect(!recorder.needsRereading)
            #expect(throws: SQLiteError.self) {
                try connection.execute("UPDATE t SET n = n + 995 WHERE id >= 'k3'", arguments: [])
            }
            #expect(recorder.needsRereading)
            // Rows the failed statement changed are read again: only k3's first update remains.
            let changeset = try Changeset(parsing: try Self.changeset(recorder, on: connection))
            #expect(changeset.changeCount == 1)
            recorder.reset()
            #expect(!recorder.needsRereading)
            try connection.execute(script: "SAVEPOINT s; DELETE FROM t WHERE id = 'k4'; ROLLBACK TO s; RELEASE s")
            #expect(recorder.needsRereading)
            #expect(try Self.changeset(recorder, on: connection).isEmpty)
            // A nested transaction scope that throws rolls its savepoint back.
            recorder.reset()
            _ = try? connection.transaction { inner in
                try inner.execute("DELETE FROM t WHERE id = 'k5'", arguments: [])
                throw CancellationError()
            }
            #expect(recorder.needsRereading)
            #expect(try Self.changeset(recorder, on: connection).isEmpty)
            // A single ROLLBACK TO statement (not a script).
            recorder.reset()
            try connection.execute("SAVEPOINT single", arguments: [])
            try connection.execute("DELETE FROM t WHERE id = 'k6'", arguments: [])
            try connection.execute("ROLLBACK TO single", arguments: [])
            try connection.execute("RELEASE single", arguments: [])
            #expect(recorder.needsRereading)
            #expect(try Self.changeset(recorder, on: connection).isEmpty)
        }
    }

    @Test func changedColumnsAfterChangedRowsAreRefusedByName() throws {
        let (source, _, recorder) = try Self.pair()
        #expect(throws: SQLiteError.self) {
            try source.transaction { connection in
                recorder.reset()
                try connection.execute("UPDATE t SET n = 8 WHERE id = 'k5'", arguments: [])
                try connection.execute(script: "ALTER TABLE t ADD COLUMN extra TEXT")
                try connection.execute("UPDATE t SET n = 9 WHERE id = 'k6'", arguments: [])
                do {
                    _ = try Self.changeset(recorder, on: connection)
                } catch let error as SQLiteError {
                    #expect(error.code == .schema)
                    #expect(error.message.contains("the columns of table t changed in this transaction"))
                    throw error
                }
            }
        }
    }

    @Test(arguments: ["UTF-8", "UTF-16le", "UTF-16be"])
    func textIsRecordedAsUTF8WhateverTheDatabaseStores(encoding: String) throws {
        let connection = try Connection.inMemory()
        try connection.execute(script: "PRAGMA encoding = '\(encoding)'; CREATE TABLE e(id TEXT PRIMARY KEY, v TEXT)")
        let recorder = try connection.openChangeRecorder(tables: ["e"])
        #expect(recorder.storesUTF8 == (encoding == "UTF-8"))
        try connection.transaction { connection in
            recorder.reset()
            try connection.execute("INSERT INTO e VALUES ('clé', ?)", arguments: [.text("héllo, 世界 🌍")])
            let bytes = try Self.changeset(recorder, on: connection)
            let change = try Changeset(parsing: bytes).tables[0].changes[0]
            #expect(change.new == [.text("clé"), .text("héllo, 世界 🌍")])
        }
    }

    @Test func aSecondRecorderOnOneConnectionIsRefused() throws {
        let (source, _, recorder) = try Self.pair()
        #expect(throws: SQLiteError.self) { _ = try source.openChangeRecorder(tables: ["t"]) }
        recorder.close()
        try source.execute("UPDATE t SET n = 3 WHERE id = 'k1'", arguments: [])
        #expect(recorder.isEmpty)
    }
}
