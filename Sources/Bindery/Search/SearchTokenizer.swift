/// How an FTS5 search table cuts text into words, and which words it treats as the same.
///
/// ```swift
/// let plain: SearchTokenizer = .unicode61()
/// let hyphenated: SearchTokenizer = .unicode61(tokenCharacters: "-")   // "e-mail" is one word
/// let stemmed: SearchTokenizer = .porter(wrapping: .unicode61(removeDiacritics: false, separators: "/"))
/// ```
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
    /// ``unicode61(removeDiacritics:)`` where each character of `separators` also ends a word and
    /// each character of `tokenCharacters` is also part of one (FTS5's `separators` and `tokenchars`);
    /// ``unicode61(removeDiacritics:separators:tokenCharacters:)`` builds it.
    case unicode61Characters(removeDiacritics: Bool, separators: String, tokenCharacters: String)
    /// ``ascii`` where each character of `separators` also ends a word and each character of
    /// `tokenCharacters` is also part of one (ASCII characters only);
    /// ``ascii(separators:tokenCharacters:)`` builds it.
    case asciiCharacters(separators: String, tokenCharacters: String)
    /// The words of another tokenizer, reduced by the Porter stemmer (English text);
    /// ``porter(wrapping:)`` builds it.
    indirect case porterStemming(SearchTokenizer)

    /// ``unicode61(removeDiacritics:)`` with extra word separators, and characters that are part of
    /// words (the other characters keep their meaning). A character may not be in both.
    ///
    /// ```swift
    /// let tokenizer = SearchTokenizer.unicode61(separators: "x", tokenCharacters: "-")
    /// ```
    public static func unicode61(
        removeDiacritics: Bool = true, separators: String, tokenCharacters: String = ""
    ) -> SearchTokenizer {
        guard !separators.isEmpty || !tokenCharacters.isEmpty else {
            return .unicode61(removeDiacritics: removeDiacritics)
        }
        return .unicode61Characters(
            removeDiacritics: removeDiacritics, separators: separators, tokenCharacters: tokenCharacters)
    }

    /// ``unicode61(removeDiacritics:)`` where each character of `tokenCharacters` is part of a word:
    /// `.unicode61(tokenCharacters: "-")` keeps "e-mail" one word.
    public static func unicode61(removeDiacritics: Bool = true, tokenCharacters: String) -> SearchTokenizer {
        unicode61(removeDiacritics: removeDiacritics, separators: "", tokenCharacters: tokenCharacters)
    }

    /// ``ascii`` with extra word separators, and characters that are part of words; both ASCII only
    /// (the `ascii` tokenizer treats every other character as part of a word).
    public static func ascii(separators: String, tokenCharacters: String = "") -> SearchTokenizer {
        guard !separators.isEmpty || !tokenCharacters.isEmpty else { return .ascii }
        return .asciiCharacters(separators: separators, tokenCharacters: tokenCharacters)
    }

    /// ``ascii`` where each character of `tokenCharacters` (ASCII only) is part of a word.
    public static func ascii(tokenCharacters: String) -> SearchTokenizer {
        ascii(separators: "", tokenCharacters: tokenCharacters)
    }

    /// The words of `base`, reduced by the Porter stemmer, so that "searching" finds "searched":
    /// `.porter(wrapping: .unicode61(removeDiacritics: false))`.
    public static func porter(wrapping base: SearchTokenizer) -> SearchTokenizer {
        if case .unicode61(let removeDiacritics) = base { return .porter(removeDiacritics: removeDiacritics) }
        return .porterStemming(base)
    }

    /// The value of FTS5's `tokenize` option: words, and FTS5 strings (single quotes, doubled inside)
    /// for the characters.
    var option: String {
        switch self {
        case .unicode61(let removeDiacritics): return "unicode61 remove_diacritics \(removeDiacritics ? 2 : 0)"
        case .porter(let removeDiacritics): return "porter unicode61 remove_diacritics \(removeDiacritics ? 2 : 0)"
        case .trigram(let caseSensitive): return "trigram case_sensitive \(caseSensitive ? 1 : 0)"
        case .ascii: return "ascii"
        case .unicode61Characters(let removeDiacritics, let separators, let tokenCharacters):
            return "unicode61 remove_diacritics \(removeDiacritics ? 2 : 0)"
                + Self.characters(separators: separators, tokenCharacters: tokenCharacters)
        case .asciiCharacters(let separators, let tokenCharacters):
            return "ascii" + Self.characters(separators: separators, tokenCharacters: tokenCharacters)
        case .porterStemming(let base): return "porter " + base.option
        }
    }

    /// ` separators '…' tokenchars '…'`, each only when not empty.
    private static func characters(separators: String, tokenCharacters: String) -> String {
        func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        return (separators.isEmpty ? "" : " separators " + quoted(separators))
            + (tokenCharacters.isEmpty ? "" : " tokenchars " + quoted(tokenCharacters))
    }

    /// Throws ``SearchTableError/invalidOption(searchTable:option:reason:)`` for characters FTS5 would
    /// not read as given: a NUL, a character both a separator and a token character, a non-ASCII
    /// character for the `ascii` tokenizer (which ignores it).
    func check(searchTable: String) throws {
        func refuse(_ option: String, _ reason: String) -> SearchTableError {
            .invalidOption(searchTable: searchTable, option: option, reason: reason)
        }
        func check(_ separators: String, _ tokenCharacters: String, asciiOnly: Bool) throws {
            for (option, text) in [("separators", separators), ("tokenchars", tokenCharacters)] {
                if text.unicodeScalars.contains("\u{0}") { throw refuse(option, "it holds a NUL character") }
                if asciiOnly, let scalar = text.unicodeScalars.first(where: { !$0.isASCII }) {
                    throw refuse(
                        option, "the ascii tokenizer reads ASCII characters only, and would ignore \"\(scalar)\"")
                }
            }
            if let scalar = separators.unicodeScalars.first(where: { tokenCharacters.unicodeScalars.contains($0) }) {
                throw refuse("tokenchars", "\"\(scalar)\" is both a separator and a token character")
            }
        }
        switch self {
        case .unicode61, .porter, .trigram, .ascii: return
        case .unicode61Characters(_, let separators, let tokenCharacters):
            try check(separators, tokenCharacters, asciiOnly: false)
        case .asciiCharacters(let separators, let tokenCharacters):
            try check(separators, tokenCharacters, asciiOnly: true)
        case .porterStemming(let base): try base.check(searchTable: searchTable)
        }
    }
}
