import Foundation
import Testing

@testable import Bindery

/// Savepoint names in statements run inside a transaction scope are told apart by their bytes (after
/// ASCII case folding), as SQLite tells them apart: a scope may release a savepoint it opened, and
/// only such a one, even when another savepoint's name differs from it only by Unicode normalization.
@Suite struct SavepointNameExactnessTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func aScopeCannotReleaseAnOuterSavepointSpeltLikeItsOwn() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(x)")
        // A transaction begun by a savepoint of the app, outside any scope.
        try conn.execute(script: "SAVEPOINT \"\(Self.decomposed)\"; INSERT INTO t VALUES (1)")
        // SQLite would release the outer savepoint named so (python3's sqlite3 shows it: the
        // transaction ends, committing the row), taking the scope's own savepoint with it.
        #expect(throws: SQLiteError.self) {
            try conn.transaction { conn in
                try conn.execute(script: "SAVEPOINT \"\(Self.composed)\"; RELEASE \"\(Self.decomposed)\"")
            }
        }
        #expect(conn.isInTransaction)
        try conn.execute(script: "ROLLBACK")
        #expect(try conn.rows("SELECT count(*) FROM t", arguments: []).first?.values == [.integer(0)])
    }

}
