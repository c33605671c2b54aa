/// A type that gives ``Connection/createTable(for:ifNotExists:)`` a value to decode in its place.
///
/// `createTable(for:)` reads a record's columns by decoding one placeholder value of it. A property
/// whose type rejects every placeholder the probe tries (empty and zero values, then `"x"`, `1`,
/// `1.0`, `true`, …) and is neither `CaseIterable` nor an enum without associated values stops the
/// probe: the record's `init(from:)` needs a value to go on. Such a type (a struct that validates, an
/// enum with associated values) can hand one over:
///
/// ```swift
/// struct Year: Codable, Sendable, SchemaPlaceholder {
///     let value: Int
///     static let schemaPlaceholder = Year(checked: 2000)
///
///     init(checked value: Int) { self.value = value }
///     init(from decoder: any Decoder) throws {
///         value = try decoder.singleValueContainer().decode(Int.self)
///         guard (1900...2100).contains(value) else {
///             throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "year"))
///         }
///     }
///     func encode(to encoder: any Encoder) throws {
///         var container = encoder.singleValueContainer()
///         try container.encode(value)
///     }
/// }
/// ```
///
/// The column's SQL type is still the one the type's `init(from:)` read before it threw (here
/// INTEGER), or else the one the placeholder is stored as.
public protocol SchemaPlaceholder {
    /// Any valid value of the type; it is never stored.
    static var schemaPlaceholder: Self { get }
}
