import Foundation
import Testing

@testable import Bindery

/// `\(list:)` in `SQL`: each element bound and converted like a record property, an empty list that
/// matches nothing (and everything with `NOT IN`), a list past SQLite's parameter limit that matches
/// exactly what value-by-value binding matches, and an array interpolated as one value after `IN`
/// refused with an error that says to use `\(list:)`.
@Suite struct SQLListTests {
    enum Status: String, Codable, Sendable, CaseIterable { case open, closed, lost }

    struct Loan: Record, Equatable {
        static let tableName = "loans"
        var id: Int64?
        var member: UUID
        var due: Date
        var status: Status
        var note: String?
    }

    static let day: TimeInterval = 86_400
    static let members = (0..<4).map { index in
        UUID(uuidString: "00000000-0000-4000-8000-00000000000\(index)") ?? UUID()
    }

    /// A `loans` table with four loans, one of them without a note.
    static func loans() throws -> (Connection, [Loan]) {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Loan.self)
        let statuses: [Status] = [.open, .closed, .lost, .open]
        var saved: [Loan] = []
        for index in 0..<4 {
            let loan = Loan(
                id: nil, member: members[index], due: Date(timeIntervalSince1970: Double(index) * day + 0.25),
                status: statuses[index], note: index == 3 ? nil : "note \(index)")
            saved.append(try conn.insert(loan))
        }
        return (conn, saved)
    }

    @Test func expandsIntoOnePlaceholderPerElement() throws {
        let (conn, saved) = try Self.loans()
        let ids: [Int64] = [3, 1, 99]
        let sql: SQL = "id IN \(list: ids) AND note NOT IN \(list: ["x"])"
        // Three ids take four placeholders (the last one bound twice): see the padding test.
        #expect(sql.text == "id IN (?, ?, ?, ?) AND note NOT IN (?)")
        #expect(sql.valueCount == 5)
        #expect(try conn.fetchAll(Loan.self, where: sql, orderBy: "id") == [saved[0], saved[2]])
        // Any sequence: a set, a range, a lazy map.
        #expect(try conn.count(Loan.self, where: "id IN \(list: Set([Int64(2), 4]))") == 2)
        #expect(try conn.count(Loan.self, where: "id IN \(list: 2...3)") == 2)
        #expect(try conn.count(Loan.self, where: "id NOT IN \(list: saved.lazy.compactMap(\.id).prefix(3))") == 1)
    }

    @Test func elementsAreConvertedLikeRecordProperties() throws {
        let (conn, saved) = try Self.loans()
        #expect(
            try conn.fetchAll(Loan.self, where: "member IN \(list: [Self.members[1], Self.members[3]])", orderBy: "id")
                == [saved[1], saved[3]])
        #expect(try conn.fetchAll(Loan.self, where: "due IN \(list: [saved[2].due])") == [saved[2]])
        #expect(
            try conn.fetchAll(Loan.self, where: "status IN \(list: [Status.open, .lost])", orderBy: "id")
                == [saved[0], saved[2], saved[3]])
        // nil binds NULL, with SQL's meaning: NULL is in no list, and NOT IN a list holding NULL is
        // never true.
        let notes: [String?] = ["note 1", nil]
        #expect(try conn.fetchAll(Loan.self, where: "note IN \(list: notes)") == [saved[1]])
        #expect(try conn.count(Loan.self, where: "note NOT IN \(list: notes)") == 0)
        #expect(try conn.count(Loan.self, where: "note IS NULL AND id IN \(list: [Int64?.none, 4])") == 1)
        // The UUID strategy of the connection applies, as it does to `\(value)`.
        var options = CodingOptions()
        options.uuidStrategy = .blob
        conn.codingOptions = options
        #expect(try conn.count(Loan.self, where: "member IN \(list: Self.members)") == 0)
    }

    @Test func emptyListMatchesNothingAndNotInMatchesEverything() throws {
        let (conn, _) = try Self.loans()
        let none: [Int64] = []
        let sql: SQL = "note IN \(list: none)"
        #expect(sql.text == "note IN ()")
        #expect(sql.valueCount == 0)
        #expect(try conn.count(Loan.self, where: sql) == 0)
        // Every row, the one whose note is NULL included: NULL NOT IN () is true, not NULL.
        #expect(try conn.count(Loan.self, where: "note NOT IN \(list: none)") == 4)
        #expect(try conn.count(Loan.self, where: "(note IN \(list: none)) IS NULL") == 0)
        #expect(try conn.fetchOne(Bool.self, sql: "SELECT NULL NOT IN \(list: none)") == true)
    }

    // MARK: Long lists

    /// A table whose columns have each affinity (INTEGER, TEXT, REAL, NUMERIC, none; and TEXT compared
    /// without case), each row holding
    /// one of `values` in every column, and a row of NULLs.
    static func affinityTable(_ values: [any Encodable & Sendable]) throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (i INTEGER, s TEXT, r REAL, n NUMERIC, x, c TEXT COLLATE NOCASE)")
        for value in values {
            try conn.execute("INSERT INTO t VALUES (\(value), \(value), \(value), \(value), \(value), \(value))")
        }
        try conn.execute("INSERT INTO t VALUES (NULL, NULL, NULL, NULL, NULL, NULL)")
        return conn
    }

    /// `list`, longer than the parameter limit of a list, matches the same rows through `\(list:)` (one
    /// JSON array) as bound value by value, in every column, with `IN` and `NOT IN`.
    static func expectSameMatches<T: Encodable & Sendable>(
        _ list: [T], in conn: Connection, columns: [String] = ["i", "s", "r", "n", "x", "c"],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(list.count > SQL.listParameterLimit, sourceLocation: sourceLocation)
        let placeholders = Array(repeating: "?", count: list.count).joined(separator: ", ")
        var matched = 0
        for column in columns {
            for op in ["IN", "NOT IN"] {
                let condition = "\(column) \(op)"
                let reference = try conn.fetchAll(
                    Int64.self,
                    sql: SQL(
                        text: "SELECT rowid FROM t WHERE \(condition) (\(placeholders)) ORDER BY rowid",
                        values: list))
                let sql: SQL = "SELECT rowid FROM t WHERE \(raw: condition) \(list: list) ORDER BY rowid"
                #expect(sql.text.contains("json_each(?)"), sourceLocation: sourceLocation)
                #expect(sql.valueCount == 1, sourceLocation: sourceLocation)
                let listed = try conn.fetchAll(Int64.self, sql: sql)
                #expect(listed == reference, "\(condition)", sourceLocation: sourceLocation)
                if op == "IN" {
                    matched += reference.count
                }
            }
        }
        #expect(matched > 0, "nothing matched: the comparison proves nothing", sourceLocation: sourceLocation)
    }

    @Test func longListOfIntegersMatchesAsBoundValues() throws {
        let conn = try Self.affinityTable([
            1, "1", 1.0, "01", " 1", 2.5, "abc", Data([1]), Int64.max, Int64.min, "9223372036854775807", 1e20,
            1 << 53, -(1 << 53), 9_007_199_254_740_993,
        ])
        // Integers beyond ±2^53 that no double equals are compared with a REAL column as the nearest
        // double through the JSON form (SQLite gives the values REAL affinity there), so the REAL column
        // is left out for them; the documented exception.
        let huge = [1, Int64.max, Int64.min, 3, 9_007_199_254_740_993] + (100_000..<101_000).map { Int64($0) }
        try Self.expectSameMatches(huge, in: conn, columns: ["i", "s", "n", "x", "c"])
        let limit = 1 << 53
        try Self.expectSameMatches(
            [1, 2, limit, -limit] + (0..<1000).map { _ in Int.random(in: -limit...limit) }, in: conn)
    }

    @Test func longListOfStringsMatchesAsBoundValues() throws {
        let odd = ["1", "01", " 1", "2.5", "abc", "ABC", "a\"b\\c\n\u{1}\t/d\u{7f}", "é", "😀", ""]
        let conn = try Self.affinityTable(odd + [1, 2.5, Data("abc".utf8)])
        try Self.expectSameMatches(odd + (0..<1000).map { "filler \($0)" }, in: conn)
    }

    @Test func longListOfDoublesMatchesAsBoundValues() throws {
        var doubles: [Double] = [
            1, 2.5, 0.1, -0.0, 1e300, -1e-300, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
            .infinity, -.infinity,
            9_007_199_254_740_992, 1e20, 123_456_789.123_456_789,
        ]
        while doubles.count < 1500 {
            let random = Double(bitPattern: UInt64.random(in: .min ... .max))
            if random.isFinite {
                doubles.append(random)
            }
        }
        let conn = try Self.affinityTable(doubles.map { $0 as any Encodable & Sendable } + [1, "2.5", "0.1"])
        try Self.expectSameMatches(doubles, in: conn)
        // Every double is found again, exactly: not one is read back rounded (and 1 matches 1.0).
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM t WHERE x IN \(list: doubles)") == 1501)
    }

    @Test func longListsOfDatesAndUUIDsMatchAsBoundValues() throws {
        let dates = (0..<1200).map { Date(timeIntervalSince1970: Double($0) * 3_600.125) }
        let uuids = (0..<1200).map { _ in UUID() }
        let conn = try Self.affinityTable(
            Array(dates.prefix(5)) + Array(uuids.prefix(5)) + [dates[7].timeIntervalSince1970, "x"])
        try Self.expectSameMatches(dates, in: conn)
        try Self.expectSameMatches(uuids, in: conn)
    }

    @Test func hundredThousandValues() throws {
        let (conn, _) = try Self.loans()
        try conn.execute(
            script: """
                CREATE TABLE n (v INTEGER, s TEXT);
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000)
                INSERT INTO n SELECT x, 'v' || x FROM c;
                """)
        let evens = Array(stride(from: Int64(2), through: 200_000, by: 2))
        #expect(evens.count == 100_000)
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM n WHERE v IN \(list: evens)") == 1500)
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM n WHERE v NOT IN \(list: evens)") == 1500)
        let names = evens.map { "v\($0)" }
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM n WHERE s IN \(list: names)") == 1500)
        // Record operations take such a list too.
        #expect(try conn.count(Loan.self, where: "id IN \(list: evens)") == 2)
        #expect(try conn.delete(Loan.self, where: "id NOT IN \(list: evens)") == 2)
    }

    @Test func longListWithABlobOrANULThrows() throws {
        let (conn, _) = try Self.loans()
        let blobs = (0..<1000).map { Data([UInt8($0 % 256)]) }
        let error = try #require(throws: EncodingError.self) {
            try conn.fetchAll(Loan.self, where: "note IN \(list: blobs)")
        }
        #expect("\(error)".contains("BLOB"))
        let texts = ["before\u{0}after"] + (0..<1000).map { "t\($0)" }
        let nul = try #require(throws: EncodingError.self) {
            try conn.fetchAll(Loan.self, where: "note IN \(list: texts)")
        }
        #expect("\(nul)".contains("element 0 (String) of a list of 1001 values is text holding a NUL"))
        #expect("\(nul)".contains("temporary table"))
        // The values are TEXT already: no advice to store them as TEXT.
        #expect(!"\(nul)".contains("uuidStrategy"))
        #expect("\(error)".contains("element 0 (Data)") && !"\(error)".contains("uuidStrategy"))
        let uuids = (0..<1000).map { _ in UUID() }
        let blobUUID = try Connection.inMemory()
        blobUUID.codingOptions.uuidStrategy = .blob
        let uuidError = try #require(throws: EncodingError.self) {
            try blobUUID.rows("SELECT 1 WHERE x'00' IN \(list: uuids)")
        }
        #expect("\(uuidError)".contains("element 0 (UUID)") && "\(uuidError)".contains("uuidStrategy .lowercaseText"))
        let doubles = (0..<1000).map(Double.init) + [.nan]
        let nan = try #require(throws: EncodingError.self) {
            try conn.rows("SELECT 1 WHERE 1 IN \(list: doubles)")
        }
        #expect("\(nan)".contains("NaN") && "\(nan)".contains("(element 1000 of a list of 1001 values)"))
        #expect(!"\(nan)".contains("column"))
        // A short one binds each blob.
        #expect(try conn.count(Loan.self, where: "note IN \(list: blobs.prefix(10))") == 0)
    }

    // MARK: Mistakes

    /// Checks that `body` throws an `EncodingError` that says to use `\(list:)`.
    static func expectListAdvice(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) throws {
        let error = try #require(throws: EncodingError.self, sourceLocation: sourceLocation) { try body() }
        #expect("\(error)".contains("IN \\(list: values)"), "\(error)", sourceLocation: sourceLocation)
    }

    @Test func arrayInterpolatedAfterINThrows() throws {
        let (conn, _) = try Self.loans()
        let ids: [Int64] = [1, 2]
        try Self.expectListAdvice { _ = try conn.fetchAll(Loan.self, where: "id IN \(ids)") }
        try Self.expectListAdvice { _ = try conn.fetchAll(Loan.self, where: "id IN (\(ids))") }
        try Self.expectListAdvice { _ = try conn.fetchAll(Loan.self, where: "id not in(  \(ids) )") }
        try Self.expectListAdvice { _ = try conn.count(Loan.self, where: "id IN \(Set(ids))") }
        try Self.expectListAdvice { _ = try conn.rows("SELECT 1 WHERE 1 IN\n(\(Optional(ids)))") }
        try Self.expectListAdvice { try conn.delete(Loan.self, where: "id IN (\(ids))") }
        try Self.expectListAdvice { try conn.execute("UPDATE loans SET note = 'x' WHERE id IN \(ids)") }
        #expect(try conn.count(Loan.self, where: "note = 'x'") == 0)
        #expect(try conn.count(Loan.self) == 4)
    }

    @Test func arrayAfterINIsFoundPastCommentsAndOtherElements() throws {
        let (conn, _) = try Self.loans()
        let ids: [Int64] = [1, 2]
        try Self.expectListAdvice { _ = try conn.count(Loan.self, where: "id IN /* ids */ \(ids)") }
        try Self.expectListAdvice { _ = try conn.count(Loan.self, where: "id NOT IN -- the ids\n  \(ids)") }
        try Self.expectListAdvice { _ = try conn.count(Loan.self, where: "id IN ( /* a */ -- b\n \(ids))") }
        try Self.expectListAdvice { _ = try conn.count(Loan.self, where: "id IN(\(Int64(1)), \(ids))") }
        try Self.expectListAdvice { _ = try conn.count(Loan.self, where: "id IN \(["a": 1])") }
        try Self.expectListAdvice { _ = try conn.count(Loan.self, where: "id IN (\([1: "a"]))") }
    }

    @Test func listErrorsNameWhatWasInterpolated() throws {
        let (conn, _) = try Self.loans()
        func message(_ sql: SQL) throws -> String {
            let error = try #require(throws: EncodingError.self) { try conn.rows(sql) }
            return "\(error)"
        }
        let ids: [Int64] = [1, 2]
        #expect(try message("SELECT 1 WHERE 1 IN (\(ids))").contains("an array ([Int64]) interpolated after IN"))
        #expect(try message("SELECT 1 WHERE 1 IN (\(Set(ids)))").contains("a set (Set<Int64>) interpolated"))
        #expect(try message("SELECT 1 WHERE 1 IN (\(["a": 1]))").contains("a dictionary ([String: Int]) "))
        #expect(try message("SELECT 1 WHERE 1 IN (\(["a": 1]))").contains("one JSON object text"))
        #expect(try message("SELECT 1 WHERE 1 IN (\(Optional(ids)))").contains("an array ([Int64]?)"))
        // Any value right after the keyword: SQLite wants parentheses.
        let bare = try message("SELECT 1 WHERE 1 IN \(1)")
        #expect(bare.contains("needs parentheses") && bare.contains("IN (\\(value))"))
    }

    /// A `Sequence` that encodes as one string.
    struct Word: Sequence, Codable, Sendable {
        let text: String
        init(_ text: String) { self.text = text }
        init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
        func makeIterator() -> String.Iterator { text.makeIterator() }
    }

    @Test func sequenceStoredAsOneValueIsBoundAfterIN() throws {
        let (conn, saved) = try Self.loans()
        let sql: SQL = "note IN (\(Word("note 1")), \(Word("dog")))"
        #expect(try conn.fetchAll(Loan.self, where: sql) == [saved[1]])
        #expect(try conn.fetchAll(Loan.self, where: "note IN \(list: [Word("note 2")])") == [saved[2]])
        #expect(try conn.count(Loan.self, where: "note NOT IN (\(Word("note 0")))") == 2)
    }

    @Test func listAfterINIsPaddedToAPowerOfTwo() throws {
        #expect((0...12).map(SQL.StringInterpolation.bucketedCount) == [0, 1, 2, 4, 4, 8, 8, 8, 8, 16, 16, 16, 16])
        #expect(SQL.StringInterpolation.bucketedCount(512) == 512)
        #expect(SQL.StringInterpolation.bucketedCount(513) == SQL.listParameterLimit)
        #expect(SQL.StringInterpolation.bucketedCount(999) == SQL.listParameterLimit)
        let padded: SQL = "x NOT IN /* c */ \(list: [1, 2, 3])"
        #expect(padded.text == "x NOT IN /* c */ (?, ?, ?, ?)")
        // Not after IN: the list is left as it is.
        let values: SQL = "VALUES \(list: [1, 2, 3])"
        #expect(values.text == "VALUES (?, ?, ?)")
        let conn = try Connection.inMemory()
        #expect(try conn.fetchAll(Int.self, sql: "SELECT * FROM (VALUES \(list: [1, 2, 3]))") == [1])
    }

    @Test func paddingChangesNoResultOfINOrNOTIN() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (3), ('a'), (NULL), (2.5)")
        let pool: [SQLiteValue?] = [.integer(2), nil, .text("a"), .integer(7), .real(2.5), .integer(1)]
        for count in 1...pool.count {
            for last in [pool[count - 1], nil] {
                let list = Array(pool.prefix(count - 1)) + [last]
                for op in ["IN", "NOT IN"] {
                    let placeholders = Array(repeating: "?", count: list.count).joined(separator: ", ")
                    let query = "SELECT quote(x), quote(x \(op) (\(placeholders))) FROM t ORDER BY rowid"
                    let exact = try conn.rows(SQL(text: query, values: list)).map {
                        try [$0[0] as String, $0[1] as String]
                    }
                    let sql: SQL = "SELECT quote(x), quote(x \(raw: op) \(list: list)) FROM t ORDER BY rowid"
                    #expect(sql.valueCount == SQL.StringInterpolation.bucketedCount(list.count))
                    let listed = try conn.rows(sql).map { try [$0[0] as String, $0[1] as String] }
                    #expect(listed == exact, "\(op) \(list)")
                }
            }
        }
    }

    @Test func arraysBoundAsJSONTextStillWork() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t (id INTEGER PRIMARY KEY, tags TEXT, origin TEXT)")
        let tags = ["a", "b", "c"]
        try conn.execute("INSERT INTO t (tags, origin) VALUES (\(tags), 'x')")
        try conn.execute("UPDATE t SET tags = \(tags + ["d"])")
        #expect(try conn.fetchOne(String.self, sql: "SELECT tags FROM t") == #"["a","b","c","d"]"#)
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM json_each(\(tags))") == 3)
        #expect(try conn.fetchOne(Bool.self, sql: "SELECT 'b' IN (SELECT value FROM json_each(\(tags)))") == true)
        // A JSON column compared with JSON texts: each element of a list is bound as JSON.
        #expect(
            try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM t WHERE tags IN \(list: [tags + ["d"], ["z"]])") == 1
        )
        // A name that ends in "in" is not the keyword.
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM t WHERE origin IS NOT \(tags)") == 1)
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM t AS origin WHERE tags = \(tags)") == 0)
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM t WHERE tags=origin||\(tags)") == 0)
    }
}
