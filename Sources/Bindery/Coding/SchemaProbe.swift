import Foundation

/// Reads the columns of a `Decodable` type by decoding one placeholder value of it: each key the
/// type asks for is a column, its SQL type comes from the Swift type asked, and it is NOT NULL unless
/// the type used `decodeIfPresent` (an optional property).
///
/// A property whose type rejects the placeholders (a raw-value enum that has no case "" or 0, a
/// struct whose `init(from:)` validates) has told its storage by then: it read a single value or
/// asked for a container. The probe then tries a second set of placeholders ("x", 1, true), and
/// failing that finds a value of the type another way (``SchemaPlaceholder``, the first case of a
/// `CaseIterable` type, or the all-zero value of a payload-free enum) so that the enclosing type can
/// go on; see ``placeholder(_:path:attempt:)``. A type that is still unreadable throws
/// ``SchemaProbe/Failure`` naming the type and the property.
final class SchemaProbe {
    /// One column of a probed type.
    struct Column: Equatable {
        /// The column name, after the key strategy.
        var name: String
        /// The SQL type name: INTEGER, REAL, TEXT, BLOB, or "" for no declared type.
        var type: String
        /// Whether the property is not optional.
        var notNull: Bool
        /// The property's Swift type (an optional's wrapped type).
        var swiftType: Any.Type = Never.self

        static func == (lhs: Column, rhs: Column) -> Bool {
            ExactText.same(lhs.name, rhs.name) && lhs.type == rhs.type && lhs.notNull == rhs.notNull
                && ObjectIdentifier(lhs.swiftType) == ObjectIdentifier(rhs.swiftType)
        }
    }

    /// The error when a type cannot be probed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// How many sets of placeholders a rejecting type is tried with: zero values, then "x", 1, true.
    static let attempts = 2

    let options: CodingOptions
    private(set) var columns: [Column] = []
    private lazy var values = ValueEncoder(options: options)

    init(options: CodingOptions) {
        self.options = options
    }

    /// The types whose probe is under way on this thread (or task): an `init(from:)` that looks up a
    /// record of its own type while it is probed must not start the same probe again, which would
    /// recurse until the stack overflows.
    @TaskLocal private static var typesUnderProbe: Set<ObjectIdentifier> = []

    /// The columns of `T`, in the order its `init(from:)` reads them. Throws ``Failure`` when `T`'s
    /// `init(from:)` asks for the columns of `T` again while it is probed.
    static func columns<T: Decodable>(of type: T.Type, options: CodingOptions) throws -> [Column] {
        let id = ObjectIdentifier(T.self)
        let underProbe = typesUnderProbe
        guard !underProbe.contains(id) else {
            throw Failure(
                description: "cannot read the columns of \(T.self) while its init(from:) is probed for them")
        }
        return try $typesUnderProbe.withValue(underProbe.union([id])) {
            try probeColumns(of: T.self, options: options)
        }
    }

