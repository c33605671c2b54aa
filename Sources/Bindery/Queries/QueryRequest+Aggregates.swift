/// Conditions on aggregates of associations, and annotations of expressions.
extension QueryRequest {
    /// Only the rows whose aggregates of associated rows meet `condition`, each row's aggregates
    /// computed by subqueries of their own (`WHERE`); several filters AND together.
    ///
    /// ```swift
    /// let prolific = Author.all().filter(Author.books.count >= 3)
    /// ```
    public func filter(_ condition: AggregateCondition<Base>) -> QueryRequest {
        var request = self
        request.aggregateFilters.append(condition.formula)
        return request
    }

    /// Only the groups whose aggregates of associated rows meet `condition` (`HAVING`), in a request
    /// that groups its rows (`group`, a `having` of ``SQL``, or an aggregate in its selection), each
    /// aggregate over the associated rows of all the group's rows, as ``annotated(with:)`` computes it;
    /// in any other request each row is its own group, and `condition` tests each row as
    /// ``filter(_:)-(AggregateCondition<Base>)`` does. Several AND together.
    ///
    /// ```swift
    /// let prolific = Author.having(Author.books.count >= 3)
    /// let countries = Author.all().select("country").group("country").having(Author.books.count >= 10)
    /// ```
    ///
    /// A request that groups its rows and joins a to-many association throws
    /// ``AssociationError/annotationOfGroupedJoin(annotation:association:)``, as its annotations do.
    public func having(_ condition: AggregateCondition<Base>) -> QueryRequest {
        var request = self
        request.aggregateHavings.append(condition.formula)
        return request
    }

    /// Selects `expression`, an SQL expression of the request's row (its values bound), into the
    /// column `key` after the request's columns: a property of the struct the rows decode into, beside
    /// the record's and those of the other annotations.
    ///
    /// ```swift
    /// struct BookInfo: Decodable, Sendable { var book: Book; var doublePages: Int }
    /// let infos = try conn.fetchAll(
    ///     BookInfo.self, Book.all().annotated(with: "\(Column("pages")) * \(2)", as: "doublePages"))
    /// ```
    ///
    /// The column is the one `key` names under the connection's ``CodingOptions/keyStrategy``
    /// (`double_pages` with `.snakeCase`), which the property reads, quoted. A key whose column another
    /// annotation has, or is a column of the table (when the request selects all of them), throws ``RequestError/annotationKeyClash(key:other:)``; an
    /// empty one ``RequestError/annotationWithoutKey(annotation:)``. An expression that calls an
    /// aggregate function (`count(*)`) makes the request aggregate its rows, as such a selection does.
    public func annotated(with expression: SQL, as key: String) -> QueryRequest {
        var request = self
        request.annotations.append(AnnotationPart(key: key, value: .expression(expression)))
        return request
    }

    /// The request's `WHERE` conditions: its own, those of its key filters (their values as given:
    /// a connection checks them first, see ``Connection/resolvingKeyFilters(_:)``), and its conditions
    /// on aggregates tested on each row.
    func allConditions(_ resolve: KeyResolver) throws -> [SQL] {
        guard let extras,
            !extras.keyFilters.isEmpty || !extras.aggregateFilters.isEmpty || !extras.aggregateHavings.isEmpty
        else { return conditions }
        var all = conditions + (try uncheckedKeyConditions())
        let perRow = aggregatesRows ? aggregateFilters : aggregateFilters + aggregateHavings
        for formula in perRow {
            all.append(try aggregateSQL(formula, grouped: false, resolve))
        }
        return all
    }

    /// The request's `HAVING` conditions: its own, and, when it groups its rows, its conditions on
    /// aggregates given to ``having(_:)-(AggregateCondition<Base>)``.
    func allHavingConditions(_ resolve: KeyResolver) throws -> [SQL] {
        guard let extras, !extras.aggregateHavings.isEmpty, aggregatesRows else { return havingConditions }
        try checkGroupedJoins(aggregateHavings[0].summary)
        return havingConditions + (try aggregateHavings.map { try aggregateSQL($0, grouped: true, resolve) })
    }

    /// Throws when an annotation has no key, two have the same column, or one has the name of a column
    /// of the table (read from the schema when the request selects every column and has an annotation
    /// of an expression). An annotation's column is the one its key names under the connection's key
    /// strategy (``RequestSchema/columnName``), the column its property reads.
    func checkAnnotationKeys(_ resolve: KeyResolver) throws {
        var columns = Set<FoldedIdentifier>()
        for annotation in annotations {
            guard !annotation.key.isEmpty else {
                let shown: String
                switch annotation.value {
                case .aggregate(let formula): shown = formula.summary
                case .expression(let expression): shown = expression.text
                }
                throw RequestError.annotationWithoutKey(annotation: shown)
            }
            guard columns.insert(FoldedIdentifier(resolve.columnName(annotation.key))).inserted else {
                throw RequestError.annotationKeyClash(key: annotation.key, other: "another annotation")
            }
        }
        let hasExpression = annotations.contains { $0.formula == nil }
        guard selection == nil, hasExpression, let tableColumns = try resolve.tableColumns(Base.tableName) else {
            return
        }
        for column in tableColumns {
            let clashing = annotations.first { annotation in
                FoldedIdentifier(resolve.columnName(annotation.key)) == FoldedIdentifier(column)
            }
            if let annotation = clashing {
                throw RequestError.annotationKeyClash(
                    key: annotation.key,
                    other: "the column " + SQL.quote(identifier: column) + " of "
                        + SQL.quote(identifier: Base.tableName))
            }
        }
    }
}

extension Record {
    /// A request for every row with the aggregates selected: `Author.annotated(with: …)` is
    /// `Author.all().annotated(with: …)`.
    public static func annotated(with aggregates: AssociationAggregate<Self>...) -> QueryRequest<Self> {
        var request = all()
        request.annotations += aggregates.map { AnnotationPart(key: $0.key, value: .aggregate($0.formula)) }
        return request
    }

    /// A request for every row with `expression` selected into the column `key`.
    public static func annotated(with expression: SQL, as key: String) -> QueryRequest<Self> {
        all().annotated(with: expression, as: key)
    }

    /// A request for the rows whose aggregates of associated rows meet `condition`.
    public static func filter(_ condition: AggregateCondition<Self>) -> QueryRequest<Self> {
        all().filter(condition)
    }

    /// A request for the rows whose aggregates of associated rows meet `condition`: each row is its
    /// own group (see ``QueryRequest/having(_:)-(AggregateCondition<Base>)``).
    public static func having(_ condition: AggregateCondition<Self>) -> QueryRequest<Self> {
        all().having(condition)
    }
}
