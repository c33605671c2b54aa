import Foundation

/// A column's definition as written (what follows its name in `CREATE TABLE`), cut into its type name
/// and its constraint clauses, each kept as written with its `CONSTRAINT name` and `ON CONFLICT` clause:
/// what ``ColumnChange`` keeps, replaces or drops one kind at a time.
struct ColumnClauses {
    /// What a constraint clause is.
    enum Kind: Hashable {
        case primaryKey, notNull, null, unique, check, defaultValue, collate, references, generated
        /// One SQLite would not have taken (`CONSTRAINT name` before no constraint), kept as it is.
        case other
    }

    /// One constraint clause and its text.
    struct Clause {
        var kind: Kind
        var text: String
    }

    /// The type name as written (`VARCHAR(20)`), empty for none.
    var type: String
    var clauses: [Clause]

    /// The words that begin a constraint, where the type name ends.
    private static let startWords: [String: Kind] = [
        "PRIMARY": .primaryKey, "NOT": .notNull, "NULL": .null, "UNIQUE": .unique, "CHECK": .check,
        "DEFAULT": .defaultValue, "COLLATE": .collate, "REFERENCES": .references, "GENERATED": .generated,
        "AS": .generated,
    ]

    /// Cuts `definition`. Words inside a clause that could begin one (`ON DELETE SET NULL`,
    /// `SET DEFAULT`, `NOT DEFERRABLE`, `DEFAULT NULL`, `GENERATED ALWAYS AS`) stay in their clause.
    init(definition text: String) {
        let tokens = SQLTokenizer.tokens(of: text)
        func word(_ index: Int) -> String? { Self.word(of: tokens, index, in: text) }
        func startsClause(_ index: Int) -> Bool {
            guard let current = word(index) else { return false }
            if current == "CONSTRAINT" { return true }
            guard Self.startWords[current] != nil else { return false }
            let previous = word(index - 1)
            // `CONSTRAINT name` began the clause this word names.
            if previous == "CONSTRAINT" || word(index - 2) == "CONSTRAINT" { return false }
            switch current {
            case "NOT": return word(index + 1) == "NULL"
            case "NULL": return previous != "NOT" && previous != "SET" && previous != "DEFAULT"
            case "DEFAULT": return previous != "SET"
            case "AS": return previous != "ALWAYS"
            default: return true
            }
        }
        // The type name: the words before the first constraint, and its size in parentheses.
        var typeEnd = 0
        while typeEnd < tokens.count, !startsClause(typeEnd) {
            let kind = tokens[typeEnd].kind
            guard kind == .word || kind == .string || kind == .quotedName else { break }
            typeEnd += 1
        }
        if typeEnd > 0, typeEnd < tokens.count, tokens[typeEnd].kind == .symbol(UInt8(ascii: "(")) {
            while typeEnd < tokens.count, tokens[typeEnd].kind != .symbol(UInt8(ascii: ")")) {
                typeEnd += 1
            }
            typeEnd = Swift.min(typeEnd + 1, tokens.count)
        }
        type = typeEnd > 0 ? SQLTokenizer.text(text, 0..<tokens[typeEnd - 1].range.upperBound) : ""
        // The clauses: each from a word that starts one, outside parentheses, to the next.
        var starts: [Int] = []
        var depth = 0
        for index in tokens.indices.dropFirst(typeEnd) {
            switch tokens[index].kind {
            case .symbol(UInt8(ascii: "(")): depth += 1
            case .symbol(UInt8(ascii: ")")): depth -= 1
            default: if depth == 0, startsClause(index) { starts.append(index) }
            }
        }
        clauses = starts.indices.map { position in
            let first = starts[position]
            // To the clause's last token: a line comment after it would swallow the clauses after it.
            let last = (position + 1 < starts.count ? starts[position + 1] : tokens.count) - 1
            let end = tokens[last].range.upperBound
            var kindWord = first
            if word(first) == "CONSTRAINT" {
                kindWord = first + 2
            }
            let clauseText = SQLTokenizer.text(text, tokens[first].range.lowerBound..<end)
            return Clause(
                kind: word(kindWord).flatMap { Self.startWords[$0] } ?? .other,
                text: clauseText.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// The upper-cased word at `index`, nil for any other token and for a word that is not ASCII (no
    /// keyword).
    private static func word(of tokens: [SQLTokenizer.Token], _ index: Int, in text: String) -> String? {
        guard tokens.indices.contains(index), tokens[index].kind == .word else { return nil }
        return FoldedIdentifier.asciiKeyword(SQLTokenizer.text(text, tokens[index].range))
    }

    /// The definition: the type name, then the clauses in order.
    var definition: String {
        ([type] + clauses.map(\.text)).filter { !$0.isEmpty }.joined(separator: " ")
    }
}
