// libFuzzer target: random SQLite values, in columns of random declared types, decoded into structs
// of many shapes (integers of every width, optionals, dates, UUIDs, URLs, decimals, enums, nested
// JSON) through every read path. Thrown errors are fine; a crash, a sanitizer report or a value
// that differs from what SQLite holds is a failure.

import CSQLite
import Foundation

private enum Color: String, Codable { case red, green, blue }
private enum Level: Int, Codable { case low = 1, high = 2 }

private struct Widths: Decodable {
    let a: Int
    let b: Int8
    let c: Int16
    let d: Int32
    let e: Int64
    let f: UInt
    let g: UInt8
    let h: UInt16
    let i: UInt32
    let j: UInt64

    /// Each field as an Int64 when it fits (UInt and UInt64 may not), in column order.
    var asInt64: [Int64?] {
        [Int64(a), Int64(b), Int64(c), Int64(d), e, Int64(exactly: f), Int64(g), Int64(h), Int64(i), Int64(exactly: j)]
    }
}

private struct Optionals: Decodable {
    let a: Int?
    let b: Double?
    let c: String?
    let d: Bool?
    let e: Data?
    let f: Float?
    let g: Int8?
    let h: UInt64?
    let i: Decimal?
    let j: URL?
}

private struct Stamps: Decodable {
    let a: Date
    let b: UUID
    let c: Date?
    let d: UUID?
    let e: Decimal
    let f: URL
    let g: Bool
    let h: Double
    let i: Float
    let j: String
}

private struct Inner: Codable {
    let x: Int
    let y: String?
    let z: [Double]
}

private struct Nested: Decodable {
    let a: Inner
    let b: [Int]
    let c: [String: Double]?
    let d: Set<String>?
    let e: [Inner]?
    let f: Color
    let g: Level?
    let h: [Color]?
    let i: Inner?
    let j: [[Int?]]?
}

/// Decodes through the less common container paths: nested containers, unkeyed containers,
/// `superDecoder`, `allKeys`, `contains`.
private struct Containers: Decodable {
    enum Keys: String, CodingKey { case a, b, c, d, e, f, g, h, i, j, missing }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        _ = container.allKeys
        _ = container.contains(.missing)
        _ = try? container.decodeNil(forKey: .a)
        _ = try? container.decodeIfPresent(Int16.self, forKey: .a)
        _ = try? container.decode([String: [Int]].self, forKey: .b)
        _ = try? container.nestedContainer(keyedBy: Keys.self, forKey: .c)
        if var unkeyed = try? container.nestedUnkeyedContainer(forKey: .d) {
            while !unkeyed.isAtEnd {
                guard (try? unkeyed.decode(Int.self)) != nil else { break }
            }
        }
        _ = try? container.superDecoder(forKey: .e).singleValueContainer().decode(String.self)
        _ = try? container.decode(SQLiteValue.self, forKey: .f)
        _ = try? container.decode(Level.self, forKey: .g)
        _ = try? container.decodeIfPresent(Date.self, forKey: .h)
        _ = try? container.decode(UUID?.self, forKey: .i)
        _ = try? container.decode(Decimal?.self, forKey: .j)
        _ = try? container.decode(Int.self, forKey: .missing)
    }
}

private let columns = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
private let declaredTypes = ["", "INTEGER", "REAL", "TEXT", "BLOB", "NUMERIC", "ANY"]

/// Coding options picked by the fuzzer.
private func options(_ pick: UInt8) -> CodingOptions {
    let dates: [CodingOptions.DateStrategy] = [
        .sqliteText, .unixSeconds, .unixSecondsInteger, .unixMilliseconds, .julianDay,
    ]
    var options = CodingOptions()
    options.dateStrategy = dates[Int(pick) % dates.count]
    options.uuidStrategy = pick & 0x10 == 0 ? .lowercaseText : .blob
    options.keyStrategy = pick & 0x20 == 0 ? .useDefaultKeys : .snakeCase
    return options
}

/// One connection for every input (opening one per input costs more than the rest of the work):
/// libFuzzer calls the target on one thread, and each input drops what the previous one made.
nonisolated(unsafe) private let sharedConnection: Connection? = {
    guard let conn = try? Connection.inMemory() else { return nil }
    harden(conn)
    return conn
}()

