import CSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// TEXT read from SQLite as a `String` (refused when its bytes are not valid UTF-8) or a `Date`: the one
/// reader of a value's or a column's text bytes for the Coding and Queries layers.
///
/// Safety: this file is the only one of those layers that makes a buffer of SQLite's text bytes. Each
/// buffer is made from `sqlite3_value_text` (or `sqlite3_column_text`) and its byte count, asked for
/// in that order as SQLite's documentation requires, and used only within the call that made it: the
/// bytes are valid until the statement steps or resets, or the value is converted, none of which
/// happens meanwhile, and no pointer escapes. The same holds for the buffer a ``Scanner`` reads (the
/// date parser's): it is made for one parse, reads only below the buffer's count, and is dropped with
/// the call; ``SQLiteDate/date(fromUTF8:)``, public, takes a buffer its caller keeps valid. A value's
/// text is also read as a C string (``string(of:)``): SQLite ends it with a NUL byte, so the read stops
/// at or before that byte, which lies within SQLite's buffer; the pointer is rebound from `UInt8` to
/// `CChar`, types of the same size and layout, for that call only.
enum UTF8Text {
    /// What reading TEXT gave.
    enum Read<Value> {
        /// The value read.
        case value(Value)
        /// SQLite gave no bytes: the text is empty, or SQLite ran out of memory (see
        /// ``Statement/emptyOrNoMemory(_:_:column:byteCount:)``).
        case noBytes
        /// The bytes are not valid UTF-8 (for a string) or not a date SQLite's date functions read.
        case unreadable
    }

    /// The TEXT of `value` (a TEXT value) as a `String`.
    @inline(__always)
    static func string(of value: OpaquePointer?) -> Read<String> {
        guard let text = sqlite3_value_text(value) else { return .noBytes }
        let count = Int(sqlite3_value_bytes(value))
        // SQLite ends a value's text with a NUL byte (documented for sqlite3_column_text, and checked
        // for sqlite3_value_text by SQLite's own test misc6), so the standard library's C-string
        // initializer can read it: it validates the bytes up to the first NUL as it copies them, in one
        // pass. It stops early only at a NUL inside the text, which the byte count tells; such text is
        // read again below, whole.
        let terminated = text.withMemoryRebound(to: CChar.self, capacity: count + 1) {
            String(validatingCString: $0)
        }
        guard let terminated else { return .unreadable }
        if terminated.utf8.count == count {
            return .value(terminated)
        }
        guard let string = string(UnsafeBufferPointer(start: text, count: count)) else {
            return .unreadable
        }
        return .value(string)
    }

    /// The TEXT of `value` (a TEXT value) as a date (see ``SQLiteDate/date(fromUTF8:)``).
    static func date(of value: OpaquePointer?) -> Read<Date> {
        guard let text = sqlite3_value_text(value) else { return .noBytes }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
        guard let date = SQLiteDate.date(fromUTF8: bytes) else { return .unreadable }
        return .value(date)
    }

    /// The TEXT of `column` of `statement`'s current row, with U+FFFD in place of each invalid
    /// sequence (for messages and for keys compared as SQLite stored them); "" when SQLite gives no bytes.
    static func lossyString(column: Int32, of statement: OpaquePointer) -> String {
        SQLiteMemory.string(column: column, of: statement) ?? ""
    }