    private static func probeColumns<T: Decodable>(of type: T.Type, options: CodingOptions) throws -> [Column] {
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

    /// The keys asked whether they are NULL, as ``ExactText``: keys, like columns, are told apart by
    /// their bytes (two keys differing only by Unicode normalization are two columns).
    private var nullableKeys: Set<ExactText> = []

    /// Records a column (the first time its key is seen; names compared by their bytes).
    func record(key: any CodingKey, type: String, notNull: Bool, swiftType: Any.Type) {
        let name = options.columnName(forKey: key.stringValue)
        guard !columns.contains(where: { ExactText.same($0.name, name) }) else { return }
        columns.append(
            Column(
                name: name, type: type, notNull: notNull && !nullableKeys.contains(ExactText(key.stringValue)),
                swiftType: swiftType))
    }

    /// Notes that the type asked whether `key` is NULL: its column is nullable.
    func markNullable(_ key: any CodingKey) {
        nullableKeys.insert(ExactText(key.stringValue))
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

    /// A placeholder value of `T` and the SQL type that stores it. `path` is the property's coding
    /// path from the probed type (its first key names the column); `attempt` picks the set of
    /// placeholders a nested value is answered with.
    func placeholder<T: Decodable>(_ type: T.Type, path: [any CodingKey], attempt: Int = 0) throws
        -> (value: T, sqlType: String)
    {
        if let known = try knownPlaceholder(T.self, attempt: attempt) {
            return known
        }
        let outcome = decodeWithAttempts(T.self, path: path)
        if let value = outcome.value, let sqlType = outcome.sqlType {
            return (value, sqlType)
        }
        if let value = Self.substitute(for: T.self) {
            return (value, try outcome.sqlType ?? storedType(of: value, path: path))
        }
        throw outcome.failure ?? unreadable(T.self, path: path, error: outcome.error)
    }

    /// The SQL type of a nullable column of `T`: the placeholder's, or, when `T` rejects every
    /// placeholder, the type it read before rejecting it (an optional property needs no value).
    func sqlType<T: Decodable>(of type: T.Type, path: [any CodingKey]) throws -> String {
        if T.self is any FixedWidthInteger.Type {
            return "INTEGER"
        }
        if let known = try knownPlaceholder(T.self, attempt: 0) {
            return known.sqlType
        }
        let outcome = decodeWithAttempts(T.self, path: path)
        if let sqlType = outcome.sqlType {
            return sqlType
        }
        if let value = Self.substitute(for: T.self) {
            return try storedType(of: value, path: path)
        }
        throw outcome.failure ?? unreadable(T.self, path: path, error: outcome.error)
    }

    /// What decoding `T` from each set of placeholders gave: a value and its SQL type, or only the
    /// SQL type it read before throwing, and the error.
    private struct Outcome<T> {
        var value: T?
        var sqlType: String?
        var error: (any Error)?
        /// A probe failure from a value nested in `T`, which names its own property.
        var failure: Failure?
    }

    private func decodeWithAttempts<T: Decodable>(_ type: T.Type, path: [any CodingKey]) -> Outcome<T> {
        var outcome = Outcome<T>()
        for attempt in 0..<Self.attempts {
            let column = SchemaColumnProbe(probe: self, path: path, attempt: attempt)
            do {
                let value = try T(from: column)
                return Outcome(value: value, sqlType: column.sqlType ?? "TEXT")
            } catch {
                outcome.sqlType = outcome.sqlType ?? column.sqlType
                if let failure = error as? Failure {
                    outcome.failure = failure
                } else {
                    outcome.error = error
                }
            }
        }
        return outcome
    }

    /// The placeholders of the types stored by conversion rules rather than by their `init(from:)`.
    private func knownPlaceholder<T: Decodable>(_ type: T.Type, attempt: Int) throws -> (value: T, sqlType: String)? {
        func cast<V>(_ value: V, _ sqlType: String) throws -> (T, String) {
            guard let typed = value as? T else { throw Failure(description: "internal: placeholder for \(T.self)") }
            return (typed, sqlType)
        }
        let second = attempt > 0
        if T.self == Date.self { return try cast(Date(timeIntervalSince1970: second ? 86_400 : 0), dateType) }
        if T.self == UUID.self {
            return try cast(
                UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, second ? 1 : 0)),
                options.uuidStrategy == .blob ? "BLOB" : "TEXT")
        }
        if T.self == Data.self { return try cast(second ? Data([0]) : Data(), "BLOB") }
        if T.self == URL.self { return try cast(URL(fileURLWithPath: second ? "/x" : "/"), "TEXT") }
        if T.self == Decimal.self { return try cast(Decimal(second ? 1 : 0), "TEXT") }
        if T.self == String.self { return try cast(second ? "x" : "", "TEXT") }
        if T.self == Double.self { return try cast(second ? 1.0 : 0.0, "REAL") }
        if T.self == Float.self { return try cast(Float(second ? 1 : 0), "REAL") }
        if T.self == Bool.self { return try cast(second, "INTEGER") }
        if let integer = T.self as? any FixedWidthInteger.Type {
            return try cast(integer.init(second ? 1 : 0), "INTEGER")
        }
        return nil
    }

