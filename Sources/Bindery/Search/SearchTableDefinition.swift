/// What a stored `CREATE VIRTUAL TABLE … USING fts5(…)` statement says: the columns the search table
/// indexes and the table it reads them from (FTS5's `content` option; nil for a search table that
/// holds its own content, an empty name for a contentless one).
struct SearchTableDefinition {
    var name: String
    var columns: [String]
    var content: String?

    /// Reads `sql`; nil when it is not an FTS5 table this can read.
    init?(name: String, sql: String) {
        let tokens = SQLTokenizer.tokens(of: sql)
        func word(_ index: Int) -> String? {
            guard index < tokens.count, tokens[index].kind == .word else { return nil }
            return FoldedIdentifier.asciiKeyword(SQLTokenizer.text(sql, tokens[index].range))
        }
        guard let using = tokens.indices.first(where: { word($0) == "USING" }), word(using + 1) == "FTS5",
            using + 2 < tokens.count, tokens[using + 2].kind == .symbol(UInt8(ascii: "("))
        else { return nil }
        var arguments: [[SQLTokenizer.Token]] = [[]]
        var depth = 0
        scan: for token in tokens[(using + 3)...] {
            switch token.kind {
            case .symbol(UInt8(ascii: "(")): depth += 1
            case .symbol(UInt8(ascii: ")")) where depth == 0: break scan
            case .symbol(UInt8(ascii: ")")): depth -= 1
            case .symbol(UInt8(ascii: ",")) where depth == 0:
                arguments.append([])
                continue scan
            default: break
            }
            arguments[arguments.count - 1].append(token)
        }
        self.name = name
        columns = []
        content = nil
        for argument in arguments where !argument.isEmpty {
            if argument.count >= 3, argument[1].kind == .symbol(UInt8(ascii: "=")) {
                guard FoldedIdentifier.same(SQLTokenizer.name(argument[0], in: sql), "content") else {
                    continue
                }
                content = Self.value(argument[2], in: sql)
            } else if argument[0].kind == .word || argument[0].kind == .quotedName || argument[0].kind == .string {
                columns.append(Self.value(argument[0], in: sql))
            }
        }
    }

    /// A name or a string literal's text.
    private static func value(_ token: SQLTokenizer.Token, in sql: String) -> String {
        guard token.kind == .string else { return SQLTokenizer.name(token, in: sql) }
        let raw = SQLTokenizer.text(sql, token.range)
        return String(raw.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
    }
}
