import Foundation
import Testing

@testable import Bindery

/// Issue 35: counting a request as written (7), printing association keys (10), lists in a CHECK of
/// the table builder written without their padding (10).
@Suite struct QueryRequestFixTests {
    struct Reader: Record, Equatable {
        static let tableName = "readers"
        var id: Int64
        var name: String
        static let loans = hasMany(Loan.self)
    }

    struct Loan: Record {
        static let tableName = "loans"
        var id: Int64
        var readerId: Int64
        static let reader = belongsTo(Reader.self)
        static let givenReader = belongsTo(Reader.self, key: "given", using: ForeignKey(["readerId"]))
    }

    static func library() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(
            script: """
                CREATE TABLE readers(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE loans(id INTEGER PRIMARY KEY, readerId INTEGER NOT NULL REFERENCES readers(id));
                INSERT INTO readers VALUES (1, 'Ann'), (2, 'Bartholomew'), (3, '1');
                INSERT INTO loans VALUES (1, 1), (2, 1), (3, 2);
                """)
        return conn
    }

    // MARK: 7. fetchCount over the request as written

    @Test func countOfASelectionWhoseAliasTheFilterNames() throws {
        let conn = try Self.library()
        let request = Reader.all().select("*, name AS alt").filter("alt")
        #expect(try conn.fetchCount(request) == 1)  // only '1' is true
        let long = Reader.all().select("*, length(name) > 3 AS long").filter("long")
        #expect(try conn.fetchCount(long) == 1)
        #expect(try conn.exists(long))
        // A selection that aggregates gives one row.
        #expect(try conn.fetchCount(Reader.all().select("count(*) AS n")) == 1)
        // Plain requests keep the plain count.
        #expect(try conn.fetchCount(Reader.all().filter("id > \(1)")) == 2)
        #expect(
            try conn.countSQL(Reader.all().filter("id > \(1)")).text == #"SELECT count(*) FROM "readers" WHERE id > ?"#)
    }

    @Test func deleteAndUpdateOfASelectionWhoseAliasTheFilterNames() throws {
        let conn = try Self.library()
        let long = Reader.all().select("*, length(name) > 3 AS long").filter("long")
        #expect(try conn.updateAll(long, set: "name = \("Bart")") == 1)
        #expect(try conn.fetchAll(Reader.all().order("id")).map(\.name) == ["Ann", "Bart", "1"])
        #expect(try conn.deleteAll(Reader.all().select("*, id * 10 AS tens").filter("tens >= \(30)")) == 1)
        #expect(try conn.fetchAll(Reader.all().order("id")).map(\.id) == [1, 2])
    }

    // MARK: 10. A printed request says what its association keys are

    @Test func printedRequestSaysWhereKeysComeFrom() throws {
        let request = Loan.all().including(required: Loan.reader)
        let text = request.description
        #expect(!text.contains("<keys of"))
        #expect(
            text.contains(#"the foreign key from "loans" to "readers", read from the schema when the request runs"#))
        // Keys the association gives are printed as the conn prints them.
        let given = Loan.all().including(required: Loan.givenReader)
        let conn = try Self.library()
        #expect(given.description == (try conn.sql(for: given).text))
        #expect(given.description.contains(#""given"."id" = "loans"."readerId""#))
        let toMany = Reader.all().including(all: Reader.loans)
        #expect(toMany.description.contains(#"the foreign key from "loans" to "readers""#))
        #expect(!toMany.debugDescription.contains("<key of"))
    }

    // MARK: 10. A list in a CHECK is written without its padding

    @Test func listInACheckIsWrittenAsGiven() throws {
        let conn = try Connection.inMemory()
        try conn.create(table: "copies") { t in
            t.column("id", .integer).primaryKey()
            t.column("state", .text).notNull().check("state IN \(list: ["lost", "kept", "lent"])")
            t.check("id NOT IN \(list: [0])", name: "positive")
        }
        let sql = try conn.rows("SELECT sql FROM sqlite_schema WHERE name = 'copies'")[0][0] as String
        #expect(sql.contains("CHECK (state IN ('lost', 'kept', 'lent'))"))
        #expect(sql.contains("CHECK (id NOT IN (0))"))
        try conn.execute("INSERT INTO copies VALUES (1, 'lent')")
        #expect(throws: SQLiteError.self) { try conn.execute("INSERT INTO copies VALUES (2, 'gone')") }
        // Bound in a statement, the list is still padded for reuse.
        let bound: SQL = "state IN \(list: ["lost", "kept", "lent"])"
        #expect(bound.text == "state IN (?, ?, ?, ?)")
        let combined: SQL = "a = \(1) AND " + bound + " AND b IN \(list: [1, 2, 3, 4, 5])"
        let literal = try combined.inlined(encoder: conn.recordContext.values)
        #expect(literal == "a = 1 AND state IN ('lost', 'kept', 'lent') AND b IN (1, 2, 3, 4, 5)")
    }
}

extension Connection {
    /// The SQL `fetchCount` runs for `request`.
    fileprivate func countSQL<R: Record>(_ request: QueryRequest<R>) throws -> SQL {
        try request.countSQL(requestSchema)
    }
}
