/// Splits SQL text into tokens, enough to find the bound-value placeholders (`?`) outside literals and
/// the parts of a `CREATE TABLE` statement; white space and comments are skipped.
struct SQLTokenizer {
    /// What a token is.
    enum Kind: Equatable {
        /// A keyword or an unquoted name.
        case word
        /// A name in `"…"`, `[…]` or `` `…` ``.
        case quotedName
        /// A string literal `'…'`.
        case string
        /// A blob literal `X'…'`.
        case blob
        /// A numeric literal.
        case number
        /// A `?` placeholder, with an optional number after it, or `:name`, `@name`, `$name`.
        case parameter
        /// Any other character: punctuation and operators, one byte each.
        case symbol(UInt8)
    }

    /// One token: its kind and where it lies in the text's UTF-8 bytes.
    struct Token {
        var kind: Kind
        var range: Range<Int>
    }

    /// The tokens of `text`, in order. An unterminated literal or comment ends at the end of the text.
    static func tokens(of text: String) -> [Token] {
        let bytes = Array(text.utf8)
        var tokens: [Token] = []
        var index = 0
        func isNamePart(_ byte: UInt8) -> Bool {
            byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
                || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
        func skip(past close: UInt8, from start: Int, doubling: Bool) -> Int {
            var position = start
            while position < bytes.count {
                if bytes[position] == close {
                    if doubling, position + 1 < bytes.count, bytes[position + 1] == close {
                        position += 2
                        continue
                    }
                    return position + 1
                }
                position += 1
            }
            return bytes.count
        }
        while index < bytes.count {
            let byte = bytes[index]
            let start = index
            switch byte {
            case 0x20, 0x09...0x0D:
                index += 1
                continue
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                continue
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index < bytes.count,
                    !(bytes[index] == UInt8(ascii: "*") && index + 1 < bytes.count
                        && bytes[index + 1] == UInt8(ascii: "/"))
                {
                    index += 1
                }
                index = Swift.min(index + 2, bytes.count)
                continue
            case UInt8(ascii: "'"):
                index = skip(past: byte, from: index + 1, doubling: true)
                tokens.append(Token(kind: .string, range: start..<index))
            case UInt8(ascii: "\""), UInt8(ascii: "`"):
                index = skip(past: byte, from: index + 1, doubling: true)
                tokens.append(Token(kind: .quotedName, range: start..<index))
            case UInt8(ascii: "["):
                index = skip(past: UInt8(ascii: "]"), from: index + 1, doubling: false)
                tokens.append(Token(kind: .quotedName, range: start..<index))
            case UInt8(ascii: "x"), UInt8(ascii: "X"):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "'") {
                    index = skip(past: UInt8(ascii: "'"), from: index + 2, doubling: false)
                    tokens.append(Token(kind: .blob, range: start..<index))
                } else {
                    while index < bytes.count, isNamePart(bytes[index]) { index += 1 }
                    tokens.append(Token(kind: .word, range: start..<index))
                }
            case UInt8(ascii: "?"):
                index += 1
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
                tokens.append(Token(kind: .parameter, range: start..<index))
            case UInt8(ascii: ":"), UInt8(ascii: "@"):
                index += 1
                while index < bytes.count, isNamePart(bytes[index]) { index += 1 }
                tokens.append(Token(kind: index > start + 1 ? .parameter : .symbol(byte), range: start..<index))
            case 0x30...0x39, UInt8(ascii: "."):
                index += 1
                while index < bytes.count {
                    let next = bytes[index]
                    if isNamePart(next) || next == UInt8(ascii: ".") {
                        index += 1
                    } else if (next == UInt8(ascii: "+") || next == UInt8(ascii: "-")),
                        bytes[index - 1] | 0x20 == UInt8(ascii: "e")
                    {
                        index += 1
                    } else {
                        break
                    }
                }
                let kind: Kind = index == start + 1 && byte == UInt8(ascii: ".") ? .symbol(byte) : .number
                tokens.append(Token(kind: kind, range: start..<index))
            default:
                if isNamePart(byte) {
                    while index < bytes.count, isNamePart(bytes[index]) { index += 1 }
                    tokens.append(Token(kind: .word, range: start..<index))
                } else {
                    index += 1
                    tokens.append(Token(kind: .symbol(byte), range: start..<index))
                }
            }
        }
        return tokens
    }

    /// The text of `range` in the UTF-8 bytes of `text`.
    static func text(_ text: String, _ range: Range<Int>) -> String {
        let utf8 = text.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        let end = utf8.index(start, offsetBy: range.count)
        return String(text[start..<end])
    }

    /// The name a word, quoted-name or string token stands for, as SQLite reads it where a name is
    /// due (`'a b' TEXT` names a column `a b`): quotes removed, doubled quotes undone.
    static func name(_ token: Token, in text: String) -> String {
        let raw = Self.text(text, token.range)
        guard token.kind == .quotedName || token.kind == .string, raw.count >= 2 else { return raw }
        let open = raw.first
        let inner = String(raw.dropFirst().dropLast())
        switch open {
        case "\"": return inner.replacingOccurrences(of: "\"\"", with: "\"")
        case "`": return inner.replacingOccurrences(of: "``", with: "`")
        case "'": return inner.replacingOccurrences(of: "''", with: "'")
        default: return inner
        }
    }
}
