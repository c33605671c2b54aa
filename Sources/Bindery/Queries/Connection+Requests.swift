import CSQLite

/// Running a ``QueryRequest``: fetching its rows as its record type or as any `Decodable`, counting
/// them, testing for them, deleting and updating them.
extension Connection {
    /// Every row of `request`, as its record type.
    ///
    /// ```swift
    /// let orders = try conn.fetchAll(Order.all().filter("Freight > \(100)").order("OrderDate"))
    /// ```
    public func fetchAll<R: Record>(_ request: QueryRequest<R>) throws -> [R] {
        try fetchAll(R.self, request)
    }

    /// Every row of `request` decoded as `T`: a struct whose properties are the request's record and
    /// its included associations (by their keys), or any type that its selection fits.
    ///
    /// ```swift
    /// struct OrderInfo: Decodable { var order: Order; var customer: Customer }
    /// let infos = try conn.fetchAll(OrderInfo.self, Order.all().including(required: Order.customer))
    /// ```
    public func fetchAll<T: Decodable, R: Record>(_ type: T.Type, _ request: QueryRequest<R>) throws -> [T] {
        guard !request.hasKeyFilters else { return try fetchAll(T.self, resolvingKeyFilters(request)) }
        if !request.readsSchema {
            // A request without association: the fetch of its SQL, and nothing more.
            return try fetchAll(T.self, sql: try request.statement(keys: .unresolved).sql)
        }
        return try withPrepared(request) { sql, scoping in try fetchAll(T.self, sql: sql, scoping: scoping) }
    }

    /// The first row of `request` (with `LIMIT 1` when it has no limit), as its record type, or nil.
    public func fetchOne<R: Record>(_ request: QueryRequest<R>) throws -> R? {
        // The parts, passed as the request holds them (see PlainRequest).
        let (conditions, extras, orderings) = (request.conditionList, request.extras, request.orderings)
        if conditions.rest.isEmpty, let condition = conditions.first, orderings.isEmpty, extras == nil,
            !request.isDistinct, request.limitCount == nil, request.offsetCount == nil
        {
            // One condition and nothing more (`Record.filter(…)`): `SELECT "table".* FROM "table" WHERE`
            // condition `LIMIT 1`, run as fetchOne(_:where:) runs its statement.
            return try fetchOne(R.self, where: condition, asRequest: true)
        }
        guard PlainRequest.isPlain(extras), !PlainRequest.hasSpecialValues(conditions, extras, orderings) else {
            // Not plain: a request with key filters too, which `fetchOne(_:_:)` checks first.
            return try fetchOne(R.self, request)
        }
        let limit = request.limitCount ?? 1
        let shape = PlainRequest.shape(
            conditions, extras, orderings, isDistinct: request.isDistinct, limit: limit, offset: request.offsetCount)
        // The same request made again with new values (see RequestMemo) runs the text kept for it. The
        // context and the record type's state lent, not retained (see ``Lent``). (Not forced inline, as
        // fetchOne(_:where:)'s are: no bench line runs a request of more than one condition here.)
        func inContext(_ context: RecordContext) throws -> R? {
            func withState(_ state: RecordTypeState) throws -> R? {
                let memo = state.attachment(RequestMemo.init)
                let text: String
                if let kept = memo.text(conditions, extras, orderings, shape: shape) {
                    text = kept
                } else {
                    text = try request.limit(limit, offset: request.offsetCount).statement(keys: .unresolved).sql.text
                    memo.keep(text, conditions, extras, orderings, shape: shape)
                }
                return try fetchFirst(
                    R.self, context, state, text: text,
                    binding: { statement, encoder in
                        try PlainRequest.bind(conditions, extras, orderings, to: statement, encoder: encoder)
                    },
                    arguments: { encoder in
                        try PlainRequest.arguments(conditions, extras, orderings, encoder: encoder)
                    })
            }
            return try context.withState(for: R.self, withState)
        }
        return try withRecordContext(inContext)
    }

    /// The first row of `request` (with `LIMIT 1` when it has no limit) decoded as `T`, or nil.
    public func fetchOne<T: Decodable, R: Record>(_ type: T.Type, _ request: QueryRequest<R>) throws -> T? {
        guard !request.hasKeyFilters else { return try fetchOne(T.self, resolvingKeyFilters(request)) }
        let request = request.limitCount == nil ? request.limit(1, offset: request.offsetCount) : request
        if !request.readsSchema {
            // As in fetchAll: the fetch of its SQL, without reading the schema for keys.
            return try fetchOne(T.self, sql: try request.statement(keys: .unresolved).sql)
        }
        return try withPrepared(request) { sql, scoping in try fetchOne(T.self, sql: sql, scoping: scoping) }
    }

    /// A lazy cursor over the rows of `request`, as its record type, in constant memory. The records of
    /// included to-many associations are fetched first, when the cursor is made, for the rows the
    /// request had then (the cursor reads the same snapshot: its first row is read then too); those
    /// whose records include associations of their own or are a selection (decoded as the property's
    /// element type) when the first row is decoded, from the same snapshot.
    public func fetchCursor<R: Record>(_ request: QueryRequest<R>) throws -> RecordCursor<R> {
        try fetchCursor(R.self, request)
    }

