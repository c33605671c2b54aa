/// The SQL a request runs, built from its parts and the key columns of its associations.
extension QueryRequest {
    /// Resolves the key columns of an association; nil where they are not known (for printing).
    typealias KeyResolver = (AssociationDescriptor) throws -> JoinKeys

    /// The request's own query, and what its rows need to decode.
    struct Statement {
        var sql: SQL
        /// A scope for each included to-one association, in row order, after the other columns.
        var scopes: [RowScope]
        /// Each included to-many association, with its keys, in the order of its key columns, which
        /// stand just before the scoped columns.
        var toMany: [(part: AssociationPart, keys: JoinKeys)]
        /// How many key columns of to-many associations the row has.
        var keyColumnCount: Int
    }

    /// The quoted name of the request's table, which qualifies its columns.
    var baseTable: String { SQL.quote(identifier: Base.tableName) }

    /// The request's query, with the key columns that `resolve` gives (placeholders when nil).
    func statement(keys resolve: KeyResolver?) throws -> Statement {
        try checkKeys()
        var sql = SQL(text: isDistinct ? "SELECT DISTINCT " : "SELECT ")
        sql += selection ?? SQL(text: baseTable + ".*")
        sql += try annotationColumns(resolve)
        var toMany: [(part: AssociationPart, keys: JoinKeys)] = []
        var keyColumnCount = 0
        for part in associations where part.mode == .includeAll {
            let keys = try resolve?(part.descriptor) ?? placeholderKeys(part.descriptor)
            for (index, column) in keys.origin.enumerated() {
                let alias = SQL.quote(identifier: "bindery.key.\(part.descriptor.key).\(index)")
                sql += SQL(text: ", \(baseTable).\(SQL.quote(identifier: column)) AS \(alias)")
            }
            keyColumnCount += keys.origin.count
            toMany.append((part, keys))
        }
        var scopes: [RowScope] = []
        for part in associations where part.isSelected {
            sql += SQL(text: ", " + part.descriptor.alias + ".*")
            scopes.append(.table(part.descriptor.destinationTable, into: part.descriptor.key))
        }
        sql += try body(resolve, ordered: true)
        return Statement(sql: sql, scopes: scopes, toMany: toMany, keyColumnCount: keyColumnCount)
    }

    /// Whether the request's rows are the rows of its table matching its filters, one each: no
    /// grouping, distinct, limit or join that could change which or how many, and no joined subquery
    /// that its conditions may name.
    var selectsPlainRows: Bool {
        groupings.isEmpty && havingConditions.isEmpty && !isDistinct && limitCount == nil && offsetCount == nil
            && annotations.isEmpty && !associations.contains(where: \.isJoined) && sourceJoins.isEmpty
    }

    /// `SELECT count(*)` of the request's rows.
    func countSQL(_ resolve: KeyResolver?) throws -> SQL {
        try checkKeys()
        if selectsPlainRows && groupings.isEmpty {
            return SQL(text: "SELECT count(*)") + (try body(resolve, ordered: false))
        }
        return SQL(text: "SELECT count(*) FROM (") + (try innerSelect(resolve)) + ")"
    }

    /// `SELECT EXISTS(…)` of the request's rows.
    func existsSQL(_ resolve: KeyResolver?) throws -> SQL {
        try checkKeys()
        return SQL(text: "SELECT EXISTS(") + (try innerSelect(resolve)) + ")"
    }

    /// The condition of a DELETE or UPDATE of the request's rows: its filters, or, for a request that
    /// joins, groups or limits, its rows' primary keys (`WHERE ("a", "b") IN (SELECT …)`).
    func writeCondition(_ resolve: KeyResolver?) throws -> SQL? {
        try checkKeys()
        if selectsPlainRows {
            return conditions.isEmpty ? nil : Self.conjunction(conditions)
        }
        let key = Base.primaryKey.map { SQL.quote(identifier: $0) }
        let selected = Base.primaryKey.map { baseTable + "." + SQL.quote(identifier: $0) }
        let row = key.count == 1 ? key[0] : "(" + key.joined(separator: ", ") + ")"
        var inner = SQL(text: "SELECT " + selected.joined(separator: ", "))
        inner += try annotationColumns(resolve)
        inner += try body(resolve, ordered: limitCount != nil || offsetCount != nil)
        if !annotations.isEmpty {
            // Conditions may name the annotations, which the key columns alone would not select.
            inner = SQL(text: "SELECT " + key.joined(separator: ", ") + " FROM (") + inner + ")"
        }
        return SQL(text: row + " IN (") + inner + ")"
    }

    /// `SELECT [DISTINCT] selection, annotations FROM …`, ordered only when limited, for counting or
    /// testing existence.
    private func innerSelect(_ resolve: KeyResolver?) throws -> SQL {
        var sql = SQL(text: isDistinct ? "SELECT DISTINCT " : "SELECT ")
        sql += selection ?? SQL(text: baseTable + ".*")
        sql += try annotationColumns(resolve)
        sql += try body(resolve, ordered: limitCount != nil || offsetCount != nil)
        return sql
    }

    /// `, (SELECT count(*) …) AS "orderCount"` for each annotation.
    private func annotationColumns(_ resolve: KeyResolver?) throws -> SQL {
        var sql = SQL(text: "")
        for annotation in annotations {
            sql +=
                ", " + (try subquery(annotation, resolve)) + SQL(text: " AS " + SQL.quote(identifier: annotation.key))
        }
        return sql
    }

