/// Text as a key told apart by its bytes, as SQLite tells SQL texts, names and literals apart: equal
/// when the UTF-8 bytes are, never by Swift's canonical equivalence, which holds "café" composed and
/// decomposed (or "K" and the Kelvin sign U+212A) equal. Hashed as the `String`, which two texts
/// with the same bytes share.
struct ExactText: Hashable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    /// Whether `lhs` and `rhs` hold the same bytes.
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count && lhs.utf8.elementsEqual(rhs.utf8)
    }

    /// Whether `other` holds the bytes of `known`, whose being ASCII is known (``isASCII(_:)``), at
    /// little more than the cost of `==`: Swift's `==` holds canonically equal texts equal, and an
    /// ASCII text is only canonically equal to texts of as many bytes when they are the same bytes (a
    /// non-ASCII code point that stands for an ASCII character, as the Kelvin sign U+212A stands for
    /// "K", takes two bytes or more; a decomposition into several code points holds a non-ASCII
    /// combining mark). So an ASCII text needs its byte count compared, and any other its bytes.
    static func same(_ known: String, knownIsASCII: Bool, _ other: String) -> Bool {
        guard known == other else { return false }
        return knownIsASCII ? known.utf8.count == other.utf8.count : same(known, other)
    }

    /// Whether every byte of `text` is ASCII.
    static func isASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 }
    }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        same(lhs.text, rhs.text)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }
}
