// libFuzzer target: `SQL` interpolation and statement execution with random values, random
// identifiers and random raw text. Thrown errors are fine; a crash, a sanitizer report, or a broken
// property is a failure:
// - `\(identifier:)` names exactly the table and columns given, whatever they hold, or the statement
//   is refused (a NUL byte; a name SQLite reserves; two column names equal but for ASCII case);
// - a value bound with `\(value)` is stored exactly as the encoder converts it, and a `WHERE` with
//   the same value interpolated finds it again, as does `IN \(list:)` holding it (short, or long and
//   bound as one JSON array);
// - raw text (`\(raw:)`, `SQL(text:values:)`, `execute(script:)`) runs or throws.

import CSQLite
import Foundation

private enum Color: String, Codable, Sendable { case red, green, blue }

private struct Inner: Codable, Sendable {
    var x: Int
    var y: String?
}

/// A value of one of the types `SQL` interpolation binds.
private func anyValue(_ input: inout FuzzInput) -> any Encodable & Sendable {
    switch input.choice(18) {
    case 0: return Int(truncatingIfNeeded: input.int64())
    case 1: return Int8(truncatingIfNeeded: input.int64())
    case 2: return UInt64(bitPattern: input.int64())
    case 3: return UInt32(truncatingIfNeeded: input.int64())
    case 4: return input.double()
    case 5: return Float(input.double())
    case 6: return input.string()
    case 7: return Data(input.rawBytes())
    case 8: return Date(timeIntervalSince1970: input.double())
    case 9:
        return UUID(
            uuid: (
                input.byte(), input.byte(), input.byte(), input.byte(), input.byte(), input.byte(),
                input.byte(), input.byte(), input.byte(), input.byte(), input.byte(), input.byte(), input.byte(),
                input.byte(), input.byte(), input.byte()
            ))
    case 10: return input.bool()
    case 11: return [input.string(), input.string()]
    case 12: return [Color.red, Color.blue][input.choice(2)]
    case 13: return Decimal(string: input.string()) ?? Decimal(input.int64())
    case 14: return URL(string: input.string()) ?? URL(fileURLWithPath: "/")
    case 15: return input.bool() ? Int?.none : Int?.some(Int(truncatingIfNeeded: input.int64()))
    case 16: return Inner(x: Int(truncatingIfNeeded: input.int64()), y: input.bool() ? nil : input.string())
    default: return input.value()
    }
}

/// ASCII case folding, as SQLite compares identifiers.
private func folded(_ name: String) -> String {
    String(decoding: name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
}

/// The harness (run through `fuzzOneInput` in FuzzEntry.swift): one input names a table, binds values into it and runs raw text.
public func sqlFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let conn = try? Connection.inMemory() else { return 0 }
    harden(conn)
    if input.bool() {
        var options = CodingOptions()
        options.dateStrategy = input.bool() ? .unixMilliseconds : .julianDay
        options.uuidStrategy = input.bool() ? .blob : .lowercaseText
        conn.codingOptions = options
    }
    let table = input.string()
    let first = input.string()
    let second = input.string()
    if checkIdentifiers(conn, table: table, columns: [first, second]) {
        checkValues(conn, table: table, columns: [first, second], &input)
    }
    runRaw(conn, table: table, column: first, &input)
    return 0
}

