import CSQLite

/// The key columns of associations, read from the schema's foreign keys where not given.
extension Connection {
    /// What a request's SQL reads from this connection's schema.
    var requestSchema: RequestSchema {
        let options = codingOptions
        return RequestSchema(
            keys: { descriptor in try self.joinKeys(descriptor) },
            collation: { table, column in self.columnCollation(table: table, column: column) },
            selectionWidth: { descriptor in try self.selectionWidth(descriptor) },
            tableColumns: { table in try self.selectedColumns(of: table) }, connection: self,
            columnName: { key in options.columnName(forKey: key) },
            rowidForNullableKey: { table, key in try self.rowidForNullableKey(table: table, key: key) })
    }

    /// How many columns the selection of `descriptor` has: those of `SELECT <selection> FROM <its table>`,
    /// prepared (from the statement cache) but not run.
    func selectionWidth(_ descriptor: AssociationDescriptor) throws -> Int? {
        guard let selection = descriptor.selection else { return nil }
        let text =
            "SELECT " + selection.text + " FROM " + SQL.quote(identifier: descriptor.destinationTable) + " AS "
            + descriptor.alias
        return try withStatement(text) { Int($0.columnCount) }
    }

    /// The collation of `column` of `table` (`BINARY`, `NOCASE` …); nil when there is no such column
    /// (the statement that names it then fails, naming it).
    func columnCollation(table: String, column: String) -> String? {
        SQLiteMemory.collation(ofColumn: column, table: table, in: handle)
    }

    /// The key columns of `descriptor` on this connection's schema.
    func joinKeys(_ descriptor: AssociationDescriptor) throws -> JoinKeys {
        switch descriptor.kind {
        case .belongsTo:
            let key = try foreignKey(
                descriptor, holder: descriptor.originTable, referenced: descriptor.destinationTable,
                referencedPrimaryKey: descriptor.destinationPrimaryKey, given: descriptor.foreignKey)
            return JoinKeys(origin: key.columns, destination: key.referenced)
        case .hasOne, .hasMany:
            let key = try foreignKey(
                descriptor, holder: descriptor.destinationTable, referenced: descriptor.originTable,
                referencedPrimaryKey: descriptor.originPrimaryKey, given: descriptor.foreignKey)
            return JoinKeys(origin: key.referenced, destination: key.columns)
        case .hasManyThrough, .hasOneThrough:
            guard let pivot = descriptor.pivot else {
                throw AssociationError.noForeignKey(from: descriptor.originTable, to: descriptor.destinationTable)
            }
            if let steps = pivot.steps {
                guard steps.first.pivot == nil, steps.second.pivot == nil else {
                    throw AssociationError.invalidThrough(
                        association: descriptor.key,
                        reason: "goes through an association that goes through another: declare it through"
                            + " associations that each link two tables")
                }
                guard steps.first.children.isEmpty, steps.second.children.isEmpty else {
                    throw AssociationError.invalidThrough(
                        association: descriptor.key,
                        reason: "goes through an association that includes or joins others: include them in"
                            + " the request, or in the association itself")
                }
                return JoinKeys(through: try joinKeys(steps.first), try joinKeys(steps.second))
            }
            let toOrigin = try foreignKey(
                descriptor, holder: pivot.table, referenced: descriptor.originTable,
                referencedPrimaryKey: descriptor.originPrimaryKey, given: pivot.originKey)
            let toDestination = try foreignKey(
                descriptor, holder: pivot.table, referenced: descriptor.destinationTable,
                referencedPrimaryKey: descriptor.destinationPrimaryKey, given: pivot.destinationKey)
            return JoinKeys(
                origin: toOrigin.referenced, destination: toDestination.referenced, pivotOrigin: toOrigin.columns,
                pivotDestination: toDestination.columns)
        }
    }

    /// The columns of `holder` that refer to `referenced`, and the columns they refer to: as given,
    /// or the one foreign key of `holder` to `referenced` in the schema.
    private func foreignKey(
        _ descriptor: AssociationDescriptor, holder: String, referenced: String, referencedPrimaryKey: [String],
        given: ForeignKey?
    ) throws -> (columns: [String], referenced: [String]) {
        if let given {
            let target = given.referencedColumns ?? referencedPrimaryKey
            guard target.count == given.columns.count, !target.isEmpty else {
                throw AssociationError.keyMismatch(
                    association: descriptor.key, columns: given.columns, referenced: target)
            }
            return (given.columns, target)
        }
        let rows = try rows(
            """
            SELECT id, "from", "to" FROM pragma_foreign_key_list(?)
            WHERE "table" = ? COLLATE NOCASE ORDER BY id, seq
            """,
            arguments: [.text(holder), .text(referenced)])
        var ids: [Int64] = []
        var columns: [String] = []
        var targets: [String?] = []
        for row in rows {
            let id: Int64 = try row[0]
            if !ids.contains(id) { ids.append(id) }
            columns.append(try row[1])
            targets.append(try row[2])
        }
        guard !ids.isEmpty else { throw AssociationError.noForeignKey(from: holder, to: referenced) }
        guard ids.count == 1 else {
            throw AssociationError.ambiguousForeignKey(from: holder, to: referenced, count: ids.count)
        }
        // A REFERENCES clause without columns refers to the primary key.
        let target = targets.contains(nil) ? referencedPrimaryKey : targets.compactMap { $0 }
        guard target.count == columns.count else {
            throw AssociationError.keyMismatch(association: descriptor.key, columns: columns, referenced: target)
        }
        return (columns, target)
    }
}
