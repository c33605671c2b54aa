import Testing

@testable import Bindery

/// `insertAndFetch(contentsOf:)` and `insertOrIgnoreAndFetch(contentsOf:)` into a table whose
/// triggers change rows inserted earlier in the same call: each record comes back as its own INSERT
/// left it, as when the records are inserted one by one, whatever batch it falls in. A table whose
/// triggers write only other tables is still inserted in batches.
@Suite struct InsertAndFetchTriggerOnEarlierRowsTests {
    struct Entry: Record, Equatable {
        static let tableName = "entries"
        var id: Int64
        var grp: Int
        var latest: Int?
        var parent: Int64?
    }

    /// A trigger on the table that marks the earlier rows of the new row's group.
    static let ownTrigger = """
        CREATE TABLE entries(id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, latest INTEGER NOT NULL DEFAULT 1,
            parent INTEGER);
        CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
            UPDATE entries SET latest = 0 WHERE grp = new.grp AND id <> new.id;
        END;
        """

    /// A trigger that marks the new row as the latest of its group and the earlier ones as not: each
    /// row's INSERT leaves it other than `RETURNING` gave it (the column's default), and later records
    /// change it again.
    static let ownMark = """
        CREATE TABLE entries(id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, latest INTEGER NOT NULL DEFAULT 0,
            parent INTEGER);
        CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
            UPDATE entries SET latest = (id = new.id) WHERE grp = new.grp;
        END;
        """

    /// The same change, made by a trigger on another table that a trigger of the table writes.
    static let throughLog = """
        CREATE TABLE entries(id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, latest INTEGER NOT NULL DEFAULT 1,
            parent INTEGER);
        CREATE TABLE log(id INTEGER PRIMARY KEY, entry INTEGER NOT NULL, grp INTEGER NOT NULL);
        CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
            INSERT INTO log(entry, grp) VALUES (new.id, new.grp);
        END;
        CREATE TEMP TRIGGER log_ai AFTER INSERT ON log BEGIN
            UPDATE Entries SET latest = 0 WHERE grp = new.grp AND id <> new.entry;
        END;
        """

    /// The earlier row's parent deleted by a trigger that names only the parents, and its key set to
    /// NULL by the foreign key's action.
    static let throughForeignKey = """
        PRAGMA foreign_keys = ON;
        CREATE TABLE parents(id INTEGER PRIMARY KEY);
        CREATE TABLE entries(id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, latest INTEGER NOT NULL DEFAULT 1,
            parent INTEGER REFERENCES parents(id) ON DELETE SET NULL);
        CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
            DELETE FROM parents WHERE id = new.parent - 1;
        END;
        """

    /// A trigger that writes only another table: batches stay.
    static let auditOnly = """
        CREATE TABLE entries(id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, latest INTEGER NOT NULL DEFAULT 1,
            parent INTEGER);
        CREATE TABLE audit(id INTEGER PRIMARY KEY, what TEXT NOT NULL);
        CREATE TRIGGER entries_ai AFTER INSERT ON entries BEGIN
            INSERT INTO audit(what) VALUES ('entry ' || new.id);
        END;
        """

    static let entries = (1...250).map { Entry(id: Int64($0), grp: $0 % 3, latest: nil, parent: Int64($0)) }