    /// A lazy cursor over the rows of `request`, decoded as `T` one at a time.
    public func fetchCursor<T: Decodable, R: Record>(_ type: T.Type, _ request: QueryRequest<R>) throws
        -> RecordCursor<T>
    {
        try withPrepared(try resolvingKeyFilters(request)) { sql, scoping in
            let cursor = try fetchCursor(T.self, sql: sql, scoping: scoping)
            if !scoping.prefetched.isEmpty {
                // The rows must be those the records were fetched for: the first step, in the same
                // transaction, keeps its snapshot (a write committed before the first `next()` would
                // otherwise show parents without their records).
                try cursor.stepAhead()
            }
            return cursor
        }
    }

    /// How many rows `request` gives.
    ///
    /// ```swift
    /// let n = try conn.fetchCount(Order.all().filter("ShipCountry = \("France")"))
    /// ```
    public func fetchCount<R: Record>(_ request: QueryRequest<R>) throws -> Int {
        try fetchOne(Int.self, sql: try resolvingKeyFilters(request).countSQL(requestSchema)) ?? 0
    }

    /// Whether `request` gives any row.
    public func exists<R: Record>(_ request: QueryRequest<R>) throws -> Bool {
        try fetchOne(Bool.self, sql: try resolvingKeyFilters(request).existsSQL(requestSchema)) ?? false
    }

    /// Deletes the rows of `request` (of its record's table: a join only selects them) and returns
    /// how many were deleted.
    ///
    /// ```swift
    /// try conn.deleteAll(Order.all().filter("ShippedDate IS NULL"))
    /// ```
    ///
    /// A request that groups its rows (`group`, a `having` of ``SQL``, an aggregate in its selection)
    /// throws ``RequestError/groupedRowsNotWritable(operation:)``, and one for the distinct values of
    /// a selection cut by a `limit` or an `offset` throws ``RequestError/distinctValuesNotWritable(operation:)``:
    /// the rows they give are not rows of the table. Nothing is written then.
    @discardableResult
    public func deleteAll<R: Record>(_ request: QueryRequest<R>) throws -> Int {
        let request = try resolvingKeyFilters(request)
        var sql = SQL(text: "DELETE FROM " + request.baseTable)
        if let condition = try request.writeCondition(requestSchema, operation: "deleteAll") {
            sql += " WHERE " + condition
        }
        try execute(sql)
        return changes
    }

    /// Updates the rows of `request` with `assignments`, each an ``SQL`` assignment whose values are
    /// bound (`"Freight = Freight * \(2)"`, or ``Column/set(to:)``), and returns how many rows changed.
    ///
    /// ```swift
    /// try conn.updateAll(Order.all().filter("ShipCountry = \("UK")"), set: "Freight = \(0)", "ShipVia = \(1)")
    /// ```
    ///
    /// A request that groups its rows (`group`, a `having` of ``SQL``, an aggregate in its selection)
    /// throws ``RequestError/groupedRowsNotWritable(operation:)``, and one for the distinct values of
    /// a selection cut by a `limit` or an `offset` throws ``RequestError/distinctValuesNotWritable(operation:)``:
    /// the rows they give are not rows of the table. Nothing is written then.
    @discardableResult
    public func updateAll<R: Record>(_ request: QueryRequest<R>, set assignments: SQL...) throws -> Int {
        try updateAll(request, assignments)
    }

    /// Updates the rows of `request` with `assignments`; see ``updateAll(_:set:)-(_,SQL...)``.
    @discardableResult
    public func updateAll<R: Record>(_ request: QueryRequest<R>, set assignments: [SQL]) throws -> Int {
        try updateAll(request, assignments)
    }

    private func updateAll<R: Record>(_ request: QueryRequest<R>, _ assignments: [SQL]) throws -> Int {
        guard !assignments.isEmpty else { return 0 }
        let request = try resolvingKeyFilters(request)
        var sql = SQL(text: "UPDATE " + request.baseTable + " SET ") + QueryRequest<R>.list(assignments)
        if let condition = try request.writeCondition(requestSchema, operation: "updateAll") {
            sql += " WHERE " + condition
        }
        try execute(sql)
        return changes
    }

    /// The SQL `request` runs on this connection, its association keys read from the schema.
    ///
    /// ```swift
    /// print(try conn.sql(for: Order.all().including(required: Order.customer)).text)
    /// // SELECT "Orders".*, "customer".* FROM "Orders" JOIN "Customers" AS "customer" ON …
    /// ```
    public func sql<R: Record>(for request: QueryRequest<R>) throws -> SQL {
        try resolvingKeyFilters(request).statement(keys: requestSchema).sql
    }

