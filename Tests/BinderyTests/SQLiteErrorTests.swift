import CSQLite
import Foundation
import Testing

@testable import Bindery

@Suite struct SQLiteErrorTests {
    /// SQLite's extended result codes, which Swift does not import from `sqlite3.h` (they are macros
    /// built with shifts): each is its primary code plus a subtype in the second byte.
    private enum Extended {
        static let constraintCheck = SQLITE_CONSTRAINT | (1 << 8)  // 275
        static let constraintForeignKey = SQLITE_CONSTRAINT | (3 << 8)  // 787
        static let constraintNotNull = SQLITE_CONSTRAINT | (5 << 8)  // 1299
        static let constraintPrimaryKey = SQLITE_CONSTRAINT | (6 << 8)  // 1555
        static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)  // 2067
        static let ioErrorRead = SQLITE_IOERR | (1 << 8)  // 266
        static let busySnapshot = SQLITE_BUSY | (2 << 8)  // 517
        static let readOnlyDatabaseMoved = SQLITE_READONLY | (4 << 8)  // 1032
        static let cannotOpenIsDirectory = SQLITE_CANTOPEN | (2 << 8)  // 526
        static let corruptVirtualTable = SQLITE_CORRUPT | (1 << 8)  // 267
        static let lockedSharedCache = SQLITE_LOCKED | (1 << 8)  // 262
    }

    /// A connection with a `users` table (UNIQUE and NOT NULL email), and `teams`/`members` linked by a
    /// foreign key.
    private func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, age INTEGER CHECK (age >= 0));
                CREATE TABLE teams(id INTEGER PRIMARY KEY);
                CREATE TABLE members(id INTEGER PRIMARY KEY, team_id INTEGER NOT NULL REFERENCES teams(id));
                INSERT INTO teams(id) VALUES (1);
                """)
        return conn
    }

    // MARK: Constraint violations

    @Test func uniqueViolationIsConstraintWithExtendedCodeAndMessage() throws {
        let conn = try makeConnection()
        let sql = "INSERT INTO users(email) VALUES (?)"
        try conn.execute(sql, arguments: ["ana@example.com"])
        let error = try #require(throws: SQLiteError.self) {
            try conn.execute(sql, arguments: ["ana@example.com"])
        }
        #expect(error.code == .constraint)
        #expect(error.code.rawValue == SQLITE_CONSTRAINT)
        #expect(error.extendedCode == 2067)
        #expect(error.extendedCode == Extended.constraintUnique)
        #expect(error.message == "UNIQUE constraint failed: users.email")
        #expect(error.sql == sql)
        #expect(error.description.contains("UNIQUE constraint failed: users.email"))
        #expect(error.description.contains("2067"))
    }

    @Test func notNullViolationHasExtendedCode1299() throws {
        let conn = try makeConnection()
        let error = try #require(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO users(email) VALUES (?)", arguments: [nil])
        }
        #expect(error.code == .constraint)
        #expect(error.extendedCode == 1299)
        #expect(error.extendedCode == Extended.constraintNotNull)
        #expect(error.message == "NOT NULL constraint failed: users.email")
    }

    @Test func foreignKeyViolationHasExtendedCode787() throws {
        let conn = try makeConnection()
        try conn.execute("INSERT INTO members(team_id) VALUES (?)", arguments: [1])
        let error = try #require(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO members(team_id) VALUES (?)", arguments: [99])
        }
        #expect(error.code == .constraint)
        #expect(error.extendedCode == 787)
        #expect(error.extendedCode == Extended.constraintForeignKey)
        #expect(error.message == "FOREIGN KEY constraint failed")
    }

    @Test func primaryKeyAndCheckViolationsHaveTheirExtendedCodes() throws {
        let conn = try makeConnection()
        try conn.execute("INSERT INTO users(id, email) VALUES (?, ?)", arguments: [1, "a@example.com"])
        let primaryKey = try #require(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO users(id, email) VALUES (?, ?)", arguments: [1, "b@example.com"])
        }
        #expect(primaryKey.code == .constraint)
        #expect(primaryKey.extendedCode == Extended.constraintPrimaryKey)
        #expect(primaryKey.message == "UNIQUE constraint failed: users.id")

        let check = try #require(throws: SQLiteError.self) {
            try conn.execute("INSERT INTO users(email, age) VALUES (?, ?)", arguments: ["c@example.com", -1])
        }
        #expect(check.code == .constraint)
        #expect(check.extendedCode == Extended.constraintCheck)
        #expect(check.message.contains("CHECK constraint failed"))
    }

    @Test func constraintViolationCanBeCaughtByCode() throws {
        let conn = try makeConnection()
        try conn.execute("INSERT INTO users(email) VALUES (?)", arguments: ["ana@example.com"])
        var caught: SQLiteError?
        do {
            try conn.execute("INSERT INTO users(email) VALUES (?)", arguments: ["ana@example.com"])
        } catch let error as SQLiteError where error.code == .constraint {
            caught = error
        }
        #expect(caught?.extendedCode == 2067)
    }

    @Test func constraintViolationInAScriptKeepsItsExtendedCode() throws {
        let conn = try makeConnection()
        let script =
            "INSERT INTO users(email) VALUES ('x@example.com'); INSERT INTO users(email) VALUES ('x@example.com');"
        let error = try #require(throws: SQLiteError.self) {
            try conn.execute(script: script)
        }
        #expect(error.code == .constraint)
        #expect(error.extendedCode == 2067)
        #expect(error.message == "UNIQUE constraint failed: users.email")
        // The statement that failed is named, not the whole script.
        #expect(error.sql == "INSERT INTO users(email) VALUES ('x@example.com')")
    }

    // MARK: Syntax errors and the SQL text

    @Test func syntaxErrorNamesTheSQL() throws {
        let conn = try makeConnection()
        let sql = "SELEC id FROM users WHERE id = ?"
        let error = try #require(throws: SQLiteError.self) {
            try conn.execute(sql, arguments: [1])
        }
        #expect(error.code == .error)
        #expect(error.extendedCode == SQLITE_ERROR)
        #expect(error.message.contains("syntax error"))
        #expect(error.message.contains("SELEC"))
        #expect(error.sql == sql)
        #expect(error.description.contains(sql))
        #expect(error.description.contains("syntax error"))
    }

    @Test func syntaxErrorFromRowsAndFromScriptNamesTheSQL() throws {
        let conn = try makeConnection()
        let query = "SELECT * FORM users"
        let fromRows = try #require(throws: SQLiteError.self) {
            try conn.rows(query, arguments: [])
        }
        #expect(fromRows.code == .error)
        #expect(fromRows.sql == query)
        #expect(fromRows.description.contains(query))

        let script = "CREATE TABLE ok(id INTEGER); CREATE TABLE (broken;"
        let fromScript = try #require(throws: SQLiteError.self) {
            try conn.execute(script: script)
        }
        #expect(fromScript.code == .error)
        #expect(fromScript.message.contains("syntax error"))
        #expect(fromScript.sql == "CREATE TABLE (broken")
        #expect(fromScript.description.contains("CREATE TABLE (broken"))
    }

    @Test func missingTableIsAnErrorThatNamesTheTableAndTheSQL() throws {
        let conn = try makeConnection()
        let sql = "SELECT * FROM nowhere"
        let error = try #require(throws: SQLiteError.self) {
            try conn.rows(sql, arguments: [])
        }
        #expect(error.code == .error)
        #expect(error.message == "no such table: nowhere")
        #expect(error.description.contains(sql))
    }

    // MARK: Argument values stay out of the description

    @Test func positionalArgumentValuesAppearOnlyInDebugDescription() throws {
        let conn = try makeConnection()
        let sql = "INSERT INTO users(email, age) VALUES (?, ?)"
        try conn.execute(sql, arguments: ["secret-ana@example.com", 31])
        let error = try #require(throws: SQLiteError.self) {
            try conn.execute(sql, arguments: ["secret-ana@example.com", 42_424_242])
        }
        #expect(error.code == .constraint)
        #expect(!error.description.contains("secret-ana"))
        #expect(!error.description.contains("42424242"))
        #expect(error.debugDescription.contains("'secret-ana@example.com'"))
        #expect(error.debugDescription.contains("42424242"))
        #expect(error.debugDescription.hasPrefix(error.description))
    }

    @Test func namedArgumentValuesAppearOnlyInDebugDescription() throws {
        let conn = try makeConnection()
        let sql = "INSERT INTO users(email) VALUES (:email)"
        try conn.execute(sql, arguments: ["email": "hidden-value@example.com"])
        let error = try #require(throws: SQLiteError.self) {
            try conn.execute(sql, arguments: [":email": "hidden-value@example.com"])
        }
        #expect(error.code == .constraint)
        #expect(!error.description.contains("hidden-value"))
        #expect(error.debugDescription.contains("hidden-value@example.com"))
    }

    @Test func publicInitializerDefaultsTheExtendedCodeAndOmitsMissingSQL() {
        let error = SQLiteError(code: .busy, message: "database is locked")
        #expect(error.code == .busy)
        #expect(error.extendedCode == SQLITE_BUSY)
        #expect(error.sql == nil)
        #expect(error.description.contains("database is locked"))
        #expect(!error.description.contains("`"))
        #expect(error.debugDescription == error.description)

        let withSQL = SQLiteError(code: .constraint, extendedCode: 2067, message: "m", sql: "INSERT INTO t VALUES (1)")
        #expect(withSQL.extendedCode == 2067)
        #expect(withSQL.description.contains("INSERT INTO t VALUES (1)"))
        #expect(
            withSQL == SQLiteError(code: .constraint, extendedCode: 2067, message: "m", sql: "INSERT INTO t VALUES (1)")
        )
        #expect(withSQL != error)
    }

    // MARK: Codes

    @Test(
        arguments: [
            (SQLiteError.Code.error, SQLITE_ERROR),
            (.internal, SQLITE_INTERNAL),
            (.permission, SQLITE_PERM),
            (.abort, SQLITE_ABORT),
            (.busy, SQLITE_BUSY),
            (.locked, SQLITE_LOCKED),
            (.noMemory, SQLITE_NOMEM),
            (.readOnly, SQLITE_READONLY),
            (.interrupt, SQLITE_INTERRUPT),
            (.ioError, SQLITE_IOERR),
            (.corrupt, SQLITE_CORRUPT),
            (.notFound, SQLITE_NOTFOUND),
            (.full, SQLITE_FULL),
            (.cannotOpen, SQLITE_CANTOPEN),
            (.protocol, SQLITE_PROTOCOL),
            (.empty, SQLITE_EMPTY),
            (.schema, SQLITE_SCHEMA),
            (.tooBig, SQLITE_TOOBIG),
            (.constraint, SQLITE_CONSTRAINT),
            (.mismatch, SQLITE_MISMATCH),
            (.misuse, SQLITE_MISUSE),
            (.noLargeFileSupport, SQLITE_NOLFS),
            (.authorization, SQLITE_AUTH),
            (.format, SQLITE_FORMAT),
            (.range, SQLITE_RANGE),
            (.notADatabase, SQLITE_NOTADB),
            (.notice, SQLITE_NOTICE),
            (.warning, SQLITE_WARNING),
        ])
    func namedCodeEqualsSQLiteConstant(code: SQLiteError.Code, constant: Int32) {
        #expect(code.rawValue == constant)
        #expect(code == SQLiteError.Code(rawValue: constant))
        #expect(code.description == String(cString: sqlite3_errstr(constant)))
    }

    @Test func namedCodesCoverEveryPrimaryResultCode() {
        let named: [SQLiteError.Code] = [
            .error, .internal, .permission, .abort, .busy, .locked, .noMemory, .readOnly, .interrupt, .ioError,
            .corrupt, .notFound, .full, .cannotOpen, .protocol, .empty, .schema, .tooBig, .constraint, .mismatch,
            .misuse, .noLargeFileSupport, .authorization, .format, .range, .notADatabase, .notice, .warning,
        ]
        #expect(Set(named.map(\.rawValue)) == Set(Int32(1)...Int32(28)))
    }

    @Test(
        arguments: [
            (Extended.constraintUnique, SQLiteError.Code.constraint),
            (Extended.constraintNotNull, .constraint),
            (Extended.constraintForeignKey, .constraint),
            (Extended.constraintPrimaryKey, .constraint),
            (Extended.ioErrorRead, .ioError),
            (Extended.busySnapshot, .busy),
            (Extended.readOnlyDatabaseMoved, .readOnly),
            (Extended.cannotOpenIsDirectory, .cannotOpen),
            (Extended.corruptVirtualTable, .corrupt),
            (Extended.lockedSharedCache, .locked),
        ])
    func extendedCodeReducesToItsPrimary(extended: Int32, primary: SQLiteError.Code) {
        let code = SQLiteError.Code(rawValue: extended)
        #expect(code == primary)
        #expect(code.rawValue == extended & 0xFF)
    }

    @Test func literalExtendedCodesReduceToTheirPrimary() {
        #expect(SQLiteError.Code(rawValue: 2067) == .constraint)
        #expect(SQLiteError.Code(rawValue: 1299) == .constraint)
        #expect(SQLiteError.Code(rawValue: 787) == .constraint)
        #expect(SQLiteError.Code(rawValue: 2067).rawValue == 19)
    }

    @Test func codeDescriptionIsSQLitesEnglishName() {
        #expect(SQLiteError.Code.constraint.description == "constraint failed")
        #expect(SQLiteError.Code.notADatabase.description == "file is not a database")
        #expect(SQLiteError.Code.busy.description == "database is locked")
    }
}
