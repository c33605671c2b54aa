import Foundation

/// An FTS5 full-text query, safe to build from whatever a user typed into a search box.
///
/// The text is cut into terms: runs of letters, digits, marks and non-ASCII symbols, split at
/// spaces, punctuation, ASCII symbols and control characters (NUL included). A run that holds no
/// letter or digit (emoji, symbols or marks alone) is no term: FTS5's `unicode61`, `porter` and
/// `ascii` tokenizers index letters and digits only, so such a run could never match. Each term
/// becomes an FTS5 string: wrapped in double quotes, its own quotes doubled. Words such as `AND`,
/// `OR`, `NOT` or `NEAR`, and characters such as `*`, `:`, `-`, `^` or `(`, are thus searched as
/// text and never read as FTS5 syntax, so a built pattern never makes FTS5 report a syntax error.
/// Bind the pattern as a parameter (`\(pattern)` in ``SQL`` does so), never splice it into SQL text.
///
/// ```swift
/// if let pattern = SearchPattern.all("swift \"sqlite") {
///     // pattern.rawPattern == #""swift" "sqlite""#
///     let rows = try conn.rows("SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?",
///                              arguments: [pattern.sqliteValue])
/// }
/// ```
///
/// The builders return nil when the text holds no term (an empty or blank string, punctuation or
/// emoji only): decide what an empty search box shows (everything, or nothing) before you query.
///
/// ## Bounds
///
/// FTS5's work grows with the square of a query's terms (a 100 KB paste of 17,000 words ran for
/// minutes), so a pattern built from typed text is bounded, whatever the text:
///
/// - A term repeated is searched once (``all(_:)``, ``any(_:)``, ``prefix(_:)``).
/// - At most ``maximumTermCount`` (32) terms are searched: the first ones. ``all(_:)``,
///   ``prefix(_:)`` and ``phrase(_:)`` then match every row the whole text would have matched, and
///   possibly more; ``any(_:)`` matches the rows that hold one of the first 32 terms.
/// - A term longer than ``maximumTermLength`` (64 Unicode scalars) is searched by its first 64 as a
///   prefix (`"…" *`), which matches the whole word too; in ``phrase(_:)`` the phrase ends there.
///
/// With these bounds, the worst typed text (a 100 KB paste) is searched in the 100,000-document
/// index of `bindery-bench` in under a second, ranked with snippets (`any`, the slowest: 0.86 s; the bench's
/// "full-text: worst typed text" line), and a cancelled search stops within milliseconds.
/// ``init(raw:)`` is used as it is, with no bound.
public struct SearchPattern: Sendable, Hashable, CustomStringConvertible {
    /// The FTS5 query text, as it is bound to `MATCH`.
    public let rawPattern: String

    /// The most terms a pattern built from typed text searches: its first distinct ones.
    public static let maximumTermCount = 32

    /// The most Unicode scalars of a term a pattern built from typed text searches; a longer term is
    /// searched as a prefix of this length.
    public static let maximumTermLength = 64

    /// A pattern written in FTS5's own query syntax, used as it is.
    ///
    /// FTS5 checks it when the query runs, and a syntax error is thrown there as ``SQLiteError``.
    ///
    /// ```swift
    /// let pattern = SearchPattern(raw: "title:swift AND NOT draft*")
    /// ```
    public init(raw: String) {
        rawPattern = raw
    }

    /// Matches rows that hold every term of `text`, in any order and any column; nil when `text`
    /// holds no term. At most ``maximumTermCount`` distinct terms are searched (see Bounds).
    public static func all(_ text: String) -> SearchPattern? {
        build(bounded(terms(in: text), distinct: true).map(searched).joined(separator: " "))
    }

    /// Matches rows that hold at least one term of `text`; nil when `text` holds no term. At most
    /// ``maximumTermCount`` distinct terms are searched (see Bounds).
    public static func any(_ text: String) -> SearchPattern? {
        build(bounded(terms(in: text), distinct: true).map(searched).joined(separator: " OR "))
    }

    /// Matches rows that hold the terms of `text` next to each other, in that order; nil when `text`
    /// holds no term. The phrase holds at most ``maximumTermCount`` terms, and ends with a term cut to
    /// ``maximumTermLength`` (see Bounds).
    public static func phrase(_ text: String) -> SearchPattern? {
        let (words, cut) = phraseTerms(text)
        return build(words.isEmpty ? "" : quoted(words.joined(separator: " ")) + (cut ? " *" : ""))
    }

    /// Matches rows where a column starts with the terms of `text`, next to each other and in that
    /// order (FTS5's initial token query, `^"…"`); with `completingLastTerm`, the last term may be
    /// the start of a longer word, for a field that filters titles as the user types ("swift sq"
    /// finds "Swift SQLite tips", not "Learning Swift SQLite"). Nil when `text` holds no term. The
    /// phrase holds at most ``maximumTermCount`` terms, and ends with a term cut to
    /// ``maximumTermLength`` searched as a prefix (see Bounds).
    ///
    /// ```swift
    /// SearchPattern.phraseAtStart("swift sq", completingLastTerm: true)?.rawPattern  // ^"swift sq" *
    /// ```
    ///
    /// A search table whose ``SearchDetail`` is not ``SearchDetail/full`` cannot run it: FTS5 throws
    /// ``SQLiteError`` when the query runs.
    public static func phraseAtStart(_ text: String, completingLastTerm: Bool = false) -> SearchPattern? {
        let (words, cut) = phraseTerms(text)
        guard !words.isEmpty else { return nil }
        return SearchPattern(raw: "^" + quoted(words.joined(separator: " ")) + (cut || completingLastTerm ? " *" : ""))
    }