    /// Runs `body` with the request's SQL and the splitting of its rows; first fetches the records of
    /// its to-many associations for all its rows, from the same snapshot.
    private func withPrepared<R: Record, Result>(
        _ request: QueryRequest<R>, _ body: (SQL, RowScoping) throws -> Result
    ) throws -> Result {
        let statement = try request.statement(keys: requestSchema)
        guard !request.associations.isEmpty else {
            return try body(statement.sql, recordContext.scoping)
        }
        let scoped = try statement.scopes.reduce(0) { $0 + (try width(of: $1)) }
        let trailing = (keys: Int32(statement.keyColumnCount), scoped: Int32(scoped))
        guard !statement.toMany.isEmpty else {
            return try body(statement.sql, scoping(statement.scopes, trailing: trailing, prefetched: [:]))
        }
        // The request's rows are read twice: once for their keys, then to decode them with their
        // associated records. One transaction (a savepoint inside one) keeps them the same rows.
        return try transaction(.deferred) { conn in
            let prefetched = try conn.prefetch(statement, trailing: trailing)
            return try body(statement.sql, conn.scoping(statement.scopes, trailing: trailing, prefetched: prefetched))
        }
    }

    /// How many columns a request's scope takes: its table's, and those of the scopes nested in it.
    func width(of scope: RowScope) throws -> Int {
        var width = 0
        switch scope.extent {
        case .table(let table):
            let columns = try selectedColumns(of: table)
            guard !columns.isEmpty else { throw RowScopeError.unknownTable(property: scope.property, table: table) }
            width = columns.count
        case .columns(let count):
            width = count
        }
        return try scope.nested.reduce(width) { $0 + (try self.width(of: $1)) }
    }

    /// The records of each to-many association of `statement`, for all the keys of its rows.
    private func prefetch(_ statement: QueryRequest<some Record>.Statement, trailing: (keys: Int32, scoped: Int32))
        throws -> [String: any PrefetchedValues]
    {
        try prefetch(statement.toMany, rowsOf: statement.sql, scopedWidth: trailing.scoped)
    }

    /// The value of a parent row's key column `index` (the table's column `name`), where the to-many
    /// association at `path` finds its children. TEXT that is not valid UTF-8 throws
    /// ``AssociationError/invalidKeyText(association:column:)``: read as a `String`, it would be
    /// repaired (U+FFFD in place of the invalid bytes), match none of the children's keys, and merge
    /// with another parent's key repaired the same way.
    private static func parentKey(_ rows: Statement, at index: Int32, of path: String, column name: String) throws
        -> SQLiteValue
    {
        guard sqlite3_column_type(rows.handle, index) == SQLITE_TEXT else { return try rows.value(at: index) }
        switch UTF8Text.string(of: sqlite3_column_value(rows.handle, index)) {
        case .value(let text): return .text(text)
        case .noBytes: return try rows.value(at: index)
        case .unreadable:
            throw AssociationError.invalidKeyText(association: path, column: name)
        }
    }

    /// The records of each of `steps`, by path, for all the keys that the rows of `sql` hold in the
    /// steps' key columns: the last before the `scopedWidth` columns of included associations.
    func prefetch(
        _ steps: [(step: AssociationLayout.ToManyStep, keys: JoinKeys)], rowsOf sql: SQL, scopedWidth: Int32
    ) throws -> [String: any PrefetchedValues] {
        let keyCount = steps.reduce(0) { $0 + Int32($1.keys.origin.count) }
        var keys = [Set<[SQLiteValue]>](repeating: [], count: steps.count)
        var firstKeyColumn: Int32 = 0
        try withBoundStatement(sql) { rows in
            while try rows.step() {
                // Read after a step: a statement prepared before a schema change is prepared again by
                // its first step, and until then counts the columns it had (a table that gained one
                // would put the keys one column off).
                firstKeyColumn = rows.columnCount - scopedWidth - keyCount
                var column = firstKeyColumn
                for index in steps.indices {
                    let count = steps[index].keys.origin.count
                    let key = try (0..<count).map {
                        try Self.parentKey(
                            rows, at: column + Int32($0), of: steps[index].step.path,
                            column: steps[index].keys.origin[$0])
                    }
                    column += Int32(count)
                    // A NULL key matches no row.
                    if !key.contains(where: \.isNull) {
                        keys[index].insert(key)
                    }
                }
            }
        }
        var prefetched: [String: any PrefetchedValues] = [:]
        var column = firstKeyColumn
        for (index, (step, joinKeys)) in steps.enumerated() {
            // Every to-many step has a loader (`including(all:)` gives it one).
            if let loader = step.part.loader {
                prefetched[step.path] = try loader.load(
                    step.part.descriptor, keys: joinKeys, parentKeys: keys[index], keyColumn: column, on: self)
            }
            column += Int32(joinKeys.origin.count)
        }
        return prefetched
    }

    /// The splitting of a request's rows (or a to-many association's).
    func scoping(
        _ scopes: [RowScope], trailing: (keys: Int32, scoped: Int32), prefetched: [String: any PrefetchedValues]
    ) -> RowScoping {
        RowScoping(
            explicit: scopes, tableName: RecordContext.recordTable,
            tableColumns: { [weak self] table in try self?.selectedColumns(of: table) ?? [] }, trailing: trailing,
            prefetched: prefetched)
    }
}