    /// The SQL type that stores `value`, found by converting it as an insert would.
    private func storedType<T: Decodable>(of value: T, path: [any CodingKey]) throws -> String {
        guard let encodable = value as? any Encodable else {
            throw unreadable(T.self, path: path, error: nil)
        }
        switch try values.encode(encodable, codingPath: path) {
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        case .blob: return "BLOB"
        case .null: return ""
        }
    }

    private func unreadable<T>(_ type: T.Type, path: [any CodingKey], error: (any Error)?) -> Failure {
        let column = path.first.map { options.columnName(forKey: $0.stringValue) } ?? ""
        let property = path.map(\.stringValue).joined(separator: ".")
        let reason = error.map { " (\($0))" } ?? ""
        return Failure(
            description:
                "cannot read the column \"\(column)\" (property \(property)): \(T.self) rejected every placeholder "
                + "value, from empty and zero values to \"x\", 1, 1.0 and true\(reason). "
                + "\(Self.remedy(for: T.self)), or create the table with SQL")
    }

    /// What a type that rejected every placeholder can declare. `CaseIterable` only helps an enum
    /// without associated values, and such an enum gets here only when it takes no bytes (one case:
    /// a larger one is answered with its all-zero value, see ``zeroValue(of:)``); any other enum
    /// carries associated values, and a struct or a class can only declare a ``SchemaPlaceholder``.
    static func remedy<T>(for type: T.Type) -> String {
        if TypeKind(of: T.self) == .enum && MemoryLayout<T>.size == 0 {
            return "Make \(T.self) CaseIterable or conform it to SchemaPlaceholder"
        }
        return "Conform \(T.self) to SchemaPlaceholder, giving a value its init(from:) accepts"
    }

    /// A value of `T` found without decoding it, for a type that rejected every placeholder: the
    /// type's own ``SchemaPlaceholder``, its first case when it is `CaseIterable`, or its all-zero value.
    static func substitute<T>(for type: T.Type) -> T? {
        if let declared = T.self as? any SchemaPlaceholder.Type, let value = declared.schemaPlaceholder as? T {
            return value
        }
        if let first = firstCase(of: T.self) {
            return first
        }
        return zeroValue(of: T.self)
    }

    /// The first case of a `CaseIterable` type, as a placeholder.
    static func firstCase<T>(of type: T.Type) -> T? {
        func first<C: CaseIterable>(_ type: C.Type) -> Any? { C.allCases.first }
        guard let iterable = T.self as? any CaseIterable.Type else { return nil }
        return first(iterable) as? T
    }

    /// The value of all-zero bits of a trivial type of one or two bytes: an enum without payloads
    /// (its first case: Swift numbers payload-free cases from 0 in declaration order, in the fewest
    /// bytes that hold them), or a struct of such enums, booleans and small integers, for all of which
    /// zero bits are a valid value. Larger types could hold a pointer, for which zero is not valid,
    /// and a type of no bytes may have no value at all (`Never`), unless it is `RawRepresentable`
    /// (a one-case enum). A type of one or two bytes is plain data, known from its size alone: anything
    /// that needs more than copying its bytes holds a reference (a class instance, an existential, a
    /// string or array buffer, a weak or unowned reference), which takes a pointer's size.
    static func zeroValue<T>(of type: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard size <= 2, size < MemoryLayout<AnyObject>.size,
            size > 0 || T.self is any RawRepresentable.Type
        else { return nil }
        return withUnsafeTemporaryAllocation(byteCount: max(size, 1), alignment: MemoryLayout<T>.alignment) {
            buffer -> T? in
            guard let base = buffer.baseAddress else { return nil }
            base.initializeMemory(as: UInt8.self, repeating: 0, count: buffer.count)
            return base.load(as: T.self)
        }
    }
}