    /// The terms of a phrase of `text`, in order and bounded, and whether the last was cut (it ends
    /// the phrase then).
    private static func phraseTerms(_ text: String) -> (words: [String], cut: Bool) {
        var words: [String] = []
        for term in bounded(terms(in: text), distinct: false) {
            words.append(term.text)
            if term.isCut { return (words, true) }
        }
        return (words, false)
    }

    /// Matches rows that hold, for every term of `text`, a word that starts with it: what a search
    /// field that filters as the user types needs ("swi sq" finds "Swift and SQLite"); nil when `text`
    /// holds no term. At most ``maximumTermCount`` distinct terms are searched (see Bounds).
    public static func prefix(_ text: String) -> SearchPattern? {
        build(bounded(terms(in: text), distinct: true).map { quoted($0.text) + " *" }.joined(separator: " "))
    }

    /// The terms of `text`, in order: runs of letters, digits, marks and non-ASCII symbols, split at
    /// spaces, punctuation, ASCII symbols and control characters, that hold at least one letter or
    /// digit. The builders search for the first ``maximumTermCount`` of them (see Bounds).
    ///
    /// ```swift
    /// SearchPattern.terms(in: "  (café) NEAR-by: 😀 x😀 ") // ["café", "NEAR", "by", "x😀"]
    /// ```
    public static func terms(in text: String) -> [String] {
        var terms: [String] = []
        var current = ""
        var hasWordScalar = false
        func end() {
            if hasWordScalar { terms.append(current) }
            current = ""
            hasWordScalar = false
        }
        for scalar in text.unicodeScalars {
            if isTermScalar(scalar) {
                current.unicodeScalars.append(scalar)
                hasWordScalar = hasWordScalar || isWordScalar(scalar)
            } else if !current.isEmpty {
                end()
            }
        }
        end()
        return terms
    }

    /// The raw pattern.
    public var description: String { rawPattern }

    private static func build(_ raw: String) -> SearchPattern? {
        raw.isEmpty ? nil : SearchPattern(raw: raw)
    }

    /// The first ``maximumTermCount`` terms (the first occurrence of each, when `distinct`: the same
    /// bytes, not merely canonically equivalent text), each cut to ``maximumTermLength`` scalars.
    static func bounded(_ terms: [String], distinct: Bool) -> [(text: String, isCut: Bool)] {
        // Compared by their bytes, as FTS5 compares tokens: Swift's `String` equality would make one
        // term of "café" composed and decomposed, two words to a tokenizer that keeps diacritics.
        var seen: Set<[UInt8]> = []
        var result: [(text: String, isCut: Bool)] = []
        for term in terms where result.count < maximumTermCount {
            if distinct, !seen.insert(Array(term.utf8)).inserted { continue }
            let scalars = term.unicodeScalars
            guard scalars.count > maximumTermLength else {
                result.append((term, false))
                continue
            }
            var cut = String.UnicodeScalarView()
            cut.append(contentsOf: scalars.prefix(maximumTermLength))
            result.append((String(cut), true))
        }
        return result
    }

    /// A term as a builder searches it: quoted, and as a prefix when it was cut.
    private static func searched(_ term: (text: String, isCut: Bool)) -> String {
        quoted(term.text) + (term.isCut ? " *" : "")
    }

    /// An FTS5 string: double quotes around the term, each quote in it doubled.
    private static func quoted(_ term: String) -> String {
        "\"" + term.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A letter or a digit, as FTS5's `unicode61` tokenizer reads them (its private-use characters
    /// included): a term must hold one.
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber, .privateUse:
            return true
        default:
            return false
        }
    }

    private static func isTermScalar(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII symbols (`^`, `+`, `$`, `|`...) separate terms, as FTS5's tokenizers treat them.
        if scalar.isASCII { return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark,
            .decimalNumber, .letterNumber, .otherNumber,
            .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol, .privateUse:
            return true
        default:
            // Emoji sequences hold joiners and variation selectors (formats and marks); keep them.
            return scalar == "\u{200D}" || scalar.properties.isVariationSelector
        }
    }
}

extension SearchPattern: Encodable {
    /// Encodes the raw pattern as text, so that `\(pattern)` in ``SQL`` binds it as a parameter.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawPattern)
    }
}

extension SearchPattern: SQLiteValueConvertible {
    /// The raw pattern as TEXT.
    public var sqliteValue: SQLiteValue { .text(rawPattern) }

    /// A raw pattern from TEXT; throws ``SQLiteError/Code/mismatch`` for any other value.
    public static func decode(from value: SQLiteValue, column: String) throws -> SearchPattern {
        guard case .text(let text) = value else { throw mismatch(value, column: column) }
        return SearchPattern(raw: text)
    }
}
