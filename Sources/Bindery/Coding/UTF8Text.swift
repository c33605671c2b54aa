#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// TEXT read from SQLite as a `String`, refused when its bytes are not valid UTF-8.
enum UTF8Text {
    /// `bytes` as a `String`, or nil when they are not valid UTF-8.
    ///
    /// `String(decoding:as:)` validates the bytes as it copies them and puts U+FFFD in place of each
    /// invalid sequence, so the string holds exactly the bytes given if and only if they were valid:
    /// one `memcmp` of the copy tells. `String(validating:as:)` says the same, but on this toolchain
    /// it takes twice the time of the copy itself (a 14-column Northwind decode went from 1.26× to 1.57×
    /// the C loop with it); the comparison adds about 5%.
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
}
