/// What the SQL of a request reads from the schema: the key columns of its associations and the
/// collations of the columns it aggregates. On a connection both are read from the schema; printed
/// without one, only the keys an association gives are known, and the rest print as placeholders
/// saying what they stand for.
struct RequestSchema {
    /// The key columns of an association; nil where they are not known.
    var keys: (AssociationDescriptor) throws -> JoinKeys?
    /// The collation of a column of a table; nil where it is not known.
    var collation: (_ table: String, _ column: String) throws -> String?
    /// How many columns an association's selection has; nil where it is not known.
    var selectionWidth: (AssociationDescriptor) throws -> Int?
    /// The columns that `table.*` selects; nil where they are not known.
    var tableColumns: (_ table: String) throws -> [String]? = { _ in nil }
    /// The connection whose schema this reads, for what a request's parts read of it themselves
    /// (``SourceJoin/schemaJoinCondition``); nil without one.
    var connection: Connection? = nil
    /// The column a coding key names under the connection's key strategy
    /// (``CodingOptions/keyStrategy``), which an annotation's column must have for its property to
    /// read it; the key itself without a connection.
    var columnName: (_ key: String) -> String = { $0 }
    /// The name that reads the rowid of a table (`rowid`, or `_rowid_` or `oid` where a column is named
    /// so) when its primary key columns `key` may hold NULL, which no `IN` matches, so that the rows of a
    /// request are written by their rowids instead (``QueryRequest/writeCondition(_:operation:)``); nil
    /// where every row has a key of its own, or where the schema is not known.
    var rowidForNullableKey: (_ table: String, _ key: [String]) throws -> String? = { _, _ in nil }

    /// Without a connection: the keys that associations give, nothing from the schema.
    static var unresolved: RequestSchema {
        RequestSchema(keys: { $0.givenKeys }, collation: { _, _ in nil }, selectionWidth: { _ in nil })
    }
}
