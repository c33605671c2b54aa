/// The SQL a request runs, built from its parts and the key columns of its associations.
extension QueryRequest {
    /// What the request's SQL reads from the schema (``RequestSchema``).
    typealias KeyResolver = RequestSchema

    /// The request's own query, and what its rows need to decode.
    struct Statement {
        var sql: SQL
        /// A scope for each included to-one association, in row order, after the other columns.
        var scopes: [RowScope]
        /// Each included to-many association at any depth, with its keys, in the order of its key
        /// columns, which stand just before the scoped columns.
        var toMany: [(step: AssociationLayout.ToManyStep, keys: JoinKeys)]
        /// How many key columns of to-many associations the row has.
        var keyColumnCount: Int
    }

    /// The quoted name of the request's table, which qualifies its columns.
    var baseTable: String { SQL.quote(identifier: Base.tableName) }

    /// The request's query, with the key columns that `resolve` gives (placeholders where it knows
    /// none).
    func statement(keys resolve: KeyResolver) throws -> Statement {
        try checkKeys()
        var sql = SQL(text: isDistinct ? "SELECT DISTINCT " : "SELECT ")
        sql += selection ?? SQL(text: baseTable + ".*")
        sql += try annotationColumns(resolve)
        guard !associations.isEmpty else {
            // A plain request (the common case, and a request's fetch on every call): no layout to make.
            sql += try body(resolve, ordered: true)
            return Statement(sql: sql, scopes: [], toMany: [], keyColumnCount: 0)
        }
        sql += annotatedAssociationColumns
        let layout = try AssociationLayout(associations, parentAlias: baseTable, resolve)
        let keyColumns = try layout.keyColumns(resolve)
        sql += keyColumns.sql
        sql += layout.scopedColumns
        sql += try body(resolve, ordered: true)
        return Statement(
            sql: sql, scopes: layout.scopes, toMany: Array(zip(layout.toMany, keyColumns.keys)),
            keyColumnCount: keyColumns.count)
    }

    /// Whether the request's SQL reads the schema of the connection it runs on: the keys of its
    /// associations, the collations its annotations compare with, the join conditions of its joined
    /// subqueries (``SourceJoin/schemaJoinCondition``), the keys of the associations its conditions on
    /// aggregates name. A request that reads none is built without.
    var readsSchema: Bool {
        !associations.isEmpty || !annotations.isEmpty || sourceJoins.contains { $0.schemaJoinCondition != nil }
            || extras.map { !$0.aggregateFilters.isEmpty || !$0.aggregateHavings.isEmpty } ?? false
    }

    /// Whether the request's rows are the rows of its table matching its filters, one each: no
    /// grouping, distinct, limit or join that could change which or how many, no joined subquery
    /// and no selection (whose aliases its conditions may name, or which may aggregate the rows).
    var selectsPlainRows: Bool {
        groupings.isEmpty && havingConditions.isEmpty && !isDistinct && limitCount == nil && offsetCount == nil
            && annotations.isEmpty && !associations.contains(where: \.isJoined) && sourceJoins.isEmpty
            && selection == nil
            && (extras.map { $0.aggregateFilters.isEmpty && $0.aggregateHavings.isEmpty && $0.keyFilters.isEmpty }
                ?? true)
    }

    /// `SELECT count(*)` of the request's rows: over the request as written (`SELECT count(*) FROM
    /// (…)`) unless its rows are plain rows of its table.
    func countSQL(_ resolve: KeyResolver) throws -> SQL {
        try checkKeys()
        if selectsPlainRows {
            return SQL(text: "SELECT count(*)") + (try body(resolve, ordered: false))
        }
        return SQL(text: "SELECT count(*) FROM (") + (try innerSelect(resolve)) + ")"
    }

    /// `SELECT EXISTS(…)` of the request's rows.
    func existsSQL(_ resolve: KeyResolver) throws -> SQL {
        try checkKeys()
        return SQL(text: "SELECT EXISTS(") + (try innerSelect(resolve)) + ")"
    }

