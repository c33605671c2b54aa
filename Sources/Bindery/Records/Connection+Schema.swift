/// Creating a record type's table from its properties.
extension Connection {
    /// Creates the table of record type `T` from its properties: a column per coding key (named after
    /// the key strategy), with the SQL type of its Swift type, NOT NULL unless it is optional, and the
    /// type's primary key (`INTEGER PRIMARY KEY` for a single integer key, so that a nil id is assigned
    /// by SQLite).
    ///
    /// ```swift
    /// try conn.createTable(for: Student.self)
    /// ```
    ///
    /// The columns are read by decoding a placeholder value. The placeholders tried are the empty and
    /// zero values (`""`, `0`, `0.0`, `false`, empty `Data`, the 1970 date), then `"x"`, `1`, `1.0`,
    /// `true` (one byte, one day after 1970, …). A nested type that validates in `init(from:)` gets
    /// its column when it accepts one of them; one that rejects them all is answered with its
    /// ``SchemaPlaceholder``, its first case when it is `CaseIterable`, or the first case of an enum
    /// without associated values, and its column type is the one its `init(from:)` read before
    /// throwing. A struct or an enum with associated values that rejects every placeholder throws
    /// ``SchemaError/unreadableType(_:reason:)`` naming the property unless it declares a
    /// ``SchemaPlaceholder``; or create that table with SQL.
    public func createTable<T: Record>(for type: T.Type, ifNotExists: Bool = false) throws {
        try execute(script: try createTableSQL(for: T.self, ifNotExists: ifNotExists))
    }

    /// The `CREATE TABLE` statement that ``createTable(for:ifNotExists:)`` runs.
    public func createTableSQL<T: Record>(for type: T.Type, ifNotExists: Bool = false) throws -> String {
        let columns = try probeColumns(of: T.self)
        let key = T.primaryKey
        let keyColumns = try key.map { name -> SchemaProbe.Column in
            guard let column = columns.first(where: { $0.name.equalsIdentifier(name) }) else {
                throw SchemaError.unreadableType(
                    String(describing: T.self),
                    reason: "its primary-key column \"\(name)\" is not one of its columns "
                        + "(\(columns.map(\.name).joined(separator: ", ")))")
            }
            return column
        }
        let integerKey = keyColumns.count == 1 && keyColumns[0].type == "INTEGER"
        var definitions: [String] = columns.map { column in
            var definition = SQL.quote(identifier: column.name)
            if !column.type.isEmpty {
                definition += " " + column.type
            }
            let isKey = key.contains { $0.equalsIdentifier(column.name) }
            if isKey && key.count == 1 {
                definition += integerKey ? " PRIMARY KEY" : " NOT NULL PRIMARY KEY"
            } else if column.notNull || isKey {
                definition += " NOT NULL"
            }
            return definition
        }
        if key.count > 1 {
            definitions.append("PRIMARY KEY (\(key.map(SQL.quote(identifier:)).joined(separator: ", ")))")
        }
        let table = SQL.quote(identifier: T.tableName)
        return "CREATE TABLE \(ifNotExists ? "IF NOT EXISTS " : "")\(table) (\(definitions.joined(separator: ", ")))"
    }

    /// The columns of a `Decodable` type as the schema probe reads them.
    func probeColumns<T: Decodable>(of type: T.Type) throws -> [SchemaProbe.Column] {
        do {
            return try SchemaProbe.columns(of: T.self, options: recordContext.options)
        } catch let failure as SchemaProbe.Failure {
            throw SchemaError.unreadableType(String(describing: T.self), reason: failure.description)
        }
    }
}
