import Foundation
import Testing

@testable import Bindery

/// Sync over TEXT keys that SQLite tells apart while Swift's `String` equality or a `NOCASE`
/// collation may not: keys differing only by Unicode normalization ("é" composed and decomposed), keys
/// changed in case on a `NOCASE` column, and composite keys mixing both, through capture (with
/// changes undone inside the transaction, which makes the rows be read again), push, pull and the
/// conflict policies. Each copy must end with the same rows, byte for byte, as the copy that wrote
/// them (read by plain SQL as hex).
@Suite struct SyncTextKeyExactnessTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    static let schema = """
        CREATE TABLE tags(name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, n INTEGER NOT NULL);
        CREATE TABLE words(word TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL);
        CREATE TABLE pairs(a TEXT NOT NULL, b TEXT NOT NULL COLLATE NOCASE, n INTEGER NOT NULL, PRIMARY KEY (a, b));
        """

    private static func fixture(_ policy: SyncPolicy = .lastWriterWins) async throws -> SyncFixture {
        try await SyncFixture.make(
            extraSchema: schema,
            tables: [
                SyncTable(SyncTodo.self), SyncTable("tags", policy: policy), SyncTable("words", policy: policy),
                SyncTable("pairs", policy: policy),
            ])
    }

    /// Every row of the three tables, keys and values as hex, in byte order.
    private static func rows(_ db: Database) async throws -> [String] {
        try await db.read { conn in
            try conn.fetchAll(
                String.self,
                sql: """
                    SELECT * FROM (
                        SELECT 'tags ' || hex(name) || ' ' || n FROM tags
                        UNION ALL SELECT 'words ' || hex(word) || ' ' || n FROM words
                        UNION ALL SELECT 'pairs ' || hex(a) || ' ' || hex(b) || ' ' || n FROM pairs)
                    ORDER BY 1
                    """)
        }
    }

    private static func hex(_ text: String) -> String {
        text.utf8.map { String(format: "%02X", $0) }.joined()
    }

    @Test func keysDifferingByNormalizationStayTwoRowsEverywhere() async throws {
        let fixture = try await Self.fixture()
        let (a, b) = (fixture.copies[0].database, fixture.copies[1].database)
        try await a.write { conn in
            try conn.execute("INSERT INTO words VALUES (\(Self.composed), 1), (\(Self.decomposed), 2)")
            try conn.execute("INSERT INTO pairs VALUES (\(Self.composed), 'x', 1), (\(Self.decomposed), 'x', 2)")
        }
        try await fixture.settle()
        #expect(try await Self.rows(b) == Self.rows(a))
        // Offline, each copy changes another of the two rows; neither is a conflict.
        try await a.write { conn in try conn.execute("UPDATE words SET n = 10 WHERE word = \(Self.composed)") }
        try await b.write { conn in try conn.execute("UPDATE words SET n = 20 WHERE word = \(Self.decomposed)") }
        try await b.write { conn in try conn.execute("DELETE FROM pairs WHERE a = \(Self.decomposed)") }
        try await fixture.settle()
        let expected = [
            "pairs \(Self.hex(Self.composed)) 78 1",
            "words \(Self.hex(Self.composed)) 10", "words \(Self.hex(Self.decomposed)) 20",
        ].sorted()
        #expect(try await Self.rows(a) == expected)
        #expect(try await Self.rows(b) == expected)
        #expect(try await fixture.copies[0].conflicts().isEmpty)
        #expect(try await fixture.copies[1].conflicts().isEmpty)
    }

    @Test func rowsReadAgainAfterAnUndoneStatementKeepTheirExactKeys() async throws {
        let fixture = try await Self.fixture()
        let (a, b) = (fixture.copies[0].database, fixture.copies[1].database)
        try await a.write { conn in
            try conn.execute("INSERT INTO tags VALUES ('swift', 1)")
            try conn.execute("INSERT INTO words VALUES (\(Self.composed), 1)")
            // A failed statement makes the transaction's rows be read again by their keys.
            #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO tags VALUES ('SWIFT', 2)") }
            try conn.execute("UPDATE tags SET name = 'Swift', n = 3 WHERE name = 'swift'")
            try conn.execute("INSERT INTO words VALUES (\(Self.decomposed), 2)")
            try conn.execute("INSERT INTO pairs VALUES ('p', 'Q', 1)")
            try conn.execute("UPDATE pairs SET b = 'q' WHERE a = 'p'")
        }
        try await fixture.settle()
        let written = try await Self.rows(a)
        #expect(
            written
                == [
                    "pairs 70 71 1", "tags \(Self.hex("Swift")) 3", "words \(Self.hex(Self.composed)) 1",
                    "words \(Self.hex(Self.decomposed)) 2",
                ].sorted())
        #expect(try await Self.rows(b) == written)
        // A later case change of a key on the other copy reaches the first.
        try await b.write { conn in try conn.execute("UPDATE tags SET name = 'SWIFT' WHERE name = 'swift'") }
        try await fixture.settle()
        #expect(try await Self.rows(a) == Self.rows(b))
        #expect(try await Self.rows(a).contains("tags \(Self.hex("SWIFT")) 3"))
    }

    @Test(arguments: [SyncPolicy.lastWriterWins, .fieldWise])
    func concurrentInsertsOfKeysEqualUnderNocaseConverge(_ policy: SyncPolicy) async throws {
        let fixture = try await Self.fixture(policy)
        let (a, b) = (fixture.copies[0].database, fixture.copies[1].database)
        try await a.write { conn in try conn.execute("INSERT INTO tags VALUES ('Swift', 1)") }
        try await b.write { conn in try conn.execute("INSERT INTO tags VALUES ('swift', 2)") }
        try await fixture.copies[0].push()
        try await fixture.settle()
        let first = try await Self.rows(a)
        #expect(first.count == 1)
        #expect(try await Self.rows(b) == first)
    }
}

/// A row replaced by one whose key differs only by case, on a NOCASE key, in a transaction whose
/// rows are read again (a statement failed): the other copy ends with the new row only, and no
/// conflict is logged.
@Suite struct SyncNocaseKeyRereadTests {
    @Test func aRowReplacedByAnotherCaseOfItsKeyReachesTheOtherCopy() async throws {
        let fixture = try await SyncFixture.make(
            extraSchema: "CREATE TABLE tags(name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, n INTEGER NOT NULL);",
            tables: [SyncTable(SyncTodo.self), SyncTable("tags")])
        let (a, b) = (fixture.copies[0].database, fixture.copies[1].database)
        try await a.write { conn in try conn.execute("INSERT INTO tags VALUES ('a', 1), ('b', 1)") }
        try await fixture.settle()
        try await a.write { conn in
            try conn.execute("DELETE FROM tags WHERE name = 'a'")
            try conn.execute("INSERT INTO tags VALUES ('A', 2)")
            #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO tags VALUES ('B', 3)") }
            try conn.execute("UPDATE tags SET name = 'B', n = 4 WHERE name = 'b'")
        }
        try await fixture.settle()
        let rows = { (db: Database) in
            try await db.read { conn in
                try conn.fetchAll(String.self, sql: "SELECT name || ' ' || n FROM tags ORDER BY name COLLATE BINARY")
            }
        }
        #expect(try await rows(a) == ["A 2", "B 4"])
        #expect(try await rows(b) == rows(a))
        #expect(try await fixture.copies[1].conflicts().isEmpty)
    }
}