    /// The condition of a DELETE or UPDATE of the request's rows: its filters, or, for a request that
    /// joins, selects or limits, its rows' primary keys (`WHERE ("a", "b") IN (SELECT …)`), or their
    /// rowids where a key column may hold NULL (``RequestSchema/rowidForNullableKey``); for distinct
    /// rows cut by a limit or an offset, the keys of the distinct rows the cut keeps, as the fetch keeps them.
    ///
    /// Throws ``RequestError/groupedRowsNotWritable(operation:)`` for a request that aggregates its
    /// rows, and ``RequestError/distinctValuesNotWritable(operation:)`` for distinct values of a
    /// selection cut by a limit or an offset: the rows such a request gives are not rows of its table.
    func writeCondition(_ resolve: KeyResolver, operation: String) throws -> SQL? {
        try checkKeys()
        if aggregatesRows {
            throw RequestError.groupedRowsNotWritable(operation: operation)
        }
        if isDistinct && selection != nil && (limitCount != nil || offsetCount != nil) {
            throw RequestError.distinctValuesNotWritable(operation: operation)
        }
        if selectsPlainRows {
            let all = try allConditions(resolve)
            return all.isEmpty ? nil : Self.conjunction(all)
        }
        // A key column that may hold NULL (a TEXT PRIMARY KEY of a rowid table without NOT NULL) matches
        // no `IN`: such rows are found by their rowids.
        let rowid = try resolve.rowidForNullableKey(Base.tableName, Base.primaryKey)
        let keyColumns = rowid.map { [$0] } ?? Base.primaryKey
        let key = keyColumns.map { SQL.quote(identifier: $0) }
        let aliases = keyColumns.indices.map { SQL.quote(identifier: "bindery.pk.\($0)") }
        let selected = zip(keyColumns, aliases).map { column, alias in
            baseTable + "." + SQL.quote(identifier: column) + " AS " + alias
        }
        let row = key.count == 1 ? key[0] : "(" + key.joined(separator: ", ") + ")"
        let isCut = limitCount != nil || offsetCount != nil
        // Distinct rows cut by a limit or an offset: the cut counts the rows as the fetch gives them,
        // after `DISTINCT` merged the rows a join repeats, so the inner query selects what the fetch
        // selects (a selection is refused above). The key columns are among the table's columns and
        // add no row, save the rowid of rows that are alike in every column.
        let distinctRows = isDistinct && isCut
        var inner = SQL(text: (distinctRows ? "SELECT DISTINCT " : "SELECT ") + selected.joined(separator: ", "))
        if let selection {
            // Conditions may name the selection's aliases.
            inner += ", " + selection
        } else if distinctRows {
            inner += SQL(text: ", " + baseTable + ".*")
        }
        inner += try annotationColumns(resolve)
        let associated = annotatedAssociationColumns
        inner += associated
        if distinctRows && !associations.isEmpty {
            // The included to-one associations' columns are part of each distinct row, as in `innerSelect`.
            inner += try AssociationLayout(associations, parentAlias: baseTable, resolve).scopedColumns
        }
        inner += try body(resolve, ordered: isCut)
        if !annotations.isEmpty || selection != nil || !associated.storage.isEmpty || distinctRows {
            // Conditions may name the annotations, which the key columns alone would not select.
            inner = SQL(text: "SELECT " + aliases.joined(separator: ", ") + " FROM (") + inner + ")"
        }
        return SQL(text: row + " IN (") + inner + ")"
    }

    /// `SELECT [DISTINCT] selection, annotations FROM …`, ordered only when limited, for counting or
    /// testing existence.
    private func innerSelect(_ resolve: KeyResolver) throws -> SQL {
        var sql = SQL(text: isDistinct ? "SELECT DISTINCT " : "SELECT ")
        sql += selection ?? SQL(text: baseTable + ".*")
        sql += try annotationColumns(resolve)
        sql += annotatedAssociationColumns
        if isDistinct && !associations.isEmpty {
            // The columns of the included to-one associations are part of each distinct row fetched: a
            // `hasOne` that matches several rows gives a row for each.
            sql += try AssociationLayout(associations, parentAlias: baseTable, resolve).scopedColumns
        }
        sql += try body(resolve, ordered: limitCount != nil || offsetCount != nil)
        return sql
    }

    /// `, (SELECT count(*) …) AS "orderCount"` for each annotation, under the column its key names with
    /// the connection's key strategy (`"order_count"` with `.snakeCase`), which is the column its
    /// property reads; in a request that aggregates its
    /// rows (by `group`, `having`, or an aggregate in its selection), the aggregate of those values over
    /// each group: `sum((SELECT count(*) …))`, so that a group counts the associated rows of all its
    /// rows.
    private func annotationColumns(_ resolve: KeyResolver) throws -> SQL {
        var sql = SQL(text: "")
        guard !annotations.isEmpty else { return sql }
        try checkAnnotationKeys(resolve)
        let grouped = aggregatesRows
        if grouped, let annotation = annotations.first(where: { $0.formula != nil }) {
            try checkGroupedJoins(annotation.key)
        }
        for annotation in annotations {
            let value: SQL
            switch annotation.value {
            case .aggregate(let formula):
                value = try aggregateSQL(formula, grouped: grouped, resolve)
            case .expression(let expression):
                value = SQL(text: "(") + expression + ")"
            }
            sql += ", " + value + SQL(text: " AS " + SQL.quote(identifier: resolve.columnName(annotation.key)))
        }
        return sql
    }

