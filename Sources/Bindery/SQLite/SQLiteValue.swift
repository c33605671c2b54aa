import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// Two values are equal when they are of the same storage class and hold the same value: texts and
/// blobs byte for byte, as SQLite's `BINARY` collation compares them. Two texts that Swift's `String`
/// calls equal but that SQLite stores as different bytes (`"é"` as one code point and as `e` with a
/// combining accent) are two values, as they are two keys of a table.
///
/// ```swift
/// let values: [SQLiteValue] = [nil, 42, 2.5, "text", .blob(Data([1, 2, 3])), true]
/// try conn.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", arguments: values)
/// ```
public enum SQLiteValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes, stored as they are.
    case blob(Data)

    /// The name of the storage class, as SQLite's `typeof()` prints it: "null", "integer", "real",
    /// "text" or "blob".
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }

    /// Whether the value is SQL NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension SQLiteValue: CustomStringConvertible, CustomDebugStringConvertible {
    /// The value as SQL would show it: `NULL`, `42`, `2.5`, `'text'` or `x'0102'`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): return "x'" + value.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }

    /// The same as `description`.
    public var debugDescription: String { description }
}

extension SQLiteValue: ExpressibleByNilLiteral {
    /// `nil` is SQL NULL.
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension SQLiteValue: ExpressibleByIntegerLiteral {
    /// An integer literal is an INTEGER.
    public init(integerLiteral value: Int64) {
        self = .integer(value)
    }
}

extension SQLiteValue: ExpressibleByFloatLiteral {
    /// A floating-point literal is a REAL.
    public init(floatLiteral value: Double) {
        self = .real(value)
    }
}

extension SQLiteValue: ExpressibleByStringLiteral {
    /// A string literal is TEXT.
    public init(stringLiteral value: String) {
        self = .text(value)
    }
}

extension SQLiteValue: ExpressibleByBooleanLiteral {
    /// A Boolean literal is the INTEGER 1 or 0.
    public init(booleanLiteral value: Bool) {
        self = .integer(value ? 1 : 0)
    }
}

extension SQLiteValue: Codable {
    /// Encodes the value itself: NULL as nil, the others as their payload. Bound in ``SQL`` or stored
    /// in a record property, it is stored as it is.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .blob(let value): try container.encode(value)
        }
    }

    /// Decodes NULL, an integer, a double, a string or data, in that order of preference. Read from a
    /// row, the column's own storage class is kept.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .real(value)
        } else if let value = try? container.decode(String.self) {
            self = .text(value)
        } else {
            self = .blob(try container.decode(Data.self))
        }
    }
}

extension SQLiteValue {
    /// Whether the two values are of the same storage class and hold the same value; texts are
    /// compared byte for byte (see the type's documentation), reals as `Double`s (`0.0 == -0.0`).
    public static func == (lhs: SQLiteValue, rhs: SQLiteValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.integer(let left), .integer(let right)): return left == right
        case (.real(let left), .real(let right)): return left == right
        case (.text(let left), .text(let right)): return left.utf8.elementsEqual(right.utf8)
        case (.blob(let left), .blob(let right)): return left == right
        default: return false
        }
    }

    /// Hashes the storage class and the value: a text's bytes, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .integer(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .real(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .text(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(value.utf8.count)
            // Eight bytes at a time: a tenth of the cost of one `combine` a byte.
            var chunk: UInt64 = 0
            var filled: UInt64 = 0
            for byte in value.utf8 {
                chunk |= UInt64(byte) << (filled * 8)
                filled += 1
                if filled == 8 {
                    hasher.combine(chunk)
                    chunk = 0
                    filled = 0
                }
            }
            hasher.combine(chunk)
        case .blob(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        }
    }
}
