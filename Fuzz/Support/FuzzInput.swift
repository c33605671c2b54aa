// Shared by every fuzz harness: reading typed values out of libFuzzer's bytes, hardening connections
// against statements that would run for ever or allocate without bound, and failing loudly.

import CSQLite
import Foundation

/// Reads values from the fuzzer's bytes; once they run out, every read returns zeros.
struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = UnsafeBufferPointer(start: size > 0 ? data : nil, count: size > 0 ? size : 0)
    }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func bool() -> Bool {
        byte() & 1 == 1
    }

    /// 0 ..< `count`.
    mutating func choice(_ count: Int) -> Int {
        Int(byte()) % max(count, 1)
    }

    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) {
            value |= UInt64(byte()) << UInt64(shift)
        }
        return value
    }

    /// An integer: often one of the edges of the integer widths, otherwise any 64 bits.
    mutating func int64() -> Int64 {
        let edges: [Int64] = [
            0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 32_767, 32_768, -32_768, -32_769, 65_535, 65_536,
            2_147_483_647, 2_147_483_648, -2_147_483_648, -2_147_483_649, 4_294_967_295, 4_294_967_296,
            .max, .min, .max - 1, .min + 1, 1_700_000_000, 1_700_000_000_123, 253_402_300_799,
        ]
        let pick = byte()
        if Int(pick) < edges.count * 2 {
            return edges[Int(pick) % edges.count]
        }
        return Int64(bitPattern: uint64())
    }

    /// A double: often an edge (infinities, NaN, -0, integers at the edge of exactness), otherwise
    /// any 64 bits.
    mutating func double() -> Double {
        let edges: [Double] = [
            0, -0.0, 1, -1, 0.5, 1.5, 2.5, .infinity, -.infinity, .nan, .greatestFiniteMagnitude,
            .leastNonzeroMagnitude, 9_007_199_254_740_992, 9_007_199_254_740_994, 9.223372036854775807e18,
            -9.223372036854775808e18, 1e300, 3.4028235e38, 3.5e38, 1_700_000_000.123_456, 2_460_000.5,
        ]
        let pick = byte()
        if Int(pick) < edges.count * 2 {
            return edges[Int(pick) % edges.count]
        }
        return Double(bitPattern: uint64())
    }

    /// Up to `limit` raw bytes, their count read first.
    mutating func rawBytes(limit: Int = 255) -> [UInt8] {
        let count = min(Int(byte()), limit, bytes.count - min(position, bytes.count))
        let slice = Array(bytes[position..<(position + count)])
        position += count
        return slice
    }

    /// Text: often one of a few hostile or meaningful strings, otherwise the next bytes as UTF-8
    /// (invalid sequences repaired).
    mutating func string() -> String {
        let pick = byte()
        if Int(pick) < FuzzInput.texts.count * 2 {
            return FuzzInput.texts[Int(pick) % FuzzInput.texts.count]
        }
        return String(decoding: rawBytes(), as: UTF8.self)
    }

    static let texts: [String] = [
        "", " ", "a", "A", "id", "\"", "\"\"", "'", "''", ";", "--", "/*", "*/", "\0", "a\0b", "?", "?1", ":a",
        "@a", "$a", "%", "_", "sqlite_master", "sqlite_x", "main", "temp", "ROWID", "select", "NULL",
        "Robert'); DROP TABLE t;--", "x\" ; DROP TABLE t; --", "é", "😀", "\u{202E}", "\u{FEFF}",
        "2024-02-29 12:30:00.123", "2024-02-29T12:30:00Z", "2024-02-29 12:30:00.1234+05:30", "12:30",
        "24:00:00", "2024-13-01", "0000-01-01", "9999-12-31 23:59:59.999", "1970-01-01",
        "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        "https://example.com/a?b=c#d", "not a url", "1.5", "-0", "42", " 42", "0x10", "1e400",
        "9223372036854775808", "-9223372036854775809", "true", "false", "red", "green", "1", "2",
        "null", "[]", "{}", "[1,2,3]", "[1,null,3]", "[[1],[null,2]]", "{\"a\":1.5,\"b\":2}", "[\"a\",\"b\"]",
        "{\"x\":1,\"y\":\"s\",\"z\":[1.5]}", "{\"x\":1,\"y\":null,\"z\":[]}", "[{\"x\":1,\"z\":[]}]",
        "\"\\ud800\"", "{\"x\":1,\"y\":\"\\ud800\",\"z\":[]}", "[\"\\udc00\\ud800\"]", "{\"x\":1e999,\"z\":[]}",
        "[\"red\",\"blue\"]", "[\"red\",\"mauve\"]", "{\"x\":9223372036854775808,\"z\":[]}",
        String(repeating: "[", count: 600), String(repeating: "{\"a\":", count: 300),
    ]

    /// One SQLite value of any storage class.
    mutating func value() -> SQLiteValue {
        switch choice(5) {
        case 0: return .null
        case 1: return .integer(int64())
        case 2: return .real(double())
        case 3: return .text(string())
        default: return .blob(Data(rawBytes()))
        }
    }
}

/// Prints `message` and aborts, so that libFuzzer records the input, when `condition` is false.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        FileHandle.standardError.write(Data("property violated: \(message())\n".utf8))
        abort()
    }
}

/// Keeps a fuzzed statement from running for ever (a recursive CTE), allocating without bound
/// (`zeroblob(1e9)`) or touching files (`ATTACH`, `VACUUM INTO`).
func harden(_ conn: Connection) {
    sqlite3_limit(conn.handle, SQLITE_LIMIT_LENGTH, 1_000_000)
    sqlite3_limit(conn.handle, SQLITE_LIMIT_SQL_LENGTH, 100_000)
    sqlite3_limit(conn.handle, SQLITE_LIMIT_ATTACHED, 0)
    sqlite3_progress_handler(conn.handle, 1_000_000, { _ in 1 }, nil)
}
