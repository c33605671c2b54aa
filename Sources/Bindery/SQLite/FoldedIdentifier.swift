/// A name as SQLite compares identifiers (`sqlite3_stricmp`): its UTF-8 bytes, with the ASCII letters
/// A–Z folded to a–z and every other byte kept. "ID" and "id" fold alike; "É" and "é" do not, nor do
/// the composed and decomposed forms of "é", which SQLite also holds for different names.
///
/// Made once per name looked up (per statement or per type), never per row.
struct FoldedIdentifier: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ name: String) {
        bytes = name.utf8.map(FoldedIdentifier.fold)
    }

    /// `byte` with an ASCII capital letter made small.
    @inline(__always)
    static func fold(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// `text` with its ASCII small letters made capital and every other byte kept: a keyword or a
    /// declared type as SQLite reads it (`sqlite3StrICmp` folds ASCII only), where `uppercased()` would
    /// also map `ı` (U+0131) to `I` and `ﬂ` (U+FB02) to `FL`, making `ınteger` read `INTEGER`.
    static func asciiUppercased(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 & 0xDF : $0 }, as: UTF8.self)
    }

    /// `text` with its ASCII capital letters made small and every other byte kept (see
    /// ``asciiUppercased(_:)``).
    static func asciiLowercased(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map(fold), as: UTF8.self)
    }

    /// Whether `lhs` and `rhs` name the same thing to SQLite.
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { fold($0) == fold($1) }
    }
}
