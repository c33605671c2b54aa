// libFuzzer target: the date parser `SQLiteDate.date(fromUTF8:)` on any bytes, with properties:
// - a date it parses formats back (`SQLiteDate.string(from:)`) to text that parses to the same date;
// - SQLite's own `julianday()` accepts every text it parses, and agrees to the millisecond;
// - it accepts every text `julianday()` accepts, except the forms it leaves out on purpose
//   (a number, which SQLite reads as a Julian day; `now`; a negative year; a day its month does not
//   have, such as 2024-02-30, which SQLite rolls over into the next month and SQLiteDate refuses).

import CSQLite
import Foundation

/// SQLite's date functions, the reference. Used by one thread: libFuzzer calls the target serially.
nonisolated(unsafe) private let reference = try? Connection.inMemory()

/// The harness (run through `fuzzOneInput` in FuzzEntry.swift): one input is the text to parse.
public func sqliteDateFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: size > 0 ? data : nil, count: size > 0 ? size : 0)
    let parsed = SQLiteDate.date(fromUTF8: bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    let parsedText = SQLiteDate.date(from: text)
    if text.utf8.elementsEqual(bytes) {
        require(parsed == parsedText, "date(fromUTF8:) and date(from:) disagree on \(text.debugDescription)")
    }

    if let parsed {
        // Round trip through the storage format, when the year is one it can hold.
        if let formatted = SQLiteDate.string(from: parsed) {
            let again = SQLiteDate.date(from: formatted)
            require(again == parsed, "\(text.debugDescription) → \(formatted) → \(String(describing: again))")
        }
    }

    guard let reference, !text.utf8.contains(0) else { return 0 }
    let julian = try? reference.fetchOne(Double?.self, sql: "SELECT julianday(\(text))") ?? nil
    if let parsed {
        guard let julian else {
            require(false, "\(text.debugDescription) parsed as \(parsed), but SQLite's julianday() refuses it")
            return 0
        }
        let difference = abs(SQLiteDate.julianDay(from: parsed) - julian) * 86_400_000
        require(difference < 1.5, "\(text.debugDescription): \(parsed) but julianday() says \(julian)")
    } else if let julian {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let leftOut =
            trimmed.lowercased() == "now" || trimmed.hasPrefix("-") || isNumberAsSQLiteReadsIt(text)
            || rollsOverItsDay(trimmed)
        require(leftOut, "SQLite reads \(text.debugDescription) as Julian day \(julian), SQLiteDate refuses it")
    }
    return 0
}

/// Whether the date at the start of `text` (`YYYY-MM-DD`) names a day its month does not have, which
/// SQLite rolls over into another date. Counted here, in the proleptic Gregorian calendar, and not by
/// asking SQLite's `date(julianday(…))`: for years before about 1600 SQLite's `date()` prints some days
/// one off (`date(julianday('0300-03-01'))` is `0300-02-29`, a day year 300 does not have).
private func rollsOverItsDay(_ text: String) -> Bool {
    let digits = Array(text.utf8.prefix(10))
    guard digits.count == 10, digits[4] == UInt8(ascii: "-"), digits[7] == UInt8(ascii: "-") else { return false }
    func number(_ range: Range<Int>) -> Int? {
        var value = 0
        for byte in digits[range] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), (1...12).contains(month)
    else { return false }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return day > lengths[month - 1]
}

/// Whether SQLite reads `text` as a number (a Julian day): then `julianday(text)` equals `julianday`
/// of the text cast to REAL. SQLite accepts numbers Swift's `Double(_:)` does not, such as `1.`.
private func isNumberAsSQLiteReadsIt(_ text: String) -> Bool {
    let same = try? reference?.fetchOne(Int.self, sql: "SELECT julianday(\(text)) = julianday(CAST(\(text) AS REAL))")
    return same == 1
}
