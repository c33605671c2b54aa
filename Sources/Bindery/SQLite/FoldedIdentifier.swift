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

    /// Whether `lhs` and `rhs` name the same thing to SQLite.
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { fold($0) == fold($1) }
    }
}
