/// A UNIQUE constraint or index of a table as the search triggers see it: how to tell whether a row
/// of the table conflicts with the row a write is about to store (`new`), so that the triggers can
/// note the rows an `INSERT OR REPLACE` or `UPDATE OR REPLACE` will delete.
///
/// A key part is a column or, for an index on expressions, an expression; a partial index holds only
/// the rows its `WHERE` clause holds for, and two rows conflict through it only when both are held.
/// An expression or a `WHERE` clause is evaluated for `new` over a one-row table that holds `new`'s
/// values under the table's column names and the table's own name, so that the index's text runs
/// unchanged: `(SELECT lower(email) FROM (SELECT new."email" AS "email", …) AS "users")`.
struct SearchUniqueKey {
    /// One part of the key: its value for a row of the table and for `new`, and the collation the
    /// index compares with.
    struct Part {
        var row: String
        var new: String
        var collation: String
    }

    var parts: [Part]
    /// For a partial index, the condition a row of the table and `new` must both meet.
    var condition: String?

    /// The condition a row of the table (read unqualified, as in `SELECT … FROM table WHERE …`) meets
    /// when it conflicts with `new` through this key.
    var conflict: String {
        var terms = parts.map { "(\($0.row)) COLLATE \(SQL.quote(identifier: $0.collation)) = (\($0.new))" }
        if let condition {
            terms.append(condition)
        }
        return "(" + terms.joined(separator: " AND ") + ")"
    }
}

/// The parts of a `CREATE [UNIQUE] INDEX … ON table (part, …) [WHERE condition]` statement's text.
struct IndexDefinition {
    /// Each indexed part's text, without its `ASC`/`DESC` and `COLLATE` (the collation is read from
    /// `pragma_index_xinfo`).
    var parts: [String]
    /// The text after `WHERE`, if any.
    var condition: String?

    /// Reads `sql`; nil when it is not a `CREATE INDEX` statement this can read.
    init?(sql: String) {
        let tokens = SQLTokenizer.tokens(of: sql)
        func isWord(_ index: Int, _ word: String) -> Bool {
            index < tokens.count && tokens[index].kind == .word
                && FoldedIdentifier.same(SQLTokenizer.text(sql, tokens[index].range), word)
        }
        // `ON` is a keyword: the first one outside a quoted name precedes the table's name.
        guard let on = tokens.indices.first(where: { isWord($0, "ON") }), on + 2 < tokens.count,
            tokens[on + 2].kind == .symbol(UInt8(ascii: "("))
        else { return nil }
        var parts: [String] = []
        var depth = 0
        var partStart = on + 3
        var index = on + 3
        var close: Int?
        func part(_ range: Range<Int>) -> String? {
            var end = range.upperBound
            if end > range.lowerBound, isWord(end - 1, "ASC") || isWord(end - 1, "DESC") { end -= 1 }
            if end - 2 > range.lowerBound, isWord(end - 2, "COLLATE") { end -= 2 }
            guard end > range.lowerBound else { return nil }
            return SQLTokenizer.text(sql, tokens[range.lowerBound].range.lowerBound..<tokens[end - 1].range.upperBound)
        }
        while index < tokens.count, close == nil {
            switch tokens[index].kind {
            case .symbol(UInt8(ascii: "(")): depth += 1
            case .symbol(UInt8(ascii: ")")) where depth > 0: depth -= 1
            case .symbol(UInt8(ascii: ")")):
                guard let text = part(partStart..<index) else { return nil }
                parts.append(text)
                close = index
            case .symbol(UInt8(ascii: ",")) where depth == 0:
                guard let text = part(partStart..<index) else { return nil }
                parts.append(text)
                partStart = index + 1
            default: break
            }
            index += 1
        }
        guard let close else { return nil }
        self.parts = parts
        if isWord(close + 1, "WHERE"), close + 2 < tokens.count {
            let start = tokens[close + 2].range.lowerBound
            let text = SQLTokenizer.text(sql, start..<sql.utf8.count)
            condition = text.hasSuffix(";") ? String(text.dropLast()) : text
        } else if close + 1 < tokens.count {
            return nil
        } else {
            condition = nil
        }
    }
}
