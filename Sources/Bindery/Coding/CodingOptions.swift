import Foundation

/// How values are converted to SQLite values and back: dates, UUIDs and column names.
///
/// The same options serve record properties and values interpolated into ``SQL``, so a `Date` in a
/// `where:` clause matches what `insert` stored.
///
/// ```swift
/// var coding = CodingOptions()
/// coding.keyStrategy = .snakeCase          // enrolledAt <-> enrolled_at
/// coding.dateStrategy = .unixMilliseconds  // INTEGER milliseconds since 1970
/// let db = try Database(path: "app.sqlite", options: .init(coding: coding))
/// ```
public struct CodingOptions: Sendable {
    /// How a `Date` is stored.
    public enum DateStrategy: Sendable {
        /// TEXT `yyyy-MM-dd HH:mm:ss.SSS` in UTC, which SQLite's date functions read (the default).
        /// Decoding accepts every text form SQLite's functions accept, and INTEGER or REAL unix seconds.
        ///
        /// Each strategy also sets how a `Date` inside a nested value's JSON is written and read: the
        /// same text (or number) as a column, except that under this strategy and ``custom(encode:decode:)``
        /// a number inside JSON is refused, never guessed (its unit depends on who wrote it).
        case sqliteText
        /// REAL seconds since 1970-01-01 UTC.
        case unixSeconds
        /// INTEGER whole seconds since 1970-01-01 UTC; encoding a date with a fraction of a second
        /// throws rather than truncate.
        case unixSecondsInteger
        /// INTEGER milliseconds since 1970-01-01 UTC, rounded to the nearest millisecond.
        case unixMilliseconds
        /// REAL Julian day number, as SQLite's `julianday()` gives. A double of about 2.46 million days
        /// keeps a date to about 20 µs, so a `Date` does not always come back exactly equal.
        case julianDay
        /// Your own conversion both ways, for columns. A `Date` inside JSON keeps the
        /// ``sqliteText`` form (a custom value may be a BLOB, which JSON cannot hold).
        case custom(
            encode: @Sendable (Date) throws -> SQLiteValue,
            decode: @Sendable (SQLiteValue) throws -> Date)
    }

    /// How a `UUID` is stored.
    public enum UUIDStrategy: Sendable, Hashable {
        /// TEXT in lowercase, `"e621e1f8-c36c-495a-93fc-0c247a3e6e5f"` (the default). Decoding accepts
        /// either case and 16-byte BLOBs.
        case lowercaseText
        /// A 16-byte BLOB. Decoding accepts text too.
        case blob
    }

    /// How coding keys become column names.
    public enum KeyStrategy: Sendable {
        /// The coding key's string value is the column name (the default).
        case useDefaultKeys
        /// `enrolledAt` is stored in `enrolled_at`; `userID` in `user_id`.
        case snakeCase
        /// Your own mapping from a coding key's string value to a column name.
        case custom(@Sendable (String) -> String)
    }

    /// How dates are stored. Default ``DateStrategy/sqliteText``.
    public var dateStrategy: DateStrategy
    /// How UUIDs are stored. Default ``UUIDStrategy/lowercaseText``.
    public var uuidStrategy: UUIDStrategy
    /// How coding keys map to column names. Default ``KeyStrategy/useDefaultKeys``.
    public var keyStrategy: KeyStrategy
    /// Values handed to your `encode(to:)` and `init(from:)` as `encoder.userInfo`/`decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates options; every parameter has the default described on its property.
    public init(
        dateStrategy: DateStrategy = .sqliteText, uuidStrategy: UUIDStrategy = .lowercaseText,
        keyStrategy: KeyStrategy = .useDefaultKeys, userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.dateStrategy = dateStrategy
        self.uuidStrategy = uuidStrategy
        self.keyStrategy = keyStrategy
        self.userInfo = userInfo
    }

    /// The column name for a coding key's string value.
    func columnName(forKey key: String) -> String {
        switch keyStrategy {
        case .useDefaultKeys: return key
        case .snakeCase: return CodingOptions.snakeCase(key)
        case .custom(let transform): return transform(key)
        }
    }

    /// Whether coding keys are used as they are.
    var usesDefaultKeys: Bool {
        if case .useDefaultKeys = keyStrategy { return true }
        return false
    }

    /// `userInfo` as the `Encoder` and `Decoder` protocols want it.
    var codingUserInfo: [CodingUserInfoKey: Any] {
        userInfo.mapValues { $0 as Any }
    }

    /// `myURLValue` → `my_url_value`, `userID` → `user_id`, `_private` → `_private`.
    static func snakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        let characters = Array(key)
        var result = ""
        result.reserveCapacity(characters.count + 4)
        for (index, character) in characters.enumerated() {
            if character.isUppercase {
                let previous = index > 0 ? characters[index - 1] : nil
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let afterLowercase = previous.map { $0.isLowercase || $0.isNumber } ?? false
                let endsAcronym = (previous?.isUppercase ?? false) && (next?.isLowercase ?? false)
                if previous != "_", afterLowercase || endsAcronym {
                    result.append("_")
                }
                result.append(contentsOf: character.lowercased())
            } else {
                result.append(character)
            }
        }
        return result
    }
}