    /// Throws ``AssociationError/annotationOfGroupedJoin(annotation:association:)`` when the request
    /// joins a to-many association: in a request that groups its rows, the aggregate `name` of
    /// associated rows would count a row once per joined row.
    func checkGroupedJoins(_ name: String) throws {
        if let joined = associations.first(where: { $0.isJoined && $0.descriptor.isToMany }) {
            throw AssociationError.annotationOfGroupedJoin(annotation: name, association: joined.descriptor.key)
        }
    }

    /// The SQL of `formula`: each association's aggregate as a correlated subquery of the row, or, in a
    /// request that groups its rows (`grouped`), as the aggregate of those over the group.
    func aggregateSQL(_ formula: AggregateFormula, grouped: Bool, _ resolve: KeyResolver) throws -> SQL {
        try formula.sql { term in
            grouped ? try groupAggregate(term, resolve) : try subquery(term, term.expression, resolve)
        }
    }

    /// `, "team"."name"`: the columns of the associations given to `annotated(withRequired:)` and
    /// `annotated(withOptional:)`, among the request's own columns.
    var annotatedAssociationColumns: SQL {
        var sql = SQL(text: "")
        for part in associations where part.mode == .annotateRequired || part.mode == .annotateOptional {
            sql += SQL(text: ", ") + part.descriptor.selectedColumns
        }
        return sql
    }

    /// Whether the request's rows are groups of rows: it groups, has a HAVING, or selects an aggregate.
    var aggregatesRows: Bool {
        !groupings.isEmpty || !havingConditions.isEmpty || (selection.map(SQLAggregateScan.callsAggregate) ?? false)
            || annotations.contains { annotation in
                guard case .expression(let expression) = annotation.value else { return false }
                return SQLAggregateScan.callsAggregate(expression)
            }
    }

    /// The aggregate of an annotation over a group of rows, from its value for each row of the group:
    /// the sum of the counts and sums, the smallest of the minimums (compared by the column's
    /// collation, which a subquery's value loses), the sum of the sums divided by the sum of the
    /// counts for an average.
    private func groupAggregate(_ annotation: AggregateTerm, _ resolve: KeyResolver) throws -> SQL {
        guard let column = annotation.column else {
            return SQL(text: "sum(") + (try subquery(annotation, "count(*)", resolve)) + ")"
        }
        let qualified = annotation.descriptor.alias + "." + SQL.quote(identifier: column)
        switch annotation.function {
        case .count:
            return SQL(text: "sum(") + (try subquery(annotation, "count(" + qualified + ")", resolve)) + ")"
        case .sum:
            return SQL(text: "sum(") + (try subquery(annotation, "sum(" + qualified + ")", resolve)) + ")"
        case .total:
            return SQL(text: "total(") + (try subquery(annotation, "total(" + qualified + ")", resolve)) + ")"
        case .average:
            return SQL(text: "(total(") + (try subquery(annotation, "total(" + qualified + ")", resolve))
                + ") / sum(" + (try subquery(annotation, "count(" + qualified + ")", resolve)) + "))"
        case .min, .max:
            let function = annotation.function == .min ? "min" : "max"
            let collation =
                try resolve.collation(annotation.descriptor.destinationTable, column).map { SQL.quote(identifier: $0) }
                ?? "<the collation of \(SQL.quote(identifier: annotation.descriptor.destinationTable)).\(column)>"
            return SQL(text: function + "(")
                + (try subquery(annotation, function + "(" + qualified + ")", resolve))
                + SQL(text: " COLLATE " + collation + ")")
        }
    }