    /// ` FROM "table" JOIN … WHERE … GROUP BY … HAVING … ORDER BY … LIMIT …`.
    private func body(_ resolve: KeyResolver?, ordered: Bool) throws -> SQL {
        var sql = SQL(text: " FROM " + baseTable)
        for source in sourceJoins {
            sql += source.clause
        }
        for part in associations where part.isJoined {
            sql += try join(part, resolve)
        }
        if !conditions.isEmpty {
            sql += " WHERE " + Self.conjunction(conditions)
        }
        if !groupings.isEmpty {
            sql += " GROUP BY " + Self.list(groupings)
        }
        if !havingConditions.isEmpty {
            sql += " HAVING " + Self.conjunction(havingConditions)
        }
        if ordered, !orderings.isEmpty {
            sql += " ORDER BY " + Self.list(orderings)
        }
        if let limitCount {
            sql += SQL(text: " LIMIT \(limitCount)")
            if let offsetCount {
                sql += SQL(text: " OFFSET \(offsetCount)")
            }
        } else if let offsetCount {
            sql += SQL(text: " LIMIT -1 OFFSET \(offsetCount)")
        }
        return sql
    }

    /// The JOIN clause (two for a many-to-many association) of an association.
    private func join(_ part: AssociationPart, _ resolve: KeyResolver?) throws -> SQL {
        let descriptor = part.descriptor
        let keys = try resolve?(descriptor)
        let keyword = part.isOptional ? " LEFT JOIN " : " JOIN "
        let destination = SQL.quote(identifier: descriptor.destinationTable) + " AS " + descriptor.alias
        var sql: SQL
        if let pivot = descriptor.pivot {
            sql = SQL(
                text: keyword + SQL.quote(identifier: pivot.table) + " AS " + descriptor.pivotAlias + " ON "
                    + Self.equal(descriptor.pivotAlias, keys?.pivotOrigin, baseTable, keys?.origin, descriptor)
                    + keyword + destination + " ON "
                    + Self.equal(
                        descriptor.alias, keys?.destination, descriptor.pivotAlias, keys?.pivotDestination, descriptor))
        } else {
            sql = SQL(
                text: keyword + destination + " ON "
                    + Self.equal(descriptor.alias, keys?.destination, baseTable, keys?.origin, descriptor))
        }
        for condition in descriptor.conditions {
            sql += " AND (" + condition + ")"
        }
        return sql
    }

    /// The correlated subquery of a count or aggregate of associated rows.
    private func subquery(_ annotation: AnnotationPart, _ resolve: KeyResolver?) throws -> SQL {
        let descriptor = annotation.descriptor
        let keys = try resolve?(descriptor)
        var text =
            "(SELECT " + annotation.expression + " FROM " + SQL.quote(identifier: descriptor.destinationTable)
            + " AS " + descriptor.alias
        if let pivot = descriptor.pivot {
            text +=
                " JOIN " + SQL.quote(identifier: pivot.table) + " AS " + descriptor.pivotAlias + " ON "
                + Self.equal(
                    descriptor.alias, keys?.destination, descriptor.pivotAlias, keys?.pivotDestination, descriptor)
                + " WHERE "
                + Self.equal(descriptor.pivotAlias, keys?.pivotOrigin, baseTable, keys?.origin, descriptor)
        } else {
            text += " WHERE " + Self.equal(descriptor.alias, keys?.destination, baseTable, keys?.origin, descriptor)
        }
        var sql = SQL(text: text)
        for condition in descriptor.conditions {
            sql += " AND (" + condition + ")"
        }
        return sql + ")"
    }

    /// Throws when two associations of the request have the same key (the same alias).
    private func checkKeys() throws {
        var seen = Set<FoldedIdentifier>()
        for part in associations {
            guard seen.insert(FoldedIdentifier(part.descriptor.key)).inserted else {
                throw AssociationError.duplicateKey(association: part.descriptor.key)
            }
        }
    }

    /// Keys that print as a placeholder, for a request printed without a connection.
    private func placeholderKeys(_ descriptor: AssociationDescriptor) -> JoinKeys {
        JoinKeys(origin: ["<key of \(descriptor.key)>"], destination: [])
    }

    /// `"a"."x" = "b"."y" AND …`, or a placeholder naming the tables when the keys are not known.
    static func equal(
        _ left: String, _ leftColumns: [String]?, _ right: String, _ rightColumns: [String]?,
        _ descriptor: AssociationDescriptor
    ) -> String {
        guard let leftColumns, let rightColumns else {
            return "<keys of \(left) and \(right)>"
        }
        return zip(leftColumns, rightColumns).map { leftColumn, rightColumn in
            left + "." + SQL.quote(identifier: leftColumn) + " = " + right + "." + SQL.quote(identifier: rightColumn)
        }.joined(separator: " AND ")
    }

    /// The conditions AND-ed, each in parentheses when there are several.
    static func conjunction(_ conditions: [SQL]) -> SQL {
        guard conditions.count > 1 else { return conditions[0] }
        var sql = SQL(text: "")
        for (index, condition) in conditions.enumerated() {
            sql += (index == 0 ? "(" : " AND (") + condition + ")"
        }
        return sql
    }

    /// The fragments separated by commas.
    static func list(_ fragments: [SQL]) -> SQL {
        var sql = SQL(text: "")
        for (index, fragment) in fragments.enumerated() {
            sql += index == 0 ? fragment : ", " + fragment
        }
        return sql
    }
}
