/// Finds whether SQL text calls an aggregate function of its own query: one of SQLite's built-in
/// aggregates (`count`, `sum`, `min` with one argument …) called outside a subquery and without
/// `OVER` (a window function, which does not group rows).
enum SQLAggregateScan {
    /// SQLite's aggregate functions, and those of its common extensions, lowercased.
    static let aggregates: Set<String> = [
        "avg", "count", "group_concat", "string_agg", "max", "min", "sum", "total", "json_group_array",
        "jsonb_group_array", "json_group_object", "jsonb_group_object", "median", "percentile", "percentile_cont",
        "percentile_disc", "mode", "stddev", "variance",
    ]

    /// Whether `sql` (a selection) calls an aggregate function of its own query.
    static func callsAggregate(_ sql: SQL) -> Bool {
        let text = sql.text
        let tokens = SQLTokenizer.tokens(of: text)
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            if token.kind == .symbol(UInt8(ascii: "(")), index + 1 < tokens.count, tokens[index + 1].kind == .word,
                ["select", "with", "values"].contains(SQLTokenizer.text(text, tokens[index + 1].range).lowercased())
            {
                // A subquery: its aggregates are its own.
                index = closing(tokens, from: index) + 1
                continue
            }
            if token.kind == .word, index + 1 < tokens.count, tokens[index + 1].kind == .symbol(UInt8(ascii: "(")),
                aggregates.contains(SQLTokenizer.text(text, token.range).lowercased())
            {
                let name = SQLTokenizer.text(text, token.range).lowercased()
                let close = closing(tokens, from: index + 1)
                var isAggregate = true
                if name == "min" || name == "max" {
                    // With several arguments, min and max are scalar functions.
                    isAggregate = topLevelCommas(tokens, from: index + 1, to: close) == 0
                }
                var next = close + 1
                if next + 1 < tokens.count, tokens[next].kind == .word,
                    SQLTokenizer.text(text, tokens[next].range).lowercased() == "filter"
                {
                    next = closing(tokens, from: next + 1) + 1
                }
                if next < tokens.count, tokens[next].kind == .word,
                    SQLTokenizer.text(text, tokens[next].range).lowercased() == "over"
                {
                    isAggregate = false
                }
                if isAggregate { return true }
            }
            index += 1
        }
        return false
    }

    /// The index of the `)` that closes the `(` at `open` (the last token when none does).
    private static func closing(_ tokens: [SQLTokenizer.Token], from open: Int) -> Int {
        var depth = 0
        var index = open
        while index < tokens.count {
            if tokens[index].kind == .symbol(UInt8(ascii: "(")) { depth += 1 }
            if tokens[index].kind == .symbol(UInt8(ascii: ")")) {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return tokens.count - 1
    }

    /// The commas between `open` and `close` outside nested parentheses.
    private static func topLevelCommas(_ tokens: [SQLTokenizer.Token], from open: Int, to close: Int) -> Int {
        var depth = 0
        var commas = 0
        for token in tokens[open...close] {
            switch token.kind {
            case .symbol(UInt8(ascii: "(")): depth += 1
            case .symbol(UInt8(ascii: ")")): depth -= 1
            case .symbol(UInt8(ascii: ",")) where depth == 1: commas += 1
            default: break
            }
        }
        return commas
    }
}