    /// ` FROM "table" JOIN … WHERE … GROUP BY … HAVING … ORDER BY … LIMIT …`.
    private func body(_ resolve: KeyResolver, ordered: Bool) throws -> SQL {
        var sql = SQL(text: " FROM " + baseTable)
        for source in sourceJoins {
            sql += try source.clause(resolve)
        }
        for part in associations where part.isJoined {
            sql += try Self.join(part, resolve, parent: baseTable)
        }
        let conditions = try allConditions(resolve)
        if !conditions.isEmpty {
            sql += " WHERE "
            Self.appendConjunction(conditions, to: &sql)
        }
        if !groupings.isEmpty {
            sql += " GROUP BY "
            Self.appendList(groupings, to: &sql)
        }
        let havingConditions = try allHavingConditions(resolve)
        if !havingConditions.isEmpty {
            sql += " HAVING "
            Self.appendConjunction(havingConditions, to: &sql)
        }
        if ordered {
            var all = orderings + Self.toOneOrderings(associations)
            if extras?.isReversed ?? false {
                if all.isEmpty && (aggregatesRows || (isDistinct && selection != nil)) {
                    // The primary key of one row of each group (or distinct value) would sort them.
                    throw RequestError.irreversibleOrdering(
                        ordering: "",
                        reason: "the request has no ordering, and its rows are groups or distinct values that the"
                            + " primary key does not sort")
                }
                all = try OrderingReversal.reversed(all, primaryKey: Base.primaryKey, table: baseTable)
            }
            if !all.isEmpty {
                sql += " ORDER BY "
                Self.appendList(all, to: &sql)
            }
        }
        if let limitCount {
            sql += SQL(text: limitCount == 1 ? " LIMIT 1" : " LIMIT " + String(limitCount))
            if let offsetCount {
                sql += SQL(text: " OFFSET " + String(offsetCount))
            }
        } else if let offsetCount {
            sql += SQL(text: " LIMIT -1 OFFSET " + String(offsetCount))
        }
        return sql
    }

    /// The JOIN clause (two for a many-to-many association) of an association of the table aliased
    /// `parent` (quoted), followed by those of the associations it joins or includes.
    ///
    /// Below a LEFT JOIN every join is a LEFT JOIN (`insideOptional`), and an association required
    /// there is required of its parent's row instead, by an `EXISTS` in the parent's `ON`: a loan
    /// whose book has no author keeps a nil book in `Loan.including(optional: Loan.book.including(
    /// required: Book.author))`. (SQLite's parenthesized joins would say it too, but rename the columns
    /// of the tables inside: `id:1`.)
    static func join(_ part: AssociationPart, _ resolve: KeyResolver, parent: String, insideOptional: Bool = false)
        throws -> SQL
    {
        let descriptor = part.descriptor
        let keys = try resolve.keys(descriptor)
        let isLeft = insideOptional || part.isOptional
        let keyword = isLeft ? " LEFT JOIN " : " JOIN "
        let destination = SQL.quote(identifier: descriptor.destinationTable) + " AS " + descriptor.alias
        var sql: SQL
        if let pivot = descriptor.pivot {
            sql =
                SQL(
                    text: keyword + SQL.quote(identifier: pivot.table) + " AS " + descriptor.pivotAlias + " ON "
                        + Self.equal(descriptor.pivotAlias, keys?.pivotOrigin, parent, keys?.origin, descriptor))
                + Self.pivotConditions(descriptor)
                + SQL(
                    text: keyword + destination + " ON "
                        + Self.equal(
                            descriptor.alias, keys?.destination, descriptor.pivotAlias, keys?.pivotDestination,
                            descriptor))
        } else {
            sql = SQL(
                text: keyword + destination + " ON "
                    + Self.equal(descriptor.alias, keys?.destination, parent, keys?.origin, descriptor))
        }
        for condition in descriptor.conditions {
            sql += " AND (" + condition + ")"
        }
        if isLeft {
            for child in descriptor.children where child.isJoined && !child.isOptional {
                sql += " AND " + (try exists(child, resolve, parent: descriptor.alias))
            }
        }
        for child in descriptor.children where child.isJoined {
            sql += try join(child, resolve, parent: descriptor.alias, insideOptional: isLeft)
        }
        return sql
    }

    /// The orderings of the to-one associations among `parts` and their joined associations, depth
    /// first: they sort the rows after the request's own orderings (or a to-many association's).
    static func toOneOrderings(_ parts: [AssociationPart]) -> [SQL] {
        parts.filter { $0.isJoined && !$0.descriptor.isToMany }.flatMap { part in
            part.descriptor.orderings + toOneOrderings(part.descriptor.children)
        }
    }

