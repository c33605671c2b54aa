import Foundation
import Testing

@testable import Bindery

/// Synced tables whose names differ only by non-ASCII case ("Été" and "été") or by Unicode
/// normalization: two tables to SQLite, which folds ASCII case only. Each must be captured, pushed and
/// pulled with its own columns; rows compared with plain SQL on both copies.
@Suite struct SyncTableNameExactnessTests {
    static let upper = "\u{C9}t\u{E9}"
    static let lower = "\u{E9}t\u{E9}"
    static let decomposed = "e\u{301}te\u{301}"

    private static func rows(_ db: Database) async throws -> [String] {
        try await db.read { conn in
            try conn.fetchAll(
                String.self,
                sql: """
                    SELECT 'U ' || k || ' ' || a FROM \(identifier: upper)
                    UNION ALL SELECT 'L ' || k || ' ' || b || ' ' || c FROM \(identifier: lower)
                    UNION ALL SELECT 'D ' || k || ' ' || d || ' ' || e || ' ' || f FROM \(identifier: decomposed)
                    ORDER BY 1
                    """)
        }
    }

    @Test func eachTableSyncsWithItsOwnColumns() async throws {
        let fixture = try await SyncFixture.make(
            extraSchema: """
                CREATE TABLE "\(Self.upper)"(k TEXT PRIMARY KEY NOT NULL, a TEXT NOT NULL);
                CREATE TABLE "\(Self.lower)"(k TEXT PRIMARY KEY NOT NULL, b TEXT NOT NULL, c INTEGER NOT NULL);
                CREATE TABLE "\(Self.decomposed)"(k TEXT PRIMARY KEY NOT NULL, d TEXT NOT NULL, e INTEGER NOT NULL,
                    f INTEGER NOT NULL);
                """,
            tables: [
                SyncTable(SyncTodo.self), SyncTable(Self.upper), SyncTable(Self.lower), SyncTable(Self.decomposed),
            ])
        let (a, b) = (fixture.copies[0].database, fixture.copies[1].database)
        try await a.write { conn in
            try conn.execute("INSERT INTO \(identifier: Self.upper) VALUES ('u', 'x')")
            try conn.execute("INSERT INTO \(identifier: Self.lower) VALUES ('l', 'y', 2)")
            try conn.execute("INSERT INTO \(identifier: Self.decomposed) VALUES ('d', 'z', 3, 4)")
        }
        try await fixture.settle()
        let written = try await Self.rows(a)
        #expect(written == ["D d z 3 4", "L l y 2", "U u x"])
        #expect(try await Self.rows(b) == written)
        try await b.write { conn in
            try conn.execute("UPDATE \(identifier: Self.lower) SET c = 20")
            try conn.execute("UPDATE \(identifier: Self.upper) SET a = 'xx'")
            try conn.execute("DELETE FROM \(identifier: Self.decomposed)")
        }
        try await fixture.settle()
        #expect(try await Self.rows(a) == ["L l y 20", "U u xx"])
        #expect(try await Self.rows(b) == Self.rows(a))
    }
}
