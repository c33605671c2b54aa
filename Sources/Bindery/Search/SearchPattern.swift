import Foundation

/// An FTS5 full-text query, safe to build from whatever a user typed into a search box.
///
/// The text is cut into terms (runs of letters, digits, marks and non-ASCII symbols such as emoji;
/// spaces, punctuation, ASCII symbols and control characters, NUL included, separate them), and each term becomes an FTS5
/// string: wrapped in double quotes, its own quotes doubled. Words such as `AND`, `OR`, `NOT` or
/// `NEAR`, and characters such as `*`, `:`, `-`, `^` or `(`, are thus searched as text and never read
/// as FTS5 syntax, so a built pattern never makes FTS5 report a syntax error. Bind the pattern as a
/// parameter (`\(pattern)` in ``SQL`` does so), never splice it into SQL text.
///
/// ```swift
/// if let pattern = SearchPattern.all("swift \"sqlite") {
///     // pattern.rawPattern == #""swift" "sqlite""#
///     let rows = try conn.rows("SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?",
///                              arguments: [pattern.sqliteValue])
/// }
/// ```
///
/// The builders return nil when the text holds no term (an empty or blank string, or punctuation
/// only): decide what an empty search box shows (everything, or nothing) before you query.
public struct SearchPattern: Sendable, Hashable, CustomStringConvertible {
    /// The FTS5 query text, as it is bound to `MATCH`.
    public let rawPattern: String

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
    /// holds no term.
    public static func all(_ text: String) -> SearchPattern? {
        build(text) { $0.map(quoted).joined(separator: " ") }
    }

    /// Matches rows that hold at least one term of `text`; nil when `text` holds no term.
    public static func any(_ text: String) -> SearchPattern? {
        build(text) { $0.map(quoted).joined(separator: " OR ") }
    }

    /// Matches rows that hold the terms of `text` next to each other, in that order; nil when `text`
    /// holds no term.
    public static func phrase(_ text: String) -> SearchPattern? {
        build(text) { quoted($0.joined(separator: " ")) }
    }

    /// Matches rows that hold, for every term of `text`, a word that starts with it: what a search
    /// field that filters as the user types needs ("swi sq" finds "Swift and SQLite"); nil when `text`
    /// holds no term.
    public static func prefix(_ text: String) -> SearchPattern? {
        build(text) { $0.map { quoted($0) + " *" }.joined(separator: " ") }
    }

    /// The terms a builder searches for in `text`, in order: runs of letters, digits, marks and
    /// non-ASCII symbols, split at spaces, punctuation, ASCII symbols and control characters.
    ///
    /// ```swift
    /// SearchPattern.terms(in: "  (café) NEAR-by: 😀 ") // ["café", "NEAR", "by", "😀"]
    /// ```
    public static func terms(in text: String) -> [String] {
        var terms: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            if isTermScalar(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                terms.append(current)
                current = ""
            }
        }
        if !current.isEmpty { terms.append(current) }
        return terms
    }

    /// The raw pattern.
    public var description: String { rawPattern }

    private static func build(_ text: String, _ compose: ([String]) -> String) -> SearchPattern? {
        let terms = terms(in: text)
        if terms.isEmpty { return nil }
        return SearchPattern(raw: compose(terms))
    }

    /// An FTS5 string: double quotes around the term, each quote in it doubled.
    private static func quoted(_ term: String) -> String {
        "\"" + term.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private static func isTermScalar(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII symbols (`^`, `+`, `$`, `|`...) separate terms, as FTS5's tokenizers treat them.
        if scalar.isASCII { return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .nonspacingMark, .spacingMark, .enclosingMark,
            .decimalNumber, .letterNumber, .otherNumber,
            .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
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