    /// `EXISTS(SELECT 1 FROM …)`: whether the row aliased `parent` has the row of the required to-one
    /// association `part`, with the rows its own required associations require.
    private static func exists(_ part: AssociationPart, _ resolve: KeyResolver, parent: String) throws -> SQL {
        let descriptor = part.descriptor
        let keys = try resolve.keys(descriptor)
        var sql = SQL(
            text: "EXISTS(SELECT 1 FROM " + SQL.quote(identifier: descriptor.destinationTable) + " AS "
                + descriptor.alias)
        if let pivot = descriptor.pivot {
            sql += SQL(text: " JOIN " + SQL.quote(identifier: pivot.table) + " AS " + descriptor.pivotAlias + " ON ")
            sql += SQL(
                text: Self.equal(
                    descriptor.alias, keys?.destination, descriptor.pivotAlias, keys?.pivotDestination, descriptor))
            sql += pivotConditions(descriptor)
            sql += SQL(
                text: " WHERE " + Self.equal(descriptor.pivotAlias, keys?.pivotOrigin, parent, keys?.origin, descriptor)
            )
        } else {
            sql += SQL(
                text: " WHERE " + Self.equal(descriptor.alias, keys?.destination, parent, keys?.origin, descriptor))
        }
        for condition in descriptor.conditions {
            sql += " AND (" + condition + ")"
        }
        for child in descriptor.children where child.isJoined && !child.isOptional {
            sql += " AND " + (try exists(child, resolve, parent: descriptor.alias))
        }
        return sql + ")"
    }

    /// ` AND (…)` for each condition of the pivot of an association through two others (the first
    /// one's), added to the pivot's `ON`.
    static func pivotConditions(_ descriptor: AssociationDescriptor) -> SQL {
        var sql = SQL(text: "")
        for condition in descriptor.pivot?.conditions ?? [] {
            sql += " AND (" + condition + ")"
        }
        return sql
    }

    /// The correlated subquery that computes `expression` over the associated rows of a row.
    private func subquery(_ annotation: AggregateTerm, _ expression: String, _ resolve: KeyResolver) throws -> SQL {
        let descriptor = annotation.descriptor
        let keys = try resolve.keys(descriptor)
        var text =
            "(SELECT " + expression + " FROM " + SQL.quote(identifier: descriptor.destinationTable)
            + " AS " + descriptor.alias
        let link: String
        var pivotJoin = SQL(text: "")
        if let pivot = descriptor.pivot {
            text +=
                " JOIN " + SQL.quote(identifier: pivot.table) + " AS " + descriptor.pivotAlias + " ON "
                + Self.equal(
                    descriptor.alias, keys?.destination, descriptor.pivotAlias, keys?.pivotDestination, descriptor)
            pivotJoin = Self.pivotConditions(descriptor)
            link = Self.equal(descriptor.pivotAlias, keys?.pivotOrigin, baseTable, keys?.origin, descriptor)
        } else {
            link = Self.equal(descriptor.alias, keys?.destination, baseTable, keys?.origin, descriptor)
        }
        var sql = SQL(text: text) + pivotJoin
        // The associations it joins or includes filter the rows counted as they filter its arrays.
        for child in descriptor.children where child.isJoined {
            sql += try Self.join(child, resolve, parent: descriptor.alias)
        }
        sql += SQL(text: " WHERE " + link)
        for condition in descriptor.conditions {
            sql += " AND (" + condition + ")"
        }
        return sql + ")"
    }

    /// Throws when two associations decoded into the same value have the same key (they would be one
    /// property), or two associations anywhere in the request the same table alias.
    private func checkKeys() throws {
        // The request's table is named in the query as itself.
        var aliases = [FoldedIdentifier(Base.tableName): Base.tableName]
        try Self.checkKeys(associations, path: "", aliases: &aliases)
        for annotation in annotations {
            guard let formula = annotation.formula else { continue }
            try Self.checkAliases(formula, path: annotation.key.isEmpty ? formula.summary : annotation.key)
        }
        guard let extras, !extras.aggregateFilters.isEmpty || !extras.aggregateHavings.isEmpty else { return }
        for formula in aggregateFilters + aggregateHavings {
            try Self.checkAliases(formula, path: formula.summary)
        }
    }

    /// Checks the aliases of each association's aggregate in `formula`, at `path`.
    private static func checkAliases(_ formula: AggregateFormula, path: String) throws {
        for term in formula.terms {
            // An aggregate's subquery joins the association's tables beside the request's, which it
            // names to correlate them: each has its own, whatever the other aggregates of the formula.
            var own = [FoldedIdentifier(Base.tableName): Base.tableName]
            try Self.register(term.descriptor, path: path, in: &own)
            try Self.checkKeys(term.descriptor.children, path: path + ".", aliases: &own)
        }
    }