    /// Two connections with `schema` (and parents 1 to 250).
    private static func connections(_ schema: String) throws -> (bulk: Connection, single: Connection) {
        let bulk = try Connection.inMemory()
        let single = try Connection.inMemory()
        for conn in [bulk, single] {
            try conn.execute(script: schema)
            if schema.contains("CREATE TABLE parents") {
                try conn.execute(
                    script: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 250) "
                        + "INSERT INTO parents SELECT i FROM n")
            }
        }
        return (bulk, single)
    }

    /// How many records the connection inserted in batches so far.
    private static func batched(_ conn: Connection) -> Int {
        conn.recordContext.batchedRecordCount
    }

    @Test(arguments: [ownTrigger, ownMark, throughLog, throughForeignKey])
    func eachRecordComesBackAsItsOwnInsertLeftIt(schema: String) throws {
        let (bulk, single) = try Self.connections(schema)
        let fetched = try bulk.insertAndFetch(contentsOf: Self.entries)
        var oneByOne: [Entry] = []
        for entry in Self.entries {
            oneByOne.append(try single.insert(entry))
        }
        // Each record as its own INSERT left it: the latest of its group, with its parent.
        #expect(oneByOne.allSatisfy { $0.latest == 1 && $0.parent != nil })
        #expect(fetched.count == oneByOne.count)
        let differing = zip(fetched, oneByOne).filter { $0 != $1 }.map(\.0.id)
        #expect(differing.isEmpty)
        #expect(try bulk.fetchAll(Entry.self, orderBy: "id") == (try single.fetchAll(Entry.self, orderBy: "id")))
    }

    @Test(arguments: [ownTrigger, ownMark, throughLog])
    func skippedRowsComeBackAsNilAndTheOthersAsTheirInsertLeftThem(schema: String) throws {
        let (bulk, single) = try Self.connections(schema)
        // Five records of the second hundred already stored: skipped. The first hundred has none.
        let stored = Self.entries.filter { (101...105).contains($0.id) }
        for conn in [bulk, single] {
            _ = try conn.insert(contentsOf: stored)
        }
        let fetched = try bulk.insertOrIgnoreAndFetch(contentsOf: Self.entries)
        var oneByOne: [Entry?] = []
        for entry in Self.entries {
            oneByOne.append(try single.insertOrIgnoreAndFetch(contentsOf: [entry])[0])
        }
        #expect(fetched.count == oneByOne.count)
        #expect(oneByOne.filter { $0 == nil }.count == stored.count)
        let differing = zip(fetched, oneByOne).filter { $0 != $1 }.map { $0.1?.id ?? -1 }
        #expect(differing.isEmpty)
    }

    @Test func triggersWritingOnlyOtherTablesKeepTheBatches() throws {
        let (bulk, single) = try Self.connections(Self.auditOnly)
        let before = Self.batched(bulk)
        let fetched = try bulk.insertAndFetch(contentsOf: Self.entries)
        #expect(Self.batched(bulk) - before == 200)
        var oneByOne: [Entry] = []
        for entry in Self.entries {
            oneByOne.append(try single.insert(entry))
        }
        #expect(fetched == oneByOne)
        #expect(try bulk.fetchOne(Int.self, sql: "SELECT count(*) FROM audit") == 250)
    }

    /// With ``ConflictPolicy/replace``, a later record of a batch with an earlier one's key replaces its
    /// row: the earlier record still comes back as its own INSERT stored it, as one by one.
    @Test func aRecordReplacedLaterInItsBatchComesBackAsItsInsertStoredIt() throws {
        let (bulk, single) = try Self.connections(Self.auditOnly)
        // Records 151 to 200 take the keys of records 101 to 150, in the same batch.
        let records = Self.entries.map { entry in
            var entry = entry
            if (151...200).contains(entry.id) {
                entry.id -= 50
            }
            return entry
        }
        let before = Self.batched(bulk)
        let fetched = try bulk.insertAndFetch(contentsOf: records, onConflict: .replace)
        var oneByOne: [Entry] = []
        for record in records {
            oneByOne.append(try single.insert(record, onConflict: .replace))
        }
        #expect(Self.batched(bulk) - before == 200)
        #expect(fetched.count == oneByOne.count)
        let differing = zip(fetched, oneByOne).filter { $0 != $1 }.map(\.1.id)
        #expect(differing.isEmpty)
        #expect(try bulk.fetchAll(Entry.self, orderBy: "id") == (try single.fetchAll(Entry.self, orderBy: "id")))
    }

    /// How a trigger's body is read for the table's name: as SQLite reads names, after `BEGIN` only.
    @Test func aTriggerBodyNamesTheTableAsSQLiteReadsNames() {
        let on = "CREATE TRIGGER t AFTER INSERT ON entries BEGIN "
        // Named, in any ASCII case, quoted, qualified by its schema, or as a string where a name stands.
        #expect(BulkInserter.body(of: on + "UPDATE Entries SET latest = 0; END", names: "entries"))
        #expect(BulkInserter.body(of: on + "DELETE FROM main.\"entries\"; END", names: "entries"))
        #expect(BulkInserter.body(of: on + "INSERT INTO 'entries'(grp) VALUES (1); END", names: "entries"))
        #expect(BulkInserter.body(of: on + "UPDATE [my \"e\"] SET x = 1; END", names: "my \"e\""))
        #expect(BulkInserter.body(of: on + "UPDATE \"my \"\"e\"\"\" SET x = 1; END", names: "my \"e\""))
        // Not named: only in the part before BEGIN, inside a longer name, in a comment.
        #expect(!BulkInserter.body(of: on + "INSERT INTO log VALUES (new.id); END", names: "entries"))
        #expect(!BulkInserter.body(of: on + "INSERT INTO entries_fts VALUES (new.id); END", names: "entries"))
        #expect(!BulkInserter.body(of: on + "INSERT INTO log VALUES (1); -- entries\nEND", names: "entries"))
        // Without BEGIN (not SQLite's), it counts as named.
        #expect(BulkInserter.body(of: "CREATE TRIGGER t AFTER INSERT ON entries", names: "entries"))
    }

    @Test func aTriggerOnTheTableThatWritesItSendsTheBatchesOneByOne() throws {
        let (bulk, _) = try Self.connections(Self.ownTrigger)
        let before = Self.batched(bulk)
        _ = try bulk.insertAndFetch(contentsOf: Self.entries)
        #expect(Self.batched(bulk) == before)
        // Without a trigger changing rows, the batches stay.
        try bulk.execute(script: "DELETE FROM entries; DROP TRIGGER entries_ai")
        _ = try bulk.insertAndFetch(contentsOf: Self.entries)
        #expect(Self.batched(bulk) - before == 200)
    }
}
