import Foundation
import Testing

@testable import Bindery

/// Every ``ConflictPolicy`` against a UNIQUE constraint, with its transaction semantics.
@Suite struct ConflictPolicyTests {
    struct Account: Record, Equatable {
        static let tableName = "accounts"
        var id: Int64?
        var email: String
        var name: String
    }

    // MARK: Helpers

    /// A table with a UNIQUE email, holding `a@x` (id 1) and `b@x` (id 2), and a staging table for
    /// multi-row statements.
    private func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE accounts (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
                CREATE TABLE staging (n INTEGER PRIMARY KEY, email TEXT NOT NULL, name TEXT NOT NULL);
                INSERT INTO accounts (email, name) VALUES ('a@x', 'A'), ('b@x', 'B');
                """)
        return conn
    }

    private func allRows(_ conn: Connection) throws -> [Account] {
        try conn.fetchAll(Account.self, orderBy: "id")
    }

    private func emails(_ conn: Connection) throws -> [String] {
        try conn.fetchAll(String.self, sql: "SELECT email FROM accounts ORDER BY id")
    }

    private func account(_ email: String, _ name: String = "new") -> Account {
        Account(id: nil, email: email, name: name)
    }

    /// Fills the staging table with three rows whose second breaks the UNIQUE constraint.
    private func stageThreeRowsWithAConflictInTheMiddle(_ conn: Connection) throws {
        try conn.execute(
            script: "INSERT INTO staging (n, email, name) VALUES (1, 'c@x', 'C'), (2, 'a@x', 'dup'), (3, 'd@x', 'D')")
    }

    /// Copies the staging table into accounts with one multi-row `INSERT OR <policy> … SELECT`.
    private func copyStaging(_ conn: Connection, _ policy: ConflictPolicy) throws {
        try conn.execute(
            "INSERT OR \(raw: policy.rawValue) INTO accounts (email, name) SELECT email, name FROM staging ORDER BY n")
    }

    // MARK: Every policy

    @Test(arguments: ConflictPolicy.allCases)
    func withoutAConflictEveryPolicyInserts(_ policy: ConflictPolicy) throws {
        let conn = try makeConnection()
        let saved = try conn.insert(account("c@x"), onConflict: policy)
        #expect(saved == Account(id: 3, email: "c@x", name: "new"))
        #expect(conn.changes == 1)
        #expect(try conn.insert(contentsOf: [account("d@x"), account("e@x")], onConflict: policy) == 2)
        #expect(try emails(conn) == ["a@x", "b@x", "c@x", "d@x", "e@x"])
    }

    @Test(arguments: [ConflictPolicy.abort, .fail, .rollback])
    func theThrowingPoliciesThrowConstraintAndChangeNothingOutsideATransaction(_ policy: ConflictPolicy) throws {
        let conn = try makeConnection()
        let before = try allRows(conn)
        let error = #expect(throws: SQLiteError.self) {
            try conn.insert(account("a@x"), onConflict: policy)
        }
        #expect(error?.code == .constraint)
        #expect(error?.message.contains("accounts.email") == true)
        #expect(!conn.isInTransaction)
        #expect(try allRows(conn) == before)
    }

    // MARK: Abort

    @Test func abortIsTheDefaultAndKeepsEarlierStatementsOfTheTransaction() throws {
        let conn = try makeConnection()
        try conn.transaction { conn in
            try conn.insert(account("c@x"))
            let error = #expect(throws: SQLiteError.self) {
                try conn.insert(account("a@x"))
            }
            #expect(error?.code == .constraint)
            #expect(conn.isInTransaction)
            #expect(throws: SQLiteError.self) {
                try conn.insert(account("b@x"), onConflict: .abort)
            }
            #expect(conn.isInTransaction)
            try conn.insert(account("d@x"))
        }
        #expect(try emails(conn) == ["a@x", "b@x", "c@x", "d@x"])
    }

    @Test func abortUndoesTheWholeMultiRowStatement() throws {
        let conn = try makeConnection()
        try stageThreeRowsWithAConflictInTheMiddle(conn)
        try conn.transaction { conn in
            try conn.insert(account("e@x"))
            #expect(throws: SQLiteError.self) {
                try copyStaging(conn, .abort)
            }
            #expect(conn.isInTransaction)
        }
        #expect(try emails(conn) == ["a@x", "b@x", "e@x"])
    }

    // MARK: Fail

    @Test func failKeepsEarlierStatementsOfTheTransaction() throws {
        let conn = try makeConnection()
        try conn.transaction { conn in
            try conn.insert(account("c@x"))
            let error = #expect(throws: SQLiteError.self) {
                try conn.insert(account("a@x"), onConflict: .fail)
            }
            #expect(error?.code == .constraint)
            #expect(conn.isInTransaction)
        }
        #expect(try emails(conn) == ["a@x", "b@x", "c@x"])
    }

    @Test func failKeepsTheRowsAMultiRowStatementInsertedBeforeTheConflict() throws {
        let conn = try makeConnection()
        try stageThreeRowsWithAConflictInTheMiddle(conn)
        try conn.transaction { conn in
            #expect(throws: SQLiteError.self) {
                try copyStaging(conn, .fail)
            }
            #expect(conn.isInTransaction)
        }
        // The row before the conflict stays; the one after it was never inserted.
        #expect(try emails(conn) == ["a@x", "b@x", "c@x"])
    }

    @Test func failInABulkInsertStillLeavesNoneOfItsRecords() throws {
        let conn = try makeConnection()
        let before = try allRows(conn)
        #expect(throws: SQLiteError.self) {
            try conn.insert(contentsOf: [account("c@x"), account("a@x"), account("d@x")], onConflict: .fail)
        }
        #expect(try allRows(conn) == before)
    }

    // MARK: Ignore

    @Test func ignoreReturnsTheGivenRecordAndChangesNothing() throws {
        let conn = try makeConnection()
        let before = try allRows(conn)
        let duplicate = account("a@x", "Other")
        let returned = try conn.insert(duplicate, onConflict: .ignore)
        #expect(returned == duplicate)
        #expect(conn.changes == 0)
        #expect(try allRows(conn) == before)
    }

    @Test func ignoreSkipsOnlyTheConflictingRows() throws {
        let conn = try makeConnection()
        let inserted = try conn.insert(
            contentsOf: [account("c@x"), account("a@x", "dup"), account("d@x"), account("b@x", "dup")],
            onConflict: .ignore)
        #expect(inserted == 2)
        #expect(try allRows(conn).map(\.name) == ["A", "B", "new", "new"])
        try stageThreeRowsWithAConflictInTheMiddle(conn)
        try conn.execute(script: "DELETE FROM accounts WHERE email IN ('c@x', 'd@x')")
        try copyStaging(conn, .ignore)
        #expect(try emails(conn) == ["a@x", "b@x", "c@x", "d@x"])
    }

    // MARK: Replace

    @Test func replaceDeletesTheOldRowAndInsertsTheNewOne() throws {
        let conn = try makeConnection()
        let stored = try conn.insert(account("a@x", "A2"), onConflict: .replace)
        #expect(stored == Account(id: 3, email: "a@x", name: "A2"))
        #expect(try allRows(conn) == [Account(id: 2, email: "b@x", name: "B"), stored])
        #expect(try conn.find(Account.self, id: 1) == nil)

        // Replacing by primary key keeps the id.
        let sameID = try conn.insert(Account(id: 2, email: "b2@x", name: "B2"), onConflict: .replace)
        #expect(sameID == Account(id: 2, email: "b2@x", name: "B2"))
        #expect(try conn.count(Account.self) == 2)
    }

    @Test func replaceInABulkInsert() throws {
        let conn = try makeConnection()
        let count = try conn.insert(contentsOf: [account("b@x", "B2"), account("c@x", "C")], onConflict: .replace)
        #expect(count == 2)
        #expect(try allRows(conn).map(\.name) == ["A", "B2", "C"])
    }

    // MARK: Rollback

    @Test func rollbackRollsTheWholeTransactionBack() throws {
        let conn = try makeConnection()
        let before = try allRows(conn)
        var openAfterConflict = true
        let error = #expect(throws: SQLiteError.self) {
            try conn.transaction { conn in
                try conn.insert(account("c@x"))
                try conn.update(Account(id: 2, email: "b@x", name: "changed"))
                do {
                    try conn.insert(account("a@x"), onConflict: .rollback)
                } catch {
                    openAfterConflict = conn.isInTransaction
                    throw error
                }
            }
        }
        #expect(error?.code == .constraint)
        #expect(openAfterConflict == false)
        #expect(!conn.isInTransaction)
        #expect(try allRows(conn) == before)
    }

    @Test func rollbackInABulkInsertInsideATransactionRollsEverythingBack() throws {
        let conn = try makeConnection()
        let before = try allRows(conn)
        #expect(throws: SQLiteError.self) {
            try conn.transaction { conn in
                try conn.insert(account("c@x"))
                try conn.insert(contentsOf: [account("d@x"), account("a@x")], onConflict: .rollback)
            }
        }
        #expect(!conn.isInTransaction)
        #expect(try allRows(conn) == before)
    }

    @Test func rollbackUndoesAMultiRowStatementAndItsTransaction() throws {
        let conn = try makeConnection()
        try stageThreeRowsWithAConflictInTheMiddle(conn)
        #expect(throws: SQLiteError.self) {
            try conn.transaction { conn in
                try conn.insert(account("e@x"))
                try copyStaging(conn, .rollback)
            }
        }
        #expect(!conn.isInTransaction)
        #expect(try emails(conn) == ["a@x", "b@x"])
    }
}
