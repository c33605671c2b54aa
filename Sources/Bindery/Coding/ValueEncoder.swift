import Foundation

/// Converts one `Encodable` value to the ``SQLiteValue`` that stores it, following the storage table:
/// scalars as themselves, `Date`, `UUID`, `URL` and `Decimal` per ``CodingOptions``, raw-value enums
/// as their raw value, and anything that encodes as a keyed or unkeyed container as JSON text.
///
/// One instance serves many values (a whole bulk insert): its JSON encoder and its record of which
/// types are JSON are reused.
final class ValueEncoder {
    let options: CodingOptions
    private var jsonTypes: Set<ObjectIdentifier> = []
    /// How many values were stored as the JSON text of a keyed or unkeyed container, so that a caller
    /// can tell whether the value it encoded (or a value it wraps) became JSON.
    private(set) var jsonCount = 0
    /// How many values were stored in a form that may not decode back to the same value: a `Date`
    /// (rounded to its strategy's precision), a `URL` (its base is not stored), a `Decimal`, or JSON.
    /// ``StoredAsGiven`` records whose encoding raised it are decoded as stored.
    private(set) var inexactCount = 0
    private lazy var json: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let strategy = options.dateStrategy
        encoder.dateEncodingStrategy = .custom { date, encoder in
            try JSONDates.encode(date, to: encoder, strategy: strategy)
        }
        encoder.nonConformingFloatEncodingStrategy = .throw
        encoder.userInfo = options.userInfo
        return encoder
    }()

    init(options: CodingOptions) {
        self.options = options
    }

    /// The stored form of `value`; `codingPath` names the property in errors. The commonest value, an
    /// `Int` (a key, a count), is converted in the caller, without a call.
    @inline(__always)
    func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> SQLiteValue {
        if let int = ExactCast.cast(value, to: Int.self) { return .integer(Int64(int)) }
        return try encodeAnyType(value, codingPath: codingPath)
    }

    /// ``encode(_:codingPath:)`` for any type but `Int`.
    private func encodeAnyType<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> SQLiteValue {
        if let special = try encodeSpecial(value, codingPath: codingPath) {
            return special
        }
        let typeID = ObjectIdentifier(T.self)
        if !jsonTypes.contains(typeID) {
            let probe = SingleValueProbeEncoder(encoder: self, codingPath: codingPath)
            do {
                try value.encode(to: probe)
                if !probe.askedForContainer {
                    // Nothing at all was encoded (an empty custom encode(to:)): store NULL.
                    return probe.value ?? .null
                }
                jsonTypes.insert(typeID)
            } catch is NestedContainerSignal {
                jsonTypes.insert(typeID)
            }
        }
        return try encodeJSON(value, codingPath: codingPath)
    }

    /// The JSON text of a nested value.
    func encodeJSON<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> SQLiteValue {
        jsonCount &+= 1
        inexactCount &+= 1
        do {
            let data = try json.encode(value)
            return .text(String(decoding: data, as: UTF8.self))
        } catch let error as EncodingError {
            throw error.prefixed(by: codingPath)
        }
    }

    /// `Date`, `UUID`, `URL`, `Decimal`, `Data` and the plain scalars, without going through
    /// `encode(to:)` (which would store a `Date` as a Double since 2001, a `Data` as an array of bytes).
    @inline(__always)
    private func encodeSpecial<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> SQLiteValue? {
        // Comparing metadata is cheap; each cast below gives the value as its own type (see ExactCast).
        if let string = ExactCast.cast(value, to: String.self) { return .text(string) }
        if let sqlite = ExactCast.cast(value, to: SQLiteValue.self) { return try checked(sqlite, codingPath) }
        if let int64 = ExactCast.cast(value, to: Int64.self) { return .integer(int64) }
        if let double = ExactCast.cast(value, to: Double.self) { return try encode(double, codingPath: codingPath) }
        if let bool = ExactCast.cast(value, to: Bool.self) { return .integer(bool ? 1 : 0) }
        if let date = ExactCast.cast(value, to: Date.self) { return try encode(date, codingPath: codingPath) }
        if let uuid = ExactCast.cast(value, to: UUID.self) { return encode(uuid) }
        if let data = ExactCast.cast(value, to: Data.self) { return .blob(data) }
        if let url = ExactCast.cast(value, to: URL.self) {
            inexactCount &+= 1
            return .text(url.absoluteString)
        }
        if let decimal = ExactCast.cast(value, to: Decimal.self) {
            inexactCount &+= 1
            return .text(decimal.description)
        }
        return nil
    }

    private func checked(_ value: SQLiteValue, _ codingPath: [any CodingKey]) throws -> SQLiteValue {
        if case .real(let double) = value {
            return try encode(double, codingPath: codingPath)
        }
        return value
    }

    func encode(_ value: Double, codingPath: [any CodingKey]) throws -> SQLiteValue {
        guard !value.isNaN else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: codingPath,
                    debugDescription: "NaN cannot be stored: SQLite would turn it into NULL\(Self.naming(codingPath))"))
        }
        return .real(value)
    }

    func encode(_ value: UInt64, codingPath: [any CodingKey]) throws -> SQLiteValue {
        guard let int = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: codingPath,
                    debugDescription:
                        "\(value) is above Int64.max and cannot be stored as an INTEGER\(Self.naming(codingPath))"))
        }
        return .integer(int)
    }

    func encode(_ date: Date, codingPath: [any CodingKey]) throws -> SQLiteValue {
        inexactCount &+= 1
        switch options.dateStrategy {
        case .sqliteText:
            guard let text = SQLiteDate.string(from: date) else {
                throw EncodingError.invalidValue(
                    date,
                    .init(
                        codingPath: codingPath,
                        debugDescription: "the date is outside years 0…9999\(Self.naming(codingPath))"))
            }
            return .text(text)
        case .unixSeconds:
            return try encode(date.timeIntervalSince1970, codingPath: codingPath)
        case .unixSecondsInteger:
            let seconds = date.timeIntervalSince1970
            guard let whole = Int64(exactly: seconds) else {
                throw EncodingError.invalidValue(
                    date,
                    .init(
                        codingPath: codingPath,
                        debugDescription:
                            "the date has a fraction of a second, which whole unix seconds would lose"
                            + Self.naming(codingPath)))
            }
            return .integer(whole)
        case .unixMilliseconds:
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
            guard let whole = Int64(exactly: milliseconds) else {
                throw EncodingError.invalidValue(
                    date, .init(codingPath: codingPath, debugDescription: "the date is out of range"))
            }
            return .integer(whole)
        case .julianDay:
            return try encode(SQLiteDate.julianDay(from: date), codingPath: codingPath)
        case .custom(let encode, _):
            return try encode(date)
        }
    }

    func encode(_ uuid: UUID) -> SQLiteValue {
        switch options.uuidStrategy {
        case .lowercaseText:
            return .text(uuid.uuidString.lowercased())
        case .blob:
            return .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) })
        }
    }

    /// " (column "name")" for error messages, or nothing at the top level.
    static func naming(_ codingPath: [any CodingKey]) -> String {
        guard let last = codingPath.last else { return "" }
        return " (column \"\(last.stringValue)\")"
    }
}

/// Thrown by the probe encoder and decoder when a value asks for a keyed or unkeyed container: the
/// value is then stored as JSON instead.
struct NestedContainerSignal: Error {}

extension EncodingError {
    /// The same error with `codingPath` in front of its own coding path.
    func prefixed(by codingPath: [any CodingKey]) -> EncodingError {
        guard !codingPath.isEmpty, case .invalidValue(let value, let context) = self else { return self }
        return .invalidValue(
            value,
            .init(
                codingPath: codingPath + context.codingPath,
                debugDescription: context.debugDescription + ValueEncoder.naming(codingPath),
                underlyingError: context.underlyingError))
    }
}