/// The table and its columns get exactly the names given, or the statement is refused for a reason
/// SQLite has; returns whether the table was created.
private func checkIdentifiers(_ conn: Connection, table: String, columns: [String]) -> Bool {
    do {
        try conn.execute("CREATE TABLE \(identifier: table) (\(identifier: columns[0]), \(identifier: columns[1]))")
    } catch {
        let refusable =
            ([table] + columns).contains { $0.utf8.contains(0) } || folded(table).hasPrefix("sqlite_")
            || folded(columns[0]) == folded(columns[1])
        require(refusable, "CREATE TABLE refused for \(table.debugDescription), \(columns): \(error)")
        return false
    }
    let tables = (try? conn.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema WHERE type = 'table'")) ?? []
    require(tables == [table], "table \(table.debugDescription) created as \(tables)")
    let names = (try? conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info(\(table))")) ?? []
    require(names == columns, "columns \(columns) created as \(names)")
    return true
}

/// Values bound by interpolation are stored as the encoder converts them, and found again by a
/// `WHERE` that interpolates the same value.
private func checkValues(_ conn: Connection, table: String, columns: [String], _ input: inout FuzzInput) {
    for _ in 0...input.choice(4) {
        let key = anyValue(&input)
        let value = anyValue(&input)
        let encoder = conn.recordContext.values
        guard let expectedKey = try? encoder.encode(key, codingPath: []),
            let expectedValue = try? encoder.encode(value, codingPath: [])
        else {
            // A value the encoder refuses (NaN, a UInt64 above Int64.max, …) must make the statement throw.
            let inserted: Void? = try? conn.execute("INSERT INTO \(identifier: table) VALUES (\(key), \(value))")
            require(inserted == nil, "a value the encoder refuses was inserted")
            continue
        }
        do {
            try conn.execute("DELETE FROM \(identifier: table)")
            try conn.execute("INSERT INTO \(identifier: table) VALUES (\(key), \(value))")
        } catch {
            require(false, "inserting \(expectedKey), \(expectedValue) into \(table.debugDescription) failed: \(error)")
        }
        let rows = (try? conn.rows("SELECT * FROM \(identifier: table)")) ?? []
        let stored: [SQLiteValue] =
            rows.first.map { row in (0..<row.count).map { (try? row[$0] as SQLiteValue) ?? .text("unreadable") } } ?? []
        require(
            rows.count == 1 && stored == [expectedKey, expectedValue],
            "stored \(stored), bound \(expectedKey), \(expectedValue) from \(type(of: key)), \(type(of: value))")
        if expectedKey != .null {
            let found = try? conn.fetchOne(
                Int.self, sql: "SELECT count(*) FROM \(identifier: table) WHERE \(identifier: columns[0]) IS \(key)")
            require(found == 1, "WHERE … IS \(expectedKey) found \(String(describing: found)) rows")
            checkList(conn, table: table, column: columns[0], key, expectedKey, long: input.choice(8) == 0)
        }
    }
}

/// `\(list:)` holding the stored key finds its row, `NOT IN` does not; a long list (bound as one JSON
/// array) finds the same row, or throws for a BLOB or text with a NUL, which it cannot carry.
private func checkList<T: Encodable & Sendable>(
    _ conn: Connection, table: String, column: String, _ key: T, _ expected: SQLiteValue, long: Bool
) {
    let list = Array(repeating: key, count: long ? SQL.listParameterLimit + 1 : 2)
    var tooBig = false
    func count(_ sql: SQL) -> Int? {
        do {
            return try conn.fetchOne(Int.self, sql: sql)
        } catch let error as SQLiteError where error.code == .tooBig {
            tooBig = true
            return nil
        } catch {
            return nil
        }
    }
    let found = count("SELECT count(*) FROM \(identifier: table) WHERE \(identifier: column) IN \(list: list)")
    let others = count("SELECT count(*) FROM \(identifier: table) WHERE \(identifier: column) NOT IN \(list: list)")
    var representable = true
    if long {
        switch expected {
        case .blob: representable = false
        case .text(let text): representable = !text.utf8.contains(0)
        default: break
        }
    }
    if long && tooBig {
        // A long list is bound as one JSON array, which must fit in SQLite's length limit (set to
        // 1,000,000 bytes by `harden`): over it, both statements throw `.tooBig`, never a wrong count.
        require(found == nil && others == nil, "a long list over the length limit did not throw for both")
    } else if representable {
        require(found == 1 && others == 0, "IN \(list.count) × \(expected) found \(String(describing: found)) rows")
    } else {
        require(found == nil && others == nil, "a long list of \(expected) did not throw")
    }
}

/// Raw text and random arguments: anything may be thrown, nothing may crash.
private func runRaw(_ conn: Connection, table: String, column: String, _ input: inout FuzzInput) {
    for _ in 0...input.choice(4) {
        let raw = input.string()
        let values = (0..<input.choice(4)).map { _ in anyValue(&input) }
        switch input.choice(7) {
        case 0:
            try? conn.execute(SQL(text: raw, values: values))
        case 1:
            _ = try? conn.rows(SQL(text: raw, values: values))
        case 2:
            try? conn.execute(script: raw)
        case 3:
            let value = anyValue(&input)
            _ = try? conn.fetchAll(
                SQLiteValue.self,
                sql: "SELECT \(raw: raw) FROM \(identifier: table) WHERE \(identifier: column) = \(value)")
        case 4:
            let fragment: SQL = "SELECT \(identifier: column), \(anyValue(&input))"
            _ = try? conn.rows(fragment + " FROM \(identifier: table) " + SQL(text: raw, values: values))
        case 5:
            let names = Dictionary(values.indices.map { ("\(input.string())", SQLiteValue.integer(Int64($0))) }) {
                a, _ in a
            }
            try? conn.execute(raw, arguments: names)
        default:
            if let cursor = try? conn.fetchCursor(SQLiteValue.self, sql: SQL(text: raw, values: values)) {
                var count = 0
                while count < 1000, (try? cursor.next()) != nil {
                    count += 1
                }
            }
        }
    }
}
