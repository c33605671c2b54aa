/// How an FTS5 search table cuts text into words, and which words it treats as the same.
public enum SearchTokenizer: Sendable, Hashable {
    /// Words of letters and digits in any script, case folded; `removeDiacritics` makes "café" and
    /// "cafe" the same word.
    case unicode61(removeDiacritics: Bool = true)
    /// ``unicode61(removeDiacritics:)`` followed by the Porter stemmer, so that "searching" finds
    /// "searched" (English text).
    case porter(removeDiacritics: Bool = true)
    /// Every run of three characters, so that any substring of three or more characters matches;
    /// case folded unless `caseSensitive`.
    case trigram(caseSensitive: Bool = false)
    /// Words of ASCII letters and digits, ASCII case folded; other characters are kept as they are.
    case ascii

    /// The value of FTS5's `tokenize` option.
    var option: String {
        switch self {
        case .unicode61(let removeDiacritics): return "unicode61 remove_diacritics \(removeDiacritics ? 2 : 0)"
        case .porter(let removeDiacritics): return "porter unicode61 remove_diacritics \(removeDiacritics ? 2 : 0)"
        case .trigram(let caseSensitive): return "trigram case_sensitive \(caseSensitive ? 1 : 0)"
        case .ascii: return "ascii"
        }
    }
}
