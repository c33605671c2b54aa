/// A filtered subquery a request joins to its table, one row of it per row of the table at most:
/// ` JOIN (SELECT columns FROM source WHERE conditions) AS alias ON condition`. Only the columns it
/// selects are visible to the request, so its own columns never make a name of the table ambiguous.
struct SourceJoin: Sendable {
    /// The quoted name the subquery is known by in the request.
    var alias: String
    /// The columns the subquery selects, as SQL text.
    var columns: String
    /// The quoted name of the table the subquery reads.
    var source: String
    /// The subquery's conditions, AND-ed together.
    var conditions: [SQL]
    /// The join condition, as SQL text.
    var joinCondition: String
    /// The join condition the schema of a connection calls for instead of ``joinCondition``, when it
    /// gives one (nil otherwise): read when the request's SQL is built on a connection.
    var schemaJoinCondition: (@Sendable (Connection) throws -> String?)? = nil

    /// The JOIN clause, on the schema `resolve` reads.
    func clause(_ resolve: RequestSchema) throws -> SQL {
        var sql = SQL(text: " JOIN (SELECT \(columns) FROM \(source)")
        for (index, condition) in conditions.enumerated() {
            sql += (index == 0 ? " WHERE (" : " AND (") + condition + ")"
        }
        var condition = joinCondition
        if let schemaJoinCondition, let connection = resolve.connection,
            let resolved = try schemaJoinCondition(connection)
        {
            condition = resolved
        }
        return sql + SQL(text: ") AS \(alias) ON \(condition)")
    }
}
