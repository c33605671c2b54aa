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

    /// `text` upper-cased as a keyword (``asciiUppercased(_:)``), or nil when it holds a byte that is not
    /// ASCII: no keyword does, and a `String` comparison would hold `CHEC\u{212A}` (the Kelvin sign) equal
    /// to `CHECK`, where SQLite reads a name.
    static func asciiKeyword(_ text: some StringProtocol) -> String? {
        text.utf8.allSatisfy({ $0 < 0x80 }) ? asciiUppercased(text) : nil
    }

    /// The affinity SQLite gives a column of declared type `type` (sqlite.org/datatype3.html, 3.1),
    /// found as SQLite finds it: in the bytes, ASCII letters of either case. (`String.contains` would
    /// compare characters, and miss `CHAR` in `varchar` followed by a combining accent.)
    static func affinity(ofDeclaredType type: String) -> DeclaredAffinity {
        let upper = Array(asciiUppercased(type).utf8)
        func has(_ word: String) -> Bool {
            let bytes = Array(word.utf8)
            guard upper.count >= bytes.count else { return false }
            return (0...(upper.count - bytes.count)).contains { start in
                bytes.indices.allSatisfy { upper[start + $0] == bytes[$0] }
            }
        }
        if has("INT") { return .integer }
        if has("CHAR") || has("CLOB") || has("TEXT") { return .text }
        if upper.isEmpty || has("BLOB") { return .blob }
        if has("REAL") || has("FLOA") || has("DOUB") { return .real }
        return .numeric
    }

    /// Whether `lhs` and `rhs` name the same thing to SQLite.
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { fold($0) == fold($1) }
    }
}

/// A column's affinity, from its declared type (``FoldedIdentifier/affinity(ofDeclaredType:)``).
enum DeclaredAffinity {
    case integer, text, blob, real, numeric
}
