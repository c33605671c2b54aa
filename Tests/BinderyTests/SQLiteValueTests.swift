import Foundation
import Testing

@testable import Bindery

@Suite struct SQLiteValueTests {
    // MARK: Literals

    @Test func literalsMakeTheMatchingStorageClass() {
        let null: SQLiteValue = nil
        let integer: SQLiteValue = 42
        let negative: SQLiteValue = -7
        let real: SQLiteValue = 2.5
        let text: SQLiteValue = "text"
        let yes: SQLiteValue = true
        let no: SQLiteValue = false
        #expect(null == .null)
        #expect(integer == .integer(42))
        #expect(negative == .integer(-7))
        #expect(real == .real(2.5))
        #expect(text == .text("text"))
        #expect(yes == .integer(1))
        #expect(no == .integer(0))
    }

    @Test func arrayOfLiteralsAsInTheDocumentation() {
        let values: [SQLiteValue] = [nil, 42, 2.5, "text", .blob(Data([1, 2, 3])), true]
        #expect(values.map(\.typeName) == ["null", "integer", "real", "text", "blob", "integer"])
    }

    @Test func integerLiteralCoversTheFullInt64Range() {
        let largest: SQLiteValue = 9_223_372_036_854_775_807
        let smallest: SQLiteValue = -9_223_372_036_854_775_808
        #expect(largest == .integer(Int64.max))
        #expect(smallest == .integer(Int64.min))
    }

    // MARK: Hashable

    @Test func equalityDistinguishesStorageClasses() {
        #expect(SQLiteValue.integer(1) != .real(1))
        #expect(SQLiteValue.integer(1) != .text("1"))
        #expect(SQLiteValue.text("") != .null)
        #expect(SQLiteValue.blob(Data()) != .null)
        #expect(SQLiteValue.blob(Data()) != .text(""))
        #expect(SQLiteValue.blob(Data("a".utf8)) != .text("a"))
        #expect(SQLiteValue.integer(0) != .null)
        #expect(SQLiteValue.blob(Data([1, 2])) == .blob(Data([1, 2])))
        // Texts compare by their bytes, as SQLite's BINARY collation does, not by canonical equivalence.
        #expect(SQLiteValue.text("\u{E9}") != .text("e\u{301}"))
        #expect(SQLiteValue.text("\u{E9}") == .text("\u{E9}"))
    }

    @Test func hashableValuesWorkInSetsAndDictionaries() {
        let values: [SQLiteValue] = [
            .null, .integer(1), .real(1), .text("1"), .blob(Data([1])), .integer(1), .text("1"), .null,
        ]
        let set = Set(values)
        #expect(set.count == 5)
        #expect(set.contains(.blob(Data([1]))))
        #expect(!set.contains(.integer(2)))

        var names: [SQLiteValue: String] = [:]
        names[.integer(7)] = "seven"
        names[.text("7")] = "text seven"
        #expect(names[.integer(7)] == "seven")
        #expect(names[.text("7")] == "text seven")
        #expect(names[.real(7)] == nil)
    }

    @Test func equalValuesHaveEqualHashes() {
        let pairs: [(SQLiteValue, SQLiteValue)] = [
            (.null, nil),
            (.integer(42), 42),
            (.real(2.5), 2.5),
            (.text("abc"), "abc"),
            (.blob(Data([0, 255])), .blob(Data([0, 255]))),
        ]
        for (left, right) in pairs {
            #expect(left == right)
            #expect(left.hashValue == right.hashValue)
        }
    }

    // MARK: typeName and description

    @Test func typeNameMatchesSQLiteTypeof() throws {
        let conn = try Connection.inMemory()
        let values: [SQLiteValue] = [
            .null, .integer(-3), .real(0.5), .text("x"), .text(""), .blob(Data([9])), .blob(Data()),
        ]
        for value in values {
            let rows = try conn.rows("SELECT typeof(?)", arguments: [value])
            let row = try #require(rows.first)
            let sqliteName: String = try row[0]
            #expect(value.typeName == sqliteName, "typeName of \(value)")
        }
    }

