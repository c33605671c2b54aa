import CSQLite
import Foundation

/// The keyed container of ``RowDecoder``: each key reads the column of that name.
struct RowKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    // The container holds no reference that needs counting: the standard library's container box
    // copies it on every call with a plain memory copy. It reaches its decoder (which owns the tag
    // table and the row's values) only while its stamp is current (see RowGenerations.Held): a
    // container kept past its row throws, and touches neither the decoder nor its memory.
    private let held: RowGenerations.Held<RowDecoder>
    /// The row's values, for the fast paths that read a column straight from SQLite.
    private let values: ColumnValues.Shared
    /// Columns by key tag, when `Key` is a plain enum (see ``KeyTagTable``); nil otherwise.
    private let tags: KeyTagTable.Entries?
    var codingPath: [any CodingKey] { [] }

    init(decoder: RowDecoder, tags: KeyTagTable?, generation: RowGenerations.Stamp) {
        self.held = RowGenerations.Held(decoder, stamp: generation)
        self.values = decoder.values
        self.tags = tags?.entries
    }

    /// Whether the container may read: it was not kept past its row.
    @inline(__always)
    private var isValid: Bool { held.isCurrent }

    /// Throws when the container was kept past its row.
    @inline(__always)
    private func checkValid(_ key: Key) throws {
        guard isValid else { throw RowDecoder.expired("a keyed decoding container", codingPath: [key]) }
    }

    /// The decoder, for everything but the fast paths; a container kept past its row throws.
    @inline(__always)
    private var decoder: RowDecoder {
        get throws {
            guard let decoder = held.object else { throw RowDecoder.expired("a keyed decoding container") }
            return decoder
        }
    }

    /// The column that `key` reads; negative when the row has none or several (see
    /// ``RowDecoder/column(for:)``). A container kept past its row throws.
    @inline(__always)
    private func lookUp(_ key: Key) throws -> Int32 {
        try checkValid(key)
        guard let tags else {
            return try decoder.column(for: key.stringValue)
        }
        let tag = KeyTagTable.tag(of: key)
        let known = tags[tag]
        if known != KeyTagTable.unknown {
            return known
        }
        let column = try decoder.column(for: key.stringValue)
        tags[tag] = column
        return column
    }

    /// The value of `key`'s column when the column exists: an unprotected `sqlite3_value`, valid
    /// until the statement steps.
    @inline(__always)
    private func value(_ key: Key) throws -> (column: Int32, value: OpaquePointer?) {
        let column = try lookUp(key)
        return (column, column >= 0 ? values.value(column) : nil)
    }

    /// The value of `key`'s column on the fast path, or nil: the container is valid, `Key` has a tag
    /// table that knows the key's column (a single one: a missing or shared column is negative), and
    /// the row's first value is known. Nil is never an answer, only a detour: the caller then reads the
    /// key through ``value(_:)``, which looks the key up and makes every check.
    @inline(__always)
    private func knownValue(_ key: Key) -> OpaquePointer? {
        guard let tags, isValid else { return nil }
        return values.knownValue(tags[KeyTagTable.tag(of: key)])
    }

    /// An INTEGER column that fits in `T`, or nil for anything else (which the slow path explains).
    @inline(__always)
    private func fastInteger<T: FixedWidthInteger>(_ type: T.Type, _ value: OpaquePointer?) -> T? {
        guard let value, sqlite3_value_type(value) == SQLITE_INTEGER else { return nil }
        return T(exactly: sqlite3_value_int64(value))
    }

    // Each decode below tries the fast path first: a known value of the expected SQL type. Any other
    // case (first key of a row, a key not met yet, another SQL type, a container kept past its row …)
    // reads the key as if there were no fast path. Both paths are inlined into the protocol witness
    // (one call less per field); the slow path calls no method of the container out of line.

    @inline(__always)
    private func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        if let value = knownValue(key), let integer = fastInteger(T.self, value) {
            return integer
        }
        let column = try self.column(key)
        // The decoder is alive: the look-up checked the container.
        return try decoder.integerSlowly(T.self, column)
    }

    /// The general path, without the fast path first, for `Int64` and `UInt64`: on 64-bit platforms
    /// their fast path would be the same code as `Int`'s and `UInt`'s, which the compiler then merges
    /// into one function taking the type as a parameter, a slower call for all of them.
    @inline(__always)
    private func decodeIntegerGenerally<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        let (column, value) = try value(key)
        if let integer = fastInteger(T.self, value) {
            return integer
        }
        return try decoder.integer(T.self, column >= 0 ? column : self.column(key))
    }

    @inline(__always)
    private func decodeIntegerIfPresentGenerally<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T? {
        let (column, value) = try value(key)
        guard let value, sqlite3_value_type(value) != SQLITE_NULL else {
            // No column (or several): the record's own column is absent, which nil would hide.
            if column < 0 { throw try decoder.unresolved(key, column: column) }
            return nil
        }
        if let integer = fastInteger(T.self, value) {
            return integer
        }
        return try decoder.integer(T.self, column)
    }

    @inline(__always)
    private func decodeIntegerIfPresent<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T? {
        if let value = knownValue(key) {
            // A known column is a single one: NULL is nil, as on the slow path.
            let type = sqlite3_value_type(value)
            if type == SQLITE_INTEGER, let integer = T(exactly: sqlite3_value_int64(value)) {
                return integer
            }
            if type == SQLITE_NULL {
                return nil
            }
        }
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.integerSlowly(T.self, column)
    }

    @inline(__always)
    private func fastString(_ value: OpaquePointer?, _ column: Int32) throws -> String? {
        guard let value, sqlite3_value_type(value) == SQLITE_TEXT else { return nil }
        switch UTF8Text.string(of: value) {
        case .value(let string): return string
        case .noBytes:
            return try Statement.emptyOrNoMemory(
                "", try decoder.handle, column: column, byteCount: sqlite3_value_bytes(value))
        case .unreadable: throw try decoder.invalidText(column: column)
        }
    }

    /// TEXT with its bytes at hand, or nil for anything else, TEXT that is not valid UTF-8 included
    /// (which the slow path explains).
    @inline(__always)
    private func knownString(_ value: OpaquePointer) -> String? {
        guard sqlite3_value_type(value) == SQLITE_TEXT, case .value(let string) = UTF8Text.string(of: value) else {
            return nil
        }
        return string
    }

    @inline(__always)
    private func fastDouble(_ value: OpaquePointer?) -> Double? {
        guard let value else { return nil }
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT: return sqlite3_value_double(value)
        case SQLITE_INTEGER: return Double(sqlite3_value_int64(value))
        default: return nil
        }
    }

    /// The keys whose string value names a column of the row; none once the row is gone.
    var allKeys: [Key] {
        guard let decoder = held.object else { return [] }
        return decoder.columnNames.compactMap { Key(stringValue: $0) }
    }

    /// True for a key that several columns share too: reading it then throws, rather than pick one.
    /// False once the row is gone (reading the key then throws).
    func contains(_ key: Key) -> Bool {
        guard let column = try? lookUp(key) else { return false }
        return column != RowDecoder.missingColumn
    }

    /// The column of `key`, which must exist.
    @inline(__always)
    private func column(_ key: Key) throws -> Int32 {
        let column = try lookUp(key)
        if column < 0 {
            throw try decoder.unresolved(key, column: column)
        }
        return column
    }

    /// The column of `key` when it exists and is not NULL; a key that several columns share throws.
    @inline(__always)
    private func presentColumn(_ key: Key) throws -> Int32? {
        let (column, value) = try value(key)
        guard let value, sqlite3_value_type(value) != SQLITE_NULL else {
            if column < 0 { throw try decoder.unresolved(key, column: column) }
            return nil
        }
        return column
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try decoder.isNull(column(key))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(column(key)) }
    @inline(__always)
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        if let value = knownValue(key), let string = knownString(value) {
            return string
        }
        return try decodeStringSlowly(key)
    }
    @inline(__always)
    private func decodeStringSlowly(_ key: Key) throws -> String {
        let (column, value) = try value(key)
        if let string = try fastString(value, column) {
            return string
        }
        return try decoder.string(column >= 0 ? column : self.column(key))
    }
    @inline(__always)
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        if let double = fastDouble(knownValue(key)) {
            return double
        }
        return try decodeDoubleSlowly(key)
    }
    @inline(__always)
    private func decodeDoubleSlowly(_ key: Key) throws -> Double {
        let (column, value) = try value(key)
        if let double = fastDouble(value) {
            return double
        }
        return try decoder.double(column >= 0 ? column : self.column(key), as: Double.self)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.float(column(key)) }
    @inline(__always)
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeInteger(Int.self, key) }
    @inline(__always)
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeInteger(Int8.self, key) }
    @inline(__always)
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeInteger(Int16.self, key) }
    @inline(__always)
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeInteger(Int32.self, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeIntegerGenerally(Int64.self, key) }
    @inline(__always)
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeInteger(UInt.self, key) }
    @inline(__always)
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeInteger(UInt8.self, key) }
    @inline(__always)
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeInteger(UInt16.self, key) }
    @inline(__always)
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeInteger(UInt32.self, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try decodeIntegerGenerally(UInt64.self, key)
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let column = try lookUp(key)
        guard column >= 0 else {
            // No column of that name: a nested value of a joined row, or an error naming the key.
            return try decoder.decodeScoped(T.self, key: key, column: column)
        }
        return try decoder.decodeValue(T.self, column: column)
    }

    // decodeIfPresent: one column look-up, nil for a missing column or NULL.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.bool(column)
    }
    @inline(__always)
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        if let value = knownValue(key) {
            if let string = knownString(value) {
                return string
            }
            if sqlite3_value_type(value) == SQLITE_NULL {
                return nil
            }
        }
        return try decodeStringIfPresentSlowly(key)
    }
    @inline(__always)
    private func decodeStringIfPresentSlowly(_ key: Key) throws -> String? {
        let (column, value) = try value(key)
        guard let value, sqlite3_value_type(value) != SQLITE_NULL else {
            // No column (or several): the record's own column is absent, which nil would hide.
            if column < 0 { throw try decoder.unresolved(key, column: column) }
            return nil
        }
        if let string = try fastString(value, column) {
            return string
        }
        return try decoder.string(column)
    }
    @inline(__always)
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        if let value = knownValue(key) {
            if let double = fastDouble(value) {
                return double
            }
            if sqlite3_value_type(value) == SQLITE_NULL {
                return nil
            }
        }
        return try decodeDoubleIfPresentSlowly(key)
    }
    @inline(__always)
    private func decodeDoubleIfPresentSlowly(_ key: Key) throws -> Double? {
        let (column, value) = try value(key)
        guard let value, sqlite3_value_type(value) != SQLITE_NULL else {
            // No column (or several): the record's own column is absent, which nil would hide.
            if column < 0 { throw try decoder.unresolved(key, column: column) }
            return nil
        }
        if let double = fastDouble(value) {
            return double
        }
        return try decoder.double(column, as: Double.self)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let column = try presentColumn(key) else { return nil }
        return try decoder.float(column)
    }
    @inline(__always)
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decodeIntegerIfPresent(Int.self, key)
    }
    @inline(__always)
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try decodeIntegerIfPresent(Int8.self, key)
    }
    @inline(__always)
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try decodeIntegerIfPresent(Int16.self, key)
    }
    @inline(__always)
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try decodeIntegerIfPresent(Int32.self, key)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try decodeIntegerIfPresentGenerally(Int64.self, key)
    }
    @inline(__always)
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try decodeIntegerIfPresent(UInt.self, key)
    }
    @inline(__always)
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try decodeIntegerIfPresent(UInt8.self, key)
    }
    @inline(__always)
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try decodeIntegerIfPresent(UInt16.self, key)
    }
    @inline(__always)
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try decodeIntegerIfPresent(UInt32.self, key)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try decodeIntegerIfPresentGenerally(UInt64.self, key)
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        // No Optional.map here: in this unspecialized generic code it would cost a metadata look-up.
        let (column, value) = try value(key)
        guard let value, sqlite3_value_type(value) != SQLITE_NULL else {
            if column == RowDecoder.missingColumn {
                // No column of that name: a nested value of a joined row, or nil as for any missing column.
                return try decoder.decodeScopedIfPresent(T.self, key: key)
            }
            // No column (or several): the record's own column is absent, which nil would hide.
            if column < 0 { throw try decoder.unresolved(key, column: column) }
            return nil
        }
        return try decoder.decodeValue(T.self, column: column)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        throw unsupported("nestedContainer(keyedBy:forKey:)", key)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw unsupported("nestedUnkeyedContainer(forKey:)", key)
    }

    /// The same row: a superclass decodes its properties from further columns.
    func superDecoder() throws -> any Decoder {
        guard let decoder = held.object else { throw RowDecoder.expired("a keyed decoding container") }
        return decoder
    }

    /// A decoder for the one column of `key`, which supports a single-value container.
    func superDecoder(forKey key: Key) throws -> any Decoder {
        let column = try column(key)
        return ColumnDecoder(row: try decoder, column: column)
    }

    private func unsupported(_ what: String, _ key: Key) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: [key],
                debugDescription:
                    "\(what) is not supported when decoding a row: a row is flat. Decode the property "
                    + "\"\(key.stringValue)\" as a Decodable type of its own; it is read from the column's JSON text"))
    }
}
