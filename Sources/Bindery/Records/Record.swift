/// A plain struct stored as one row of a table.
///
/// ```swift
/// struct Student: Record {
///     static let tableName = "students"     // default: "student" (the type name, first letter lowercased)
///     var id: Int64?                         // nil on insert: SQLite assigns the rowid
///     var name: String
///     var year: Int
///     var tags: [String]                     // nested values are stored as JSON text
///     var isSelected = false                 // transient: not in CodingKeys, so never stored
///
///     enum CodingKeys: String, CodingKey { case id, name, year, tags }
/// }
/// ```
///
/// Every property in the type's `CodingKeys` is a column (named after ``CodingOptions/keyStrategy``).
/// To keep a property out of the database, leave it out of `CodingKeys` and give it a default value:
/// that is how a transient property is declared.
public protocol Record: Codable, Sendable {
    /// The table's name. Default: the type's name with its first letter lowercased.
    static var tableName: String { get }
    /// The primary key's column names. Default `["id"]`; several names make a composite key.
    static var primaryKey: [String] { get }
}

extension Record {
    /// The type's name with its first letter lowercased: `Student` is stored in `student`.
    public static var tableName: String {
        let name = String(describing: Self.self)
        guard let first = name.first else { return name }
        return first.lowercased() + name.dropFirst()
    }

    /// `["id"]`.
    public static var primaryKey: [String] { ["id"] }
}