    /// Adds the aliases of the association at `path` (its table's, and its pivot's) to `aliases`;
    /// throws when one is there already, or when its conditions name its table by another alias.
    private static func register(
        _ descriptor: AssociationDescriptor, path: String, in aliases: inout [FoldedIdentifier: String]
    ) throws {
        if let written = descriptor.writtenAlias, FoldedIdentifier(written) != FoldedIdentifier(descriptor.aliasName) {
            throw AssociationError.aliasChanged(association: path, alias: written, newAlias: descriptor.aliasName)
        }
        if let other = aliases.updateValue(path, forKey: FoldedIdentifier(descriptor.aliasName)) {
            throw AssociationError.duplicateAlias(alias: descriptor.aliasName, first: other, second: path)
        }
        if let pivotAlias = descriptor.pivot?.alias,
            let other = aliases.updateValue(path, forKey: FoldedIdentifier(pivotAlias))
        {
            throw AssociationError.duplicateAlias(alias: pivotAlias, first: other, second: path)
        }
    }

    /// Checks the keys of `parts`, decoded into one value (with those of the children of the ones only
    /// joined), and their aliases against `aliases` (each alias met so far, with the path of its
    /// association); `path` is that of their parent, `"book."`, empty for the request's own.
    private static func checkKeys(
        _ parts: [AssociationPart], path: String, aliases: inout [FoldedIdentifier: String]
    ) throws {
        var keys = Set<FoldedIdentifier>()
        func check(_ parts: [AssociationPart], path: String) throws {
            for part in parts {
                let descriptor = part.descriptor
                guard keys.insert(FoldedIdentifier(descriptor.key)).inserted else {
                    throw AssociationError.duplicateKey(association: path + descriptor.key)
                }
                let fullPath = path + descriptor.key
                if part.mode == .includeAll {
                    // Fetched by a query of its own, where only its own aliases are.
                    var own: [FoldedIdentifier: String] = [:]
                    try register(descriptor, path: fullPath, in: &own)
                    try checkKeys(descriptor.children, path: fullPath + ".", aliases: &own)
                    continue
                }
                try register(descriptor, path: fullPath, in: &aliases)
                if part.isSelected {
                    try checkKeys(descriptor.children, path: fullPath + ".", aliases: &aliases)
                } else {
                    try check(descriptor.children, path: fullPath + ".")
                }
            }
        }
        try check(parts, path: path)
    }

    /// `"a"."x" = "b"."y" AND …`, or a placeholder saying where the keys come from when they are not
    /// known (a request printed without a connection).
    static func equal(
        _ left: String, _ leftColumns: [String]?, _ right: String, _ rightColumns: [String]?,
        _ descriptor: AssociationDescriptor
    ) -> String {
        guard let leftColumns, let rightColumns else {
            return "<\(left) = \(right) on \(descriptor.schemaKeyDescription)>"
        }
        return zip(leftColumns, rightColumns).map { leftColumn, rightColumn in
            left + "." + SQL.quote(identifier: leftColumn) + " = " + right + "." + SQL.quote(identifier: rightColumn)
        }.joined(separator: " AND ")
    }

    /// The conditions AND-ed, each in parentheses when there are several.
    static func conjunction(_ conditions: [SQL]) -> SQL {
        guard conditions.count > 1 else { return conditions[0] }
        var sql = SQL(text: "")
        appendConjunction(conditions, to: &sql)
        return sql
    }

    /// Appends ``conjunction(_:)`` of `conditions` to `sql`, in place.
    static func appendConjunction(_ conditions: [SQL], to sql: inout SQL) {
        guard conditions.count > 1 else {
            sql += conditions[0]
            return
        }
        for index in conditions.indices {
            sql += SQL(text: index == 0 ? "(" : " AND (")
            sql += conditions[index]
            sql += ")"
        }
    }

    /// The fragments separated by commas.
    static func list(_ fragments: [SQL]) -> SQL {
        var sql = SQL(text: "")
        appendList(fragments, to: &sql)
        return sql
    }

    /// Appends ``list(_:)`` of `fragments` to `sql`, in place.
    static func appendList(_ fragments: [SQL], to sql: inout SQL) {
        for index in fragments.indices {
            if index > 0 {
                sql += ", "
            }
            sql += fragments[index]
        }
    }
}
