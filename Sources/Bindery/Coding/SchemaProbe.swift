import Foundation

/// Reads the columns of a `Decodable` type by decoding one placeholder value of it: each key the
/// type asks for is a column, its SQL type comes from the Swift type asked, and it is NOT NULL unless
/// the type used `decodeIfPresent` (an optional property).
///
/// A type whose `init(from:)` rejects placeholder values (zero, "", the first case of a
/// `CaseIterable` enum) cannot be probed; ``columns(of:options:)`` then throws
/// ``SchemaProbe/Failure`` saying so.
final class SchemaProbe {
    /// One column of a probed type.
    struct Column: Equatable {
        /// The column name, after the key strategy.
        var name: String
        /// The SQL type name: INTEGER, REAL, TEXT, BLOB, or "" for no declared type.
        var type: String
        /// Whether the property is not optional.
        var notNull: Bool
    }

    /// The error when a type cannot be probed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let options: CodingOptions
    private(set) var columns: [Column] = []

    init(options: CodingOptions) {
        self.options = options
    }

    /// The columns of `T`, in the order its `init(from:)` reads them.
    static func columns<T: Decodable>(of type: T.Type, options: CodingOptions) throws -> [Column] {
        let probe = SchemaProbe(options: options)
        do {
            _ = try T(from: SchemaProbeDecoder(probe: probe))
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(
                description:
                    "cannot read the columns of \(T.self): its init(from:) rejected a placeholder value (\(error)). "
                    + "Create its table with SQL instead, e.g. conn.execute(script: \"CREATE TABLE …\")")
        }
        guard !probe.columns.isEmpty else {
            throw Failure(
                description:
                    "cannot read the columns of \(T.self): it decodes no keyed properties. Create its table with SQL")
        }
        return probe.columns
    }

    private var nullableKeys: Set<String> = []

    /// Records a column (the first time its key is seen).
    func record(key: any CodingKey, type: String, notNull: Bool) {
        let name = options.columnName(forKey: key.stringValue)
        guard !columns.contains(where: { $0.name == name }) else { return }
        columns.append(Column(name: name, type: type, notNull: notNull && !nullableKeys.contains(key.stringValue)))
    }

    /// Notes that the type asked whether `key` is NULL: its column is nullable.
    func markNullable(_ key: any CodingKey) {
        nullableKeys.insert(key.stringValue)
    }

    /// The SQL type that stores a `Date` under the date strategy.
    var dateType: String {
        switch options.dateStrategy {
        case .sqliteText: return "TEXT"
        case .unixSeconds, .julianDay: return "REAL"
        case .unixSecondsInteger, .unixMilliseconds: return "INTEGER"
        case .custom: return ""
        }
    }

    /// A placeholder value of `T` and the SQL type that stores it.
    func placeholder<T: Decodable>(_ type: T.Type, key: any CodingKey) throws -> (value: T, sqlType: String) {
        func cast<V>(_ value: V, _ sqlType: String) throws -> (T, String) {
            guard let typed = value as? T else { throw Failure(description: "internal: placeholder for \(T.self)") }
            return (typed, sqlType)
        }
        if T.self == Date.self { return try cast(Date(timeIntervalSince1970: 0), dateType) }
        if T.self == UUID.self {
            return try cast(
                UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                options.uuidStrategy == .blob ? "BLOB" : "TEXT")
        }
        if T.self == Data.self { return try cast(Data(), "BLOB") }
        if T.self == URL.self { return try cast(URL(fileURLWithPath: "/"), "TEXT") }
        if T.self == Decimal.self { return try cast(Decimal(0), "TEXT") }
        if T.self == String.self { return try cast("", "TEXT") }
        if T.self == Double.self { return try cast(0.0, "REAL") }
        if T.self == Float.self { return try cast(Float(0), "REAL") }
        if T.self == Bool.self { return try cast(false, "INTEGER") }
        let column = SchemaColumnProbe(probe: self, key: key)
        do {
            let value = try T(from: column)
            return (value, column.sqlType)
        } catch {
            if let first = SchemaProbe.firstCase(of: T.self) {
                return (first, column.sqlType)
            }
            throw Failure(
                description:
                    "cannot read the column \"\(options.columnName(forKey: key.stringValue))\": \(T.self) rejected "
                    + "a placeholder value (\(error)). Make \(T.self) CaseIterable, or create the table with SQL")
        }
    }

    /// The first case of a `CaseIterable` type, as a placeholder.
    static func firstCase<T>(of type: T.Type) -> T? {
        func first<C: CaseIterable>(_ type: C.Type) -> Any? { C.allCases.first }
        guard let iterable = T.self as? any CaseIterable.Type else { return nil }
        return first(iterable) as? T
    }
}