    /// `bytes` as a `String`, or nil when they are not valid UTF-8: for text with a NUL byte inside,
    /// which ``string(of:)``'s C-string read stops at.
    ///
    /// `String(decoding:as:)` validates the bytes as it copies them and puts U+FFFD in place of each
    /// invalid sequence, so the string holds exactly the bytes given if and only if they were valid:
    /// one `memcmp` of the copy tells. (`String(validating:as:)` says the same, but needs macOS 15, and
    /// on this toolchain takes twice the time of the copy itself.)
    ///
    /// Safety: `bytes` must stay valid for the call (a column's text, valid until the statement steps
    /// or resets); the copy is compared while `withUTF8` lends it, and neither pointer escapes.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var string = String(decoding: bytes, as: UTF8.self)
        let same = string.withUTF8 { copy in
            guard copy.count == bytes.count else { return false }
            guard let copied = copy.baseAddress, let given = bytes.baseAddress else { return true }
            return memcmp(copied, given, bytes.count) == 0
        }
        return same ? string : nil
    }

    /// Reads ASCII digits and punctuation from a byte buffer.
    struct Scanner {
        private let bytes: UnsafeBufferPointer<UInt8>
        private var position = 0

        /// A scanner at the start of `bytes`, which must stay valid while it is used.
        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { position >= bytes.count }

        func peek(offset: Int) -> UInt8? {
            position + offset < bytes.count ? bytes[position + offset] : nil
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        /// Takes one byte of white space as SQLite counts it: space, tab, LF, VT, FF or CR.
        mutating func takeSpace() -> Bool {
            guard position < bytes.count, bytes[position] == 32 || (9...13).contains(bytes[position]) else {
                return false
            }
            position += 1
            return true
        }

        mutating func digit() -> Int64? {
            guard position < bytes.count, (48...57).contains(bytes[position]) else { return nil }
            position += 1
            return Int64(bytes[position - 1] - 48)
        }

        mutating func number(digits: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0..<digits {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }
    }
}

extension SQLiteDate {
    /// Parses UTF-8 bytes, such as those `sqlite3_column_text` returns; see ``date(from:)``.
    public static func date(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var scanner = UTF8Text.Scanner(bytes)
        var days: Int64 = 10_957  // 2000-01-01, for a time without a date
        if scanner.peek(offset: 4) == 45 {  // YYYY-
            guard let year = scanner.number(digits: 4), scanner.take(45),
                let month = scanner.number(digits: 2), scanner.take(45),
                let day = scanner.number(digits: 2),
                (1...12).contains(month), day >= 1, day <= daysIn(month: month, of: year)
            else { return nil }
            days = daysFromCivil(year: year, month: month, day: day)
            // As SQLite: any run of white space and `T`s, then a time or the end.
            while scanner.take(84) || scanner.takeSpace() {}
            if scanner.isAtEnd {
                return Date(timeIntervalSince1970: Double(days) * 86_400)
            }
        }
        guard let hour = scanner.number(digits: 2), scanner.take(58), let minute = scanner.number(digits: 2),
            hour <= 24, minute <= 59
        else { return nil }
        // Whole milliseconds, as SQLite keeps them; the division at the end rounds once.
        var milliseconds = (days * 86_400 + hour * 3600 + minute * 60) * 1000
        if scanner.take(58) {
            guard let second = scanner.number(digits: 2), second <= 59 else { return nil }
            milliseconds += second * 1000
            if scanner.take(46) {
                var fraction: Int64 = 0
                var count = 0
                var roundUp = false
                while let digit = scanner.digit() {
                    if count < 3 {
                        fraction = fraction * 10 + digit
                    } else if count == 3 {
                        roundUp = digit >= 5
                    }
                    count += 1
                }
                guard count > 0 else { return nil }
                if count < 3 {
                    for _ in count..<3 {
                        fraction *= 10
                    }
                }
                milliseconds += fraction + (roundUp ? 1 : 0)
            }
        }
        // As SQLite: white space, an optional `Z` or `±HH:MM`, white space, the end.
        while scanner.takeSpace() {}
        if scanner.take(90) || scanner.take(122) {  // Z or z
            // UTC already.
        } else if scanner.peek(offset: 0) == 43 || scanner.peek(offset: 0) == 45 {  // + or -
            let sign: Int64 = scanner.take(43) ? 1 : (scanner.take(45) ? -1 : 0)
            guard let offsetHours = scanner.number(digits: 2), scanner.take(58),
                let offsetMinutes = scanner.number(digits: 2), offsetHours <= 14, offsetMinutes <= 59
            else { return nil }
            milliseconds -= sign * (offsetHours * 3600 + offsetMinutes * 60) * 1000
        }
        while scanner.takeSpace() {}
        guard scanner.isAtEnd else { return nil }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
