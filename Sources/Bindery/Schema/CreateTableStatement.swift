import Foundation

/// A `CREATE TABLE` statement as SQLite keeps it in `sqlite_schema`, cut into its column definitions
/// and table constraints (each kept as written), and the options after the parentheses.
struct CreateTableStatement {
    /// A column: its name, and its definition after the name, as written.
    struct Column {
        var name: String
        var definition: String
    }

    /// A table constraint as written, with its name when it has `CONSTRAINT name`.
    struct Constraint {
        var name: String?
        var text: String
    }

    var columns: [Column]
    var constraints: [Constraint]
    /// What follows the closing parenthesis: `WITHOUT ROWID`, `STRICT`, or nothing.
    var options: String

    /// Reads `sql`; throws ``SchemaChangeError/unreadableSchema(table:reason:)`` for anything but a
    /// `CREATE TABLE … (…)` statement (such as `CREATE TABLE … AS SELECT`, whose table SQLite keeps
    /// with columns written out anyway, or a virtual table).
    init(sql: String, table: String) throws {
        let tokens = SQLTokenizer.tokens(of: sql)
        guard let open = tokens.firstIndex(where: { $0.kind == .symbol(UInt8(ascii: "(")) }),
            tokens[..<open].contains(where: {
                FoldedIdentifier.same(SQLTokenizer.text(sql, $0.range), "TABLE")
            }),
            !tokens[..<open].contains(where: {
                FoldedIdentifier.same(SQLTokenizer.text(sql, $0.range), "VIRTUAL")
            })
        else {
            throw SchemaChangeError.unreadableSchema(table: table, reason: "it is not a plain CREATE TABLE statement")
        }
        var depth = 0
        var parts: [[SQLTokenizer.Token]] = [[]]
        var close: Int?
        for index in tokens.indices.dropFirst(open + 1) {
            let token = tokens[index]
            switch token.kind {
            case .symbol(UInt8(ascii: "(")):
                depth += 1
            case .symbol(UInt8(ascii: ")")):
                if depth == 0 {
                    close = index
                }
                depth -= 1
            case .symbol(UInt8(ascii: ",")) where depth == 0:
                parts.append([])
                continue
            default:
                break
            }
            if close != nil { break }
            parts[parts.count - 1].append(token)
        }
        guard let close else {
            throw SchemaChangeError.unreadableSchema(table: table, reason: "its column list is not closed")
        }
        let constraintWords: Set<String> = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]
        var columns: [Column] = []
        var constraints: [Constraint] = []
        for part in parts {
            guard let first = part.first, let last = part.last else {
                throw SchemaChangeError.unreadableSchema(table: table, reason: "it has an empty definition")
            }
            let whole = SQLTokenizer.text(sql, first.range.lowerBound..<last.range.upperBound)
            let word = FoldedIdentifier.asciiKeyword(SQLTokenizer.text(sql, first.range))
            if first.kind == .word, let word, constraintWords.contains(word) {
                var name: String?
                if word == "CONSTRAINT", part.count > 1 {
                    name = SQLTokenizer.name(part[1], in: sql)
                }
                constraints.append(Constraint(name: name, text: whole))
            } else if !constraints.isEmpty {
                throw SchemaChangeError.unreadableSchema(table: table, reason: "a column follows a table constraint")
            } else {
                let definition = SQLTokenizer.text(sql, first.range.upperBound..<last.range.upperBound)
                columns.append(
                    Column(
                        name: SQLTokenizer.name(first, in: sql),
                        definition: definition.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
        self.columns = columns
        self.constraints = constraints
        let end = tokens[close].range.upperBound
        self.options = SQLTokenizer.text(sql, end..<sql.utf8.count).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the table has rowids (no `WITHOUT ROWID`).
    var hasRowID: Bool {
        let words = SQLTokenizer.tokens(of: options).filter { $0.kind == .word }
            .map { FoldedIdentifier.asciiUppercased(SQLTokenizer.text(options, $0.range)) }
        return !zip(words, words.dropFirst()).contains { $0 == "WITHOUT" && $1 == "ROWID" }
    }

    /// The statement that creates a table of this definition named `name`.
    func sql(named name: String) -> String {
        let definitions =
            columns.map { column in
                SQL.quote(identifier: column.name) + (column.definition.isEmpty ? "" : " " + column.definition)
            } + constraints.map(\.text)
        return "CREATE TABLE \(SQL.quote(identifier: name)) (\n    "
            + definitions.joined(separator: ",\n    ") + "\n)" + (options.isEmpty ? "" : " " + options)
    }
}