    @Test func typeNameAndIsNull() {
        #expect(SQLiteValue.null.typeName == "null")
        #expect(SQLiteValue.integer(1).typeName == "integer")
        #expect(SQLiteValue.real(1).typeName == "real")
        #expect(SQLiteValue.text("").typeName == "text")
        #expect(SQLiteValue.blob(Data()).typeName == "blob")
        #expect(SQLiteValue.null.isNull)
        #expect(!SQLiteValue.integer(0).isNull)
        #expect(!SQLiteValue.text("").isNull)
    }

    @Test func descriptionIsWrittenAsSQL() {
        #expect(SQLiteValue.null.description == "NULL")
        #expect(SQLiteValue.integer(-42).description == "-42")
        #expect(SQLiteValue.real(2.5).description == "2.5")
        #expect(SQLiteValue.text("it's").description == "'it''s'")
        #expect(SQLiteValue.blob(Data([0x01, 0xAB])).description == "x'01ab'")
        #expect(SQLiteValue.text("a").debugDescription == SQLiteValue.text("a").description)
    }

    // MARK: Round trips through SQLite

    @Test func everyValueRoundTripsThroughABoundParameter() throws {
        let conn = try Connection.inMemory()
        let values: [SQLiteValue] = [
            .null, .integer(0), .integer(Int64.max), .integer(Int64.min), .real(-1.5), .real(1.0),
            .real(Double.greatestFiniteMagnitude), .real(Double.leastNonzeroMagnitude), .text("héllo 🌍"),
            .text(""), .blob(Data([0, 1, 2, 255])), .blob(Data()),
        ]
        for value in values {
            let rows = try conn.rows("SELECT ? AS value", arguments: [value])
            let row = try #require(rows.first)
            let read: SQLiteValue = try row[0]
            #expect(read == value)
        }
    }

    @Test func wholeRealStaysReal() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE t(v)")
        try conn.execute("INSERT INTO t(v) VALUES (?)", arguments: [.real(3)])
        let row = try #require(try conn.rows("SELECT v, typeof(v) FROM t", arguments: []).first)
        #expect(try row[0] as SQLiteValue == .real(3))
        #expect(try row[1] as String == "real")
    }

    // MARK: SQLiteValueConvertible

    @Test func convertibleTypesGiveTheirSQLiteValue() {
        #expect(Int(5).sqliteValue == .integer(5))
        #expect(Int64(-5).sqliteValue == .integer(-5))
        #expect(Double(0.25).sqliteValue == .real(0.25))
        #expect(true.sqliteValue == .integer(1))
        #expect(false.sqliteValue == .integer(0))
        #expect("s".sqliteValue == .text("s"))
        #expect(Data([7]).sqliteValue == .blob(Data([7])))
        #expect((nil as Int?).sqliteValue == .null)
        #expect((3 as Int?).sqliteValue == .integer(3))
        #expect(SQLiteValue.text("v").sqliteValue == .text("v"))
    }

    @Test func integerDecodingIsExact() throws {
        #expect(try Int64.decode(from: .integer(Int64.min), column: "c") == Int64.min)
        #expect(try Int.decode(from: .real(3), column: "c") == 3)
        #expect(throws: SQLiteError.self) { try Int.decode(from: .real(3.5), column: "c") }
        #expect(throws: SQLiteError.self) { try Int64.decode(from: .real(1e19), column: "c") }
        #expect(throws: SQLiteError.self) { try Int64.decode(from: .real(.nan), column: "c") }
        #expect(throws: SQLiteError.self) { try Int.decode(from: .text("42"), column: "c") }
        #expect(throws: SQLiteError.self) { try Int.decode(from: .null, column: "c") }
    }

    @Test func textIsNeverParsedAsANumber() throws {
        let error = try #require(throws: SQLiteError.self) {
            try Double.decode(from: .text("2.5"), column: "price")
        }
        #expect(error.code == .mismatch)
        #expect(error.message.contains("price"))
        #expect(error.message.contains("TEXT"))
    }

    @Test func optionalDecodingGivesNilOnlyForNull() throws {
        #expect(try Int?.decode(from: .null, column: "c") == nil)
        #expect(try Int?.decode(from: .integer(4), column: "c") == 4)
        #expect(throws: SQLiteError.self) { try Int?.decode(from: .text("4"), column: "c") }
        #expect(throws: SQLiteError.self) { try String?.decode(from: .blob(Data()), column: "c") }
    }
}
