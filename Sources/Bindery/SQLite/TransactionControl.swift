/// What one statement does to the transaction, read from its first words: `execute(script:)` reads it
/// for each statement run inside a ``Connection/transaction(_:_:)`` scope, before the statement runs.
///
/// Only the leading keywords are read (after white space and comments), as SQLite's grammar puts
/// them: `BEGIN`, `COMMIT`/`END`, `ROLLBACK [TRANSACTION] [TO [SAVEPOINT] name]`, `SAVEPOINT name`
/// and `RELEASE [SAVEPOINT] name`. A name may be quoted in any of SQLite's ways; it is kept folded to
/// ASCII lower case, as SQLite compares savepoint names.
enum TransactionControl: Equatable {
    /// Any statement that is not transaction control.
    case none
    /// `BEGIN`.
    case begin
    /// `COMMIT` or `END`: ends the transaction, committing it.
    case commit
    /// `ROLLBACK` without `TO`: ends the transaction, rolling it back.
    case rollback
    /// `ROLLBACK TO name`: undoes the work since the savepoint, which stays open.
    case rollbackTo(String)
    /// `SAVEPOINT name`.
    case savepoint(String)
    /// `RELEASE name`: releases the savepoint and every one opened after it.
    case release(String)

    /// Reads the statement whose UTF-8 text is `sql`.
    init(sql: some Collection<UInt8>) {
        var lexer = Lexer(bytes: Array(sql))
        guard let keyword = lexer.next()?.keyword else {
            self = .none
            return
        }
        switch keyword {
        case "begin":
            self = .begin
        case "commit", "end":
            self = .commit
        case "savepoint":
            self = .savepoint(lexer.next()?.name ?? "")
        case "release":
            var token = lexer.next()
            if token?.keyword == "savepoint" {
                token = lexer.next()
            }
            self = .release(token?.name ?? "")
        case "rollback":
            var token = lexer.next()
            if token?.keyword == "transaction" {
                token = lexer.next()
            }
            guard token?.keyword == "to" else {
                self = .rollback
                return
            }
            token = lexer.next()
            if token?.keyword == "savepoint" {
                token = lexer.next()
            }
            self = .rollbackTo(token?.name ?? "")
        default:
            self = .none
        }
    }

    /// Whether the statement whose UTF-8 text is `sql` changes the schema: it starts with `CREATE`,
    /// `DROP` or `ALTER`.
    static func changesSchema(sql: some Collection<UInt8>) -> Bool {
        var lexer = Lexer(bytes: Array(sql))
        switch lexer.next()?.keyword {
        case "create", "drop", "alter": return true
        default: return false
        }
    }

    /// The offset of the first byte of `sql` that is not white space or inside a comment.
    static func startOfCode(in sql: [UInt8]) -> Int {
        var lexer = Lexer(bytes: sql)
        lexer.skipTrivia()
        return lexer.position
    }

    /// One token of SQL text: its bytes without quotes, and whether it was quoted.
    struct Token {
        var bytes: ArraySlice<UInt8>
        var isQuoted: Bool

        /// The token folded to ASCII lower case, when it is a bare word (a keyword cannot be quoted).
        var keyword: String? {
            isQuoted ? nil : name
        }

        /// The token as a name: unquoted, with doubled quotes made single, folded to ASCII lower case.
        var name: String {
            String(decoding: bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
        }
    }

    /// Splits SQL text into the tokens the leading keywords need.
    struct Lexer {
        let bytes: [UInt8]
        var position = 0

        /// Moves past white space, `-- …` and `/* … */` comments.
        mutating func skipTrivia() {
            while position < bytes.count {
                let byte = bytes[position]
                if byte == 0x20 || (0x09...0x0D).contains(byte) {
                    position += 1
                } else if byte == UInt8(ascii: "-"), next(is: "-") {
                    while position < bytes.count, bytes[position] != 0x0A { position += 1 }
                } else if byte == UInt8(ascii: "/"), next(is: "*") {
                    position += 2
                    while position < bytes.count, !(bytes[position] == UInt8(ascii: "*") && next(is: "/")) {
                        position += 1
                    }
                    position = min(position + 2, bytes.count)
                } else {
                    return
                }
            }
        }

        private func next(is character: Unicode.Scalar) -> Bool {
            position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: character)
        }

        /// The next token: a word, a quoted name (`"…"`, `` `…` ``, `'…'`, `[…]`) or one other byte.
        mutating func next() -> Token? {
            skipTrivia()
            guard position < bytes.count else { return nil }
            let first = bytes[position]
            switch first {
            case UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "'"):
                return quoted(closing: first, doubles: true)
            case UInt8(ascii: "["):
                return quoted(closing: UInt8(ascii: "]"), doubles: false)
            default:
                let start = position
                while position < bytes.count, Lexer.isWordByte(bytes[position]) { position += 1 }
                if position == start { position += 1 }
                return Token(bytes: bytes[start..<position], isQuoted: false)
            }
        }

        private mutating func quoted(closing: UInt8, doubles: Bool) -> Token {
            position += 1
            var name: [UInt8] = []
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if byte == closing {
                    guard doubles, position < bytes.count, bytes[position] == closing else { break }
                    position += 1
                }
                name.append(byte)
            }
            return Token(bytes: name[...], isQuoted: true)
        }

        /// Letters, digits, `_`, `$` and every byte of a non-ASCII character, as SQLite's tokenizer has it.
        private static func isWordByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), 0x80...:
                return true
            default:
                return false
            }
        }
    }
}
