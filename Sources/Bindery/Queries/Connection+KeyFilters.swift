/// Checking the primary-key values of a request's key filters against the record's key columns.
extension Connection {
    /// `request` with its key filters turned into conditions, each value checked against its key
    /// column as ``find(_:id:)`` checks a key (``RecordError/keyTypeMismatch(record:column:expected:given:)``)
    /// and bound in its stored form; `request` itself when it has none.
    func resolvingKeyFilters<R: Record>(_ request: QueryRequest<R>) throws -> QueryRequest<R> {
        guard request.hasKeyFilters else { return request }
        let state = recordContext.state(for: R.self)
        let columns = state.keyColumns(of: R.self, options: recordContext.options)
        var resolved = request
        resolved.keyFilters = []
        for filter in request.keyFilters {
            resolved.conditionList.append(
                try filter.condition(
                    table: R.tableName, primaryKey: R.primaryKey, alias: request.baseTable,
                    parameterLimit: parameterLimit
                ) { index, value in
                    try keyValue(value, column: columns?[index], record: R.self)
                })
        }
        return resolved
    }
}
