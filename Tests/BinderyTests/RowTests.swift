import Foundation
import Testing

@testable import Bindery

@Suite struct RowTests {
    // MARK: Helpers

    /// One row with a column of every storage class and a few special values.
    private func sampleRow() throws -> Row {
        let conn = try Connection.inMemory()
        let rows = try conn.rows(
            """
            SELECT 42 AS Count, 9007199254740993 AS big, 2.5 AS price, 3 AS whole, 1 AS yes, 0 AS no, 2 AS two,
                   'hello' AS label, x'00ff10' AS bytes, NULL AS empty_value, 3.0 AS real_whole
            """,
            arguments: [])
        #expect(rows.count == 1)
        return try #require(rows.first)
    }

    /// Selects `value` as `column`, reads it as `type` and returns the `SQLiteError` thrown.
    private func readError<T: SQLiteValueConvertible>(
        _ type: T.Type, from value: SQLiteValue, column: String = "value"
    ) throws -> SQLiteError {
        let conn = try Connection.inMemory()
        let row = try #require(try conn.rows("SELECT ? AS \(column)", arguments: [value]).first)
        return try #require(throws: SQLiteError.self) {
            _ = try row[column] as T
        }
    }

    // MARK: Shape

    @Test func columnNamesCountAndValues() throws {
        let row = try sampleRow()
        #expect(row.count == 11)
        #expect(row.columnNames.first == "Count")
        #expect(row.columnNames.last == "real_whole")
        #expect(row.values[0] == .integer(42))
        #expect(row.values[9] == .null)
        #expect(row.index(ofColumn: "label") == 7)
        #expect(row.index(ofColumn: "LABEL") == 7)
        #expect(row.index(ofColumn: "missing") == nil)
    }

    /// Issue 16: a name that several columns share is never guessed (it used to read the first).
    @Test func aNameThatSeveralColumnsShareIsRefused() throws {
        let conn = try Connection.inMemory()
        let row = try #require(try conn.rows("SELECT 1 AS v, 2 AS V", arguments: []).first)
        #expect(throws: DecodingError.self) { try row["v"] as Int }
        #expect(throws: DecodingError.self) { try row["V"] as Int }
        #expect(try row[0] as Int == 1)
        #expect(try row[1] as Int == 2)
        #expect(row.index(ofColumn: "V") == 0)
    }

    @Test func rowsFromTheSameQueryCompareEqual() throws {
        let conn = try Connection.inMemory()
        let first = try conn.rows("SELECT 1 AS a, 'x' AS b", arguments: [])
        let second = try conn.rows("SELECT 1 AS a, 'x' AS b", arguments: [])
        #expect(first == second)
        #expect(Set(first + second).count == 1)
        let other = try conn.rows("SELECT 1 AS a, 'y' AS b", arguments: [])
        #expect(first != other)
    }

    // MARK: Typed access

    @Test func intByIndexAndByName() throws {
        let row = try sampleRow()
        #expect(try row[0] as Int == 42)
        #expect(try row["Count"] as Int == 42)
        #expect(try row["count"] as Int == 42)
        #expect(try row["COUNT"] as Int == 42)
        #expect(try row["real_whole"] as Int == 3)
    }

    @Test func int64ByIndexAndByName() throws {
        let row = try sampleRow()
        #expect(try row[1] as Int64 == 9_007_199_254_740_993)
        #expect(try row["BIG"] as Int64 == 9_007_199_254_740_993)
        let conn = try Connection.inMemory()
        let extremes = try #require(
            try conn.rows("SELECT ? AS lo, ? AS hi", arguments: [.integer(Int64.min), .integer(Int64.max)]).first)
        #expect(try extremes["lo"] as Int64 == Int64.min)
        #expect(try extremes["hi"] as Int64 == Int64.max)
    }

    @Test func doubleFromRealAndFromInteger() throws {
        let row = try sampleRow()
        #expect(try row[2] as Double == 2.5)
        #expect(try row["Price"] as Double == 2.5)
        // An INTEGER is read as Double, never lost.
        #expect(try row["whole"] as Double == 3)
        #expect(try row[0] as Double == 42)
        #expect(try row["whole"] as Double? == 3)
    }

    @Test func boolFromZeroAndOne() throws {
        let row = try sampleRow()
        #expect(try row["yes"] as Bool == true)
        #expect(try row[4] as Bool == true)
        #expect(try row["NO"] as Bool == false)
        #expect(try row["no"] as Bool? == false)
        let error = try #require(throws: SQLiteError.self) { try row["two"] as Bool }
        #expect(error.code == .mismatch)
        #expect(error.message.contains("two"))
        #expect(throws: SQLiteError.self) { try row["two"] as Bool? }
        #expect(throws: SQLiteError.self) { try row["price"] as Bool }
    }

    @Test func stringByIndexAndByName() throws {
        let row = try sampleRow()
        #expect(try row[7] as String == "hello")
        #expect(try row["Label"] as String == "hello")
    }

    @Test func dataByIndexAndByName() throws {
        let row = try sampleRow()
        #expect(try row[8] as Data == Data([0x00, 0xFF, 0x10]))
        #expect(try row["bytes"] as Data == Data([0x00, 0xFF, 0x10]))
    }

    @Test func optionalsAreNilOnlyForNull() throws {
        let row = try sampleRow()
        #expect(try row["empty_value"] as Int? == nil)
        #expect(try row["empty_value"] as Int64? == nil)
        #expect(try row["empty_value"] as Double? == nil)
        #expect(try row["empty_value"] as Bool? == nil)
        #expect(try row["empty_value"] as String? == nil)
        #expect(try row["empty_value"] as Data? == nil)
        #expect(try row[9] as String? == nil)
        #expect(try row["Count"] as Int? == 42)
        #expect(try row["label"] as String? == "hello")
        #expect(try row["bytes"] as Data? == Data([0x00, 0xFF, 0x10]))
        // A value of the wrong type is an error, not a silent nil.
        #expect(throws: SQLiteError.self) { try row["label"] as Int? }
        #expect(throws: SQLiteError.self) { try row["Count"] as String? }
    }

    @Test func sqliteValueAsItIs() throws {
        let row = try sampleRow()
        #expect(try row[0] as SQLiteValue == .integer(42))
        #expect(try row["price"] as SQLiteValue == .real(2.5))
        #expect(try row["label"] as SQLiteValue == .text("hello"))
        #expect(try row["bytes"] as SQLiteValue == .blob(Data([0x00, 0xFF, 0x10])))
        #expect(try row["empty_value"] as SQLiteValue == .null)
        #expect(try row["real_whole"] as SQLiteValue == .real(3))
    }

    @Test func namedArgumentsInRows() throws {
        let conn = try Connection.inMemory()
        let row = try #require(
            try conn.rows("SELECT :a AS a, @b AS b, $c AS c", arguments: ["a": 1, "@b": "two", "c": 3.5]).first)
        #expect(try row["a"] as Int == 1)
        #expect(try row["b"] as String == "two")
        #expect(try row["c"] as Double == 3.5)
    }

    // MARK: Errors

    @Test func missingColumnThrowsRangeNamingTheColumn() throws {
        let row = try sampleRow()
        let error = try #require(throws: SQLiteError.self) { try row["colour"] as String }
        #expect(error.code == .range)
        #expect(error.message.contains("colour"))
        let optional = try #require(throws: SQLiteError.self) { try row["colour"] as String? }
        #expect(optional.code == .range)
    }

    @Test func indexOutOfRangeThrowsRange() throws {
        let row = try sampleRow()
        for index in [-1, 11, 1_000] {
            let error = try #require(throws: SQLiteError.self) { try row[index] as SQLiteValue }
            #expect(error.code == .range)
            #expect(error.message.contains("\(index)"))
        }
    }

    @Test func textIntoIntThrowsMismatchNamingColumnAndType() throws {
        let error = try readError(Int.self, from: .text("42"), column: "quantity")
        #expect(error.code == .mismatch)
        #expect(error.message.contains("quantity"))
        #expect(error.message.contains("TEXT"))
        #expect(error.description.contains("quantity"))
    }

    @Test(
        arguments: [
            (SQLiteValue.text("x"), "TEXT"),
            (.blob(Data([1])), "BLOB"),
            (.real(2.5), "REAL"),
            (.null, "NULL"),
        ])
    func wrongTypeForIntNamesTheSQLTypeFound(value: SQLiteValue, typeName: String) throws {
        let error = try readError(Int.self, from: value, column: "amount")
        #expect(error.code == .mismatch)
        #expect(error.message.contains("amount"))
        #expect(error.message.contains(typeName))
    }

    @Test func otherMismatchesNameTheColumnAndType() throws {
        let intoString = try readError(String.self, from: .integer(7), column: "title")
        #expect(intoString.code == .mismatch)
        #expect(intoString.message.contains("title"))
        #expect(intoString.message.contains("INTEGER"))

        let blobIntoString = try readError(String.self, from: .blob(Data("abc".utf8)), column: "body")
        #expect(blobIntoString.message.contains("BLOB"))
        #expect(blobIntoString.message.contains("body"))

        let textIntoData = try readError(Data.self, from: .text("abc"), column: "payload")
        #expect(textIntoData.code == .mismatch)
        #expect(textIntoData.message.contains("TEXT"))

        let textIntoDouble = try readError(Double.self, from: .text("1.5"), column: "ratio")
        #expect(textIntoDouble.message.contains("ratio"))
        #expect(textIntoDouble.message.contains("TEXT"))

        let nullIntoString = try readError(String.self, from: .null, column: "required")
        #expect(nullIntoString.code == .mismatch)
        #expect(nullIntoString.message.contains("NULL"))
    }

    @Test func fractionalOrOutOfRangeRealIsNotAnInteger() throws {
        #expect(try readError(Int.self, from: .real(2.5)).code == .mismatch)
        #expect(try readError(Int64.self, from: .real(1e20)).code == .mismatch)
        #expect(try readError(Int64.self, from: .real(-1e20)).code == .mismatch)
    }

    // MARK: Exact round trips

    @Test func textWithNulBytesAndEmojiRoundTripsExactly() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT)")
        let samples = [
            "a\u{0}b",
            "\u{0}",
            "\u{0}\u{0}start and end\u{0}",
            "emoji 👩‍👩‍👧‍👦 🇳🇴 😀 and NUL \u{0} in the middle",
            "e\u{301} vs é, 中文, עברית, 𝄞",
        ]
        for text in samples {
            try conn.execute("INSERT INTO t(s) VALUES (?)", arguments: [.text(text)])
            let id = conn.lastInsertRowID
            let row = try #require(
                try conn.rows(
                    "SELECT s, typeof(s), length(CAST(s AS BLOB)), hex(s), CAST(s AS BLOB) FROM t WHERE id = ?",
                    arguments: [.integer(id)]
                ).first)
            let read: String = try row[0]
            #expect(read == text)
            #expect(Array(read.utf8) == Array(text.utf8), "byte for byte")
            #expect(try row[0] as SQLiteValue == .text(text))
            #expect(try row[1] as String == "text")
            #expect(try row[2] as Int == text.utf8.count)
            let hex = text.utf8.map { String(format: "%02X", $0) }.joined()
            #expect(try row[3] as String == hex)
            #expect(try row[4] as Data == Data(text.utf8))
        }
    }

    @Test func emojiLengthCountsCharactersAsSQLiteDoes() throws {
        let conn = try Connection.inMemory()
        let text = "👩‍👩‍👧‍👦🇳🇴😀"
        let row = try #require(try conn.rows("SELECT length(?), ?", arguments: [.text(text), .text(text)]).first)
        #expect(try row[0] as Int == text.unicodeScalars.count)
        #expect(try row[1] as String == text)
    }

    @Test func emptyStringStaysEmptyTextNotNull() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(s TEXT)")
        try conn.execute("INSERT INTO t(s) VALUES (?)", arguments: [.text("")])
        let row = try #require(
            try conn.rows("SELECT s, typeof(s), s IS NULL, length(s), s = '' FROM t", arguments: []).first)
        #expect(try row[0] as String == "")
        #expect(try row[0] as String? == "")
        #expect(try row[0] as SQLiteValue == .text(""))
        #expect(try row[1] as String == "text")
        #expect(try row[2] as Bool == false)
        #expect(try row[3] as Int == 0)
        #expect(try row[4] as Bool == true)
    }

    @Test func emptyDataStaysAnEmptyBlobNotNull() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(b BLOB)")
        try conn.execute("INSERT INTO t(b) VALUES (?)", arguments: [.blob(Data())])
        let row = try #require(
            try conn.rows("SELECT b, typeof(b), b IS NULL, length(b), b = x'' FROM t", arguments: []).first)
        #expect(try row[0] as Data == Data())
        #expect(try row[0] as Data? == Data())
        #expect(try row[0] as SQLiteValue == .blob(Data()))
        #expect(try row[1] as String == "blob")
        #expect(try row[2] as Bool == false)
        #expect(try row[3] as Int == 0)
        #expect(try row[4] as Bool == true)
    }

    @Test func invalidUTF8InABlobRoundTripsExactly() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(b BLOB)")
        // A lone continuation byte, an overlong encoding, a UTF-16 surrogate, a truncated sequence, 0xFF,
        // NUL bytes.
        let bytes = Data([0x80, 0xC0, 0xAF, 0xED, 0xA0, 0x80, 0xE2, 0x82, 0x00, 0xFF, 0xFE, 0x00, 0x41])
        try conn.execute("INSERT INTO t(b) VALUES (?)", arguments: [.blob(bytes)])
        let row = try #require(try conn.rows("SELECT b, typeof(b), length(b), hex(b) FROM t", arguments: []).first)
        #expect(try row[0] as Data == bytes)
        #expect(try row[0] as SQLiteValue == .blob(bytes))
        #expect(try row[1] as String == "blob")
        #expect(try row[2] as Int == bytes.count)
        #expect(try row[3] as String == "80C0AFEDA080E28200FFFE0041")
        // It is never turned into text behind the caller's back.
        let error = try #require(throws: SQLiteError.self) { try row[0] as String }
        #expect(error.code == .mismatch)
    }

    @Test func largeBlobRoundTrips() throws {
        let conn = try Connection.inMemory()
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let row = try #require(try conn.rows("SELECT ? AS bytes", arguments: [.blob(bytes)]).first)
        #expect(try row[0] as Data == bytes)
    }
}
