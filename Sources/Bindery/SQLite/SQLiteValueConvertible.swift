import Foundation

/// A Swift type that a ``Row`` column can be read as, and that can be bound as an argument.
///
/// Conversions are exact: an INTEGER is read as `Double` (every value up to 2⁵³ exactly), a REAL
/// with a whole value as an integer type, but TEXT is never parsed as a number and a value that does
/// not fit throws ``SQLiteError`` with code ``SQLiteError/Code/mismatch``.
public protocol SQLiteValueConvertible {
    /// The value as SQLite stores it.
    var sqliteValue: SQLiteValue { get }

    /// Converts a stored value, throwing a ``SQLiteError/Code/mismatch`` error that names `column`
    /// when it does not fit.
    static func decode(from value: SQLiteValue, column: String) throws -> Self
}

extension SQLiteValueConvertible {
    /// The error for a value that does not fit: it names the column, the SQL type and the Swift type.
    static func mismatch(_ value: SQLiteValue, column: String) -> SQLiteError {
        // The value itself stays out of the message: it may be private, or a large blob.
        return SQLiteError(
            code: .mismatch,
            message: "column '\(column)' holds \(value.typeName.uppercased()), which cannot be read as \(Self.self)")
    }
}

extension SQLiteValue: SQLiteValueConvertible {
    /// The value itself.
    public var sqliteValue: SQLiteValue { self }

    /// The value itself; never throws.
    public static func decode(from value: SQLiteValue, column: String) throws -> SQLiteValue { value }
}

extension Int64: SQLiteValueConvertible {
    /// An INTEGER.
    public var sqliteValue: SQLiteValue { .integer(self) }

    /// From an INTEGER, or a REAL with a whole value in range.
    public static func decode(from value: SQLiteValue, column: String) throws -> Int64 {
        switch value {
        case .integer(let int): return int
        case .real(let double):
            if let exact = Int64(exactly: double) { return exact }
        default: break
        }
        throw mismatch(value, column: column)
    }
}

extension Int: SQLiteValueConvertible {
    /// An INTEGER.
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }

    /// From an INTEGER in range, or a REAL with a whole value in range.
    public static func decode(from value: SQLiteValue, column: String) throws -> Int {
        guard let int = Int(exactly: try Int64.decode(from: value, column: column)) else {
            throw mismatch(value, column: column)
        }
        return int
    }
}

extension Double: SQLiteValueConvertible {
    /// A REAL.
    public var sqliteValue: SQLiteValue { .real(self) }

    /// From a REAL or an INTEGER.
    public static func decode(from value: SQLiteValue, column: String) throws -> Double {
        switch value {
        case .real(let double): return double
        case .integer(let int): return Double(int)
        default: throw mismatch(value, column: column)
        }
    }
}

extension Bool: SQLiteValueConvertible {
    /// The INTEGER 1 or 0.
    public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }

    /// From the INTEGER 0 or 1; any other value throws.
    public static func decode(from value: SQLiteValue, column: String) throws -> Bool {
        switch value {
        case .integer(0): return false
        case .integer(1): return true
        default: throw mismatch(value, column: column)
        }
    }
}

extension String: SQLiteValueConvertible {
    /// TEXT.
    public var sqliteValue: SQLiteValue { .text(self) }

    /// From TEXT only.
    public static func decode(from value: SQLiteValue, column: String) throws -> String {
        guard case .text(let text) = value else { throw mismatch(value, column: column) }
        return text
    }
}

extension Data: SQLiteValueConvertible {
    /// A BLOB.
    public var sqliteValue: SQLiteValue { .blob(self) }

    /// From a BLOB only.
    public static func decode(from value: SQLiteValue, column: String) throws -> Data {
        guard case .blob(let data) = value else { throw mismatch(value, column: column) }
        return data
    }
}

extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
    /// NULL for nil, else the wrapped value's.
    public var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }

    /// nil from NULL, else the wrapped type's conversion (which may throw).
    public static func decode(from value: SQLiteValue, column: String) throws -> Wrapped? {
        if case .null = value { return nil }
        return try Wrapped.decode(from: value, column: column)
    }
}
