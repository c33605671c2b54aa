/// Options of a table the builder creates.
///
/// ```swift
/// try conn.create(table: "settings", options: [.withoutRowID, .strict]) { t in … }
/// ```
public struct TableOptions: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int

    /// Options from their bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// `IF NOT EXISTS`: creating a table that exists does nothing.
    public static let ifNotExists = TableOptions(rawValue: 1 << 0)
    /// `WITHOUT ROWID`: rows are stored in primary-key order, with no rowid (a primary key is required).
    public static let withoutRowID = TableOptions(rawValue: 1 << 1)
    /// `STRICT`: each value must have its column's type.
    public static let strict = TableOptions(rawValue: 1 << 2)
    /// `TEMP`: a table of the connection's temporary database.
    public static let temporary = TableOptions(rawValue: 1 << 3)
}
