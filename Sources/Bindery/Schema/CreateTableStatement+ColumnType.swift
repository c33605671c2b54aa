import Foundation

/// Changing a column's type and nullability in its definition as written, keeping every other
/// constraint (a key, a foreign key, `UNIQUE`, `CHECK`, `DEFAULT`, `COLLATE`, a generated
/// expression) as it was.
extension CreateTableStatement.Column {
    /// The words that begin a column constraint, where the type name ends.
    private static let constraintWords: Set<String> = [
        "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES",
        "GENERATED", "AS",
    ]

    /// The definition with the type `type` (none when nil) and `NOT NULL` when `notNull`, the
    /// other constraints as written. A `NOT NULL` that goes leaves with its `CONSTRAINT name` and
    /// `ON CONFLICT` clause; one that comes is written right after the type.
    func definition(withType type: String?, notNull: Bool) -> String {
        let text = definition
        let tokens = SQLTokenizer.tokens(of: text)
        func word(_ index: Int) -> String? {
            guard tokens.indices.contains(index), tokens[index].kind == .word else { return nil }
            return SQLTokenizer.text(text, tokens[index].range).uppercased()
        }
        // The type name: the words before the first constraint, and its size in parentheses.
        var constraintsStart = 0
        while constraintsStart < tokens.count {
            let token = tokens[constraintsStart]
            if let word = word(constraintsStart), Self.constraintWords.contains(word) { break }
            guard token.kind == .word || token.kind == .string || token.kind == .quotedName else { break }
            constraintsStart += 1
        }
        if constraintsStart > 0, constraintsStart < tokens.count,
            tokens[constraintsStart].kind == .symbol(UInt8(ascii: "("))
        {
            while constraintsStart < tokens.count, tokens[constraintsStart].kind != .symbol(UInt8(ascii: ")")) {
                constraintsStart += 1
            }
            constraintsStart = Swift.min(constraintsStart + 1, tokens.count)
        }
        // The NOT NULL clauses outside parentheses, with their names and conflict clauses.
        var removed: [Range<Int>] = []
        var hasNotNull = false
        var depth = 0
        var index = constraintsStart
        while index < tokens.count {
            switch tokens[index].kind {
            case .symbol(UInt8(ascii: "(")): depth += 1
            case .symbol(UInt8(ascii: ")")): depth -= 1
            default: break
            }
            guard depth == 0, word(index) == "NOT", word(index + 1) == "NULL" else {
                index += 1
                continue
            }
            hasNotNull = true
            var first = index
            if index - 2 >= constraintsStart, word(index - 2) == "CONSTRAINT" {
                first = index - 2
            }
            var last = index + 1
            if word(last + 1) == "ON", word(last + 2) == "CONFLICT", word(last + 3) != nil {
                last += 3
            }
            removed.append(tokens[first].range.lowerBound..<tokens[last].range.upperBound)
            index = last + 1
        }
        var constraints = ""
        var position = constraintsStart < tokens.count ? tokens[constraintsStart].range.lowerBound : text.utf8.count
        for range in removed where !notNull {
            constraints += SQLTokenizer.text(text, position..<range.lowerBound)
            position = range.upperBound
        }
        constraints += SQLTokenizer.text(text, position..<text.utf8.count)
        var parts: [String] = []
        if let type, !type.isEmpty {
            parts.append(type)
        }
        if notNull, !hasNotNull {
            parts.append("NOT NULL")
        }
        // Spaces left where a clause went stay: text inside literals must not change.
        let rest = constraints.trimmingCharacters(in: .whitespacesAndNewlines)
        if !rest.isEmpty {
            parts.append(rest)
        }
        return parts.joined(separator: " ")
    }
}
