/// Reverses the terms of an `ORDER BY`, for ``QueryRequest/reversed()``: `a` becomes `a DESC`,
/// `a DESC` becomes `a ASC`, `a ASC NULLS FIRST` becomes `a DESC NULLS LAST`. An ordering written as
/// ``SQL`` may hold several terms (`"OrderDate DESC, OrderID"`), each reversed. Without `NULLS`, SQLite
/// sorts NULL first ascending and last descending, so the reversed term puts them at the other end
/// too: every term is reversed exactly.
enum OrderingReversal {
    /// The orderings with each term reversed; with none, the primary key's columns of `table`
    /// (quoted) descending.
    static func reversed(_ orderings: [SQL], primaryKey: [String], table: String) throws -> [SQL] {
        guard !orderings.isEmpty else {
            return [
                SQL(text: primaryKey.map { table + "." + SQL.quote(identifier: $0) + " DESC" }.joined(separator: ", "))
            ]
        }
        return try orderings.map(reversed)
    }

    /// One ordering, each of its terms reversed; throws ``RequestError/irreversibleOrdering(ordering:reason:)``
    /// when its text cannot be read term by term.
    static func reversed(_ ordering: SQL) throws -> SQL {
        let plain = ordering.withoutListPadding
        let text = plain.text
        let bytes = Array(text.utf8)
        let tokens = SQLTokenizer.tokens(of: text)
        func refuse(_ reason: String) -> RequestError {
            .irreversibleOrdering(ordering: text, reason: reason)
        }
        // The tokenizer skips comments: text between tokens must be white space only.
        var position = 0
        for token in tokens {
            guard bytes[position..<token.range.lowerBound].allSatisfy(isSpace) else {
                throw refuse("it has a comment")
            }
            position = token.range.upperBound
        }
        guard bytes[position...].allSatisfy(isSpace) else { throw refuse("it has a comment") }
        // The terms: split at the commas outside parentheses.
        var terms: [ArraySlice<SQLTokenizer.Token>] = []
        var depth = 0
        var start = 0
        for (index, token) in tokens.enumerated() {
            switch token.kind {
            case .symbol(UInt8(ascii: "(")): depth += 1
            case .symbol(UInt8(ascii: ")")):
                depth -= 1
                guard depth >= 0 else { throw refuse("its parentheses do not match") }
            case .symbol(UInt8(ascii: ",")) where depth == 0:
                terms.append(tokens[start..<index])
                start = index + 1
            default: break
            }
        }
        guard depth == 0 else { throw refuse("its parentheses do not match") }
        terms.append(tokens[start...])
        var reversedTerms: [String] = []
        for term in terms {
            reversedTerms.append(try reversedTerm(term, text: text, refuse: refuse))
        }
        return plain.replacingText(reversedTerms.joined(separator: ", "))
    }

    /// One term reversed: its expression, then the other direction and the other end for NULLs.
    private static func reversedTerm(
        _ term: ArraySlice<SQLTokenizer.Token>, text: String, refuse: (String) -> RequestError
    ) throws -> String {
        var end = term.endIndex
        func word(at index: Int) -> String? {
            guard index >= term.startIndex, index < end, term[index].kind == .word else { return nil }
            return FoldedIdentifier.asciiUppercased(SQLTokenizer.text(text, term[index].range))
        }
        var nulls: String?
        if let last = word(at: end - 1), last == "FIRST" || last == "LAST", word(at: end - 2) == "NULLS" {
            nulls = last
            end -= 2
        }
        var descending = false
        if let last = word(at: end - 1), last == "ASC" || last == "DESC",
            end - 2 < term.startIndex || term[end - 2].kind != .symbol(UInt8(ascii: "."))
        {
            descending = last == "DESC"
            end -= 1
        }
        guard end > term.startIndex else { throw refuse("a term has no expression") }
        let expression = SQLTokenizer.text(
            text, term[term.startIndex].range.lowerBound..<term[end - 1].range.upperBound)
        var reversed = expression + (descending ? " ASC" : " DESC")
        if let nulls {
            reversed += nulls == "FIRST" ? " NULLS LAST" : " NULLS FIRST"
        }
        return reversed
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