/// The harness (run through `fuzzOneInput` in FuzzEntry.swift): one input builds a table of random values and decodes it every way.
public func rowDecoderFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let conn = sharedConnection else { return 0 }
    // Each input starts from the same state: no table, no prepared statement, its own options.
    try? conn.execute(script: "DROP TABLE IF EXISTS t")
    conn.codingOptions = options(input.byte())
    let definitions = columns.map { "\($0) \(declaredTypes[input.choice(declaredTypes.count)])" }
    guard (try? conn.execute(script: "CREATE TABLE t(\(definitions.joined(separator: ", ")))")) != nil else {
        return 0
    }
    for _ in 0...input.choice(3) {
        var placeholders: [String] = []
        var values: [SQLiteValue] = []
        for _ in columns {
            let value = input.value()
            // A BLOB cast to TEXT puts text that is not valid UTF-8 into the table.
            placeholders.append(value.typeName == "blob" && input.bool() ? "CAST(? AS TEXT)" : "?")
            values.append(value)
        }
        try? conn.execute("INSERT INTO t VALUES (\(placeholders.joined(separator: ", ")))", arguments: values)
    }
    // Which read paths this input takes, one bit each (all of them for 0).
    let selection = input.byte()
    decode(conn, singleColumn: columns[input.choice(columns.count)], paths: selection == 0 ? 0xFF : selection)
    return 0
}

private func decode(_ conn: Connection, singleColumn column: String, paths: UInt8) {
    let stored = (try? conn.rows("SELECT * FROM t ORDER BY rowid", arguments: [])) ?? []
    let sql: SQL = "SELECT * FROM t ORDER BY rowid"

    // Integers are exact or refused, never truncated or rounded.
    if paths & 1 != 0, let rows = try? conn.fetchAll(Widths.self, sql: sql) {
        require(rows.count == stored.count, "\(rows.count) rows decoded from \(stored.count)")
        for (decoded, row) in zip(rows, stored) {
            for (index, value) in decoded.asInt64.enumerated() {
                let found: SQLiteValue? = try? row[index]
                switch found {
                case .integer(let integer)?:
                    require(value == integer, "column \(index): \(String(describing: value)) from \(integer)")
                case .real(let real)?:
                    require(
                        value.map(Double.init) == real, "column \(index): \(String(describing: value)) from \(real)")
                default:
                    require(false, "column \(index): an integer decoded from \(String(describing: found))")
                }
            }
        }
    }
    // Text comes back as SQLite holds it.
    if paths & 2 != 0, let rows = try? conn.fetchAll(Optionals.self, sql: sql) {
        for (decoded, row) in zip(rows, stored) {
            if let text = decoded.c {
                let found: SQLiteValue? = try? row[2]
                require(found == .text(text), "text \(text.debugDescription) decoded from \(String(describing: found))")
            }
        }
    }
    if paths & 4 != 0 {
        _ = try? conn.fetchAll(Stamps.self, sql: sql)
    }
    if paths & 8 != 0 {
        _ = try? conn.fetchAll(Nested.self, sql: sql)
        _ = try? conn.fetchOne(Nested.self, sql: sql)
    }
    if paths & 16 != 0 {
        _ = try? conn.fetchAll(Containers.self, sql: sql)
    }

    // Single values from the first column.
    if paths & 32 != 0 {
        let single: SQL = "SELECT \(identifier: column) FROM t"
        _ = try? conn.fetchAll(Int8.self, sql: single)
        _ = try? conn.fetchAll(UInt64.self, sql: single)
        _ = try? conn.fetchAll(Double?.self, sql: single)
        _ = try? conn.fetchAll(Date.self, sql: single)
        _ = try? conn.fetchAll(UUID.self, sql: single)
        _ = try? conn.fetchAll([String].self, sql: single)
        _ = try? conn.fetchAll(Color?.self, sql: single)
        _ = try? conn.fetchAll(Level.self, sql: single)
        _ = try? conn.fetchAll(Inner.self, sql: single)
        _ = try? conn.fetchAll(Bool.self, sql: single)
        _ = try? conn.fetchAll(Decimal.self, sql: single)
        _ = try? conn.fetchAll(SQLiteValue.self, sql: single)
    }

    // A cursor, one row at a time.
    if paths & 64 != 0, let cursor = try? conn.fetchCursor(Stamps.self, sql: sql) {
        while (try? cursor.next()) != nil {}
    }

    // Typed access to copied rows, by index and by name.
    for row in stored where paths & 128 != 0 {
        for (index, name) in columns.enumerated() {
            _ = try? row[index] as Int
            _ = try? row[name] as Int64?
            _ = try? row[index] as Double
            _ = try? row[name] as String
            _ = try? row[index] as Data?
            _ = try? row[name] as Bool
        }
    }
}
