/// Freezing a record type's table into a migration.
extension Connection {
    /// Swift code that creates the table of record type `T` with the table builder, as the type is
    /// now: print it once (from a test or a scratch script) and paste it into a migration, which
    /// then holds the schema as it was, whatever the struct becomes.
    ///
    /// ```swift
    /// print(try conn.createTableCode(for: Student.self))
    /// // try conn.create(table: "students") { t in
    /// //     t.column("id", .integer).primaryKey()
    /// //     t.column("name", .text).notNull()
    /// // }
    /// ```
    ///
    /// The columns are those of ``createTable(for:ifNotExists:)``, read by the same schema probe
    /// (so the connection's ``codingOptions`` name them); ``createTableSQL(for:ifNotExists:)`` gives
    /// the same table as SQL.
    public func createTableCode<T: Record>(for type: T.Type) throws -> String {
        let columns = try probeColumns(of: T.self)
        let key = T.primaryKey
        for name in key where !columns.contains(where: { $0.name.equalsIdentifier(name) }) {
            throw SchemaError.unreadableType(
                String(describing: T.self),
                reason: "its primary-key column \"\(name)\" is not one of its columns "
                    + "(\(columns.map(\.name).joined(separator: ", ")))")
        }
        let integerKey =
            key.count == 1 && columns.contains { $0.name.equalsIdentifier(key[0]) && $0.type == "INTEGER" }
        var lines = ["try conn.create(table: \(Self.swiftLiteral(T.tableName))) { t in"]
        for column in columns {
            var line = "    t.column(\(Self.swiftLiteral(column.name))"
            switch column.type {
            case "": break
            case "INTEGER": line += ", .integer"
            case "TEXT": line += ", .text"
            case "REAL": line += ", .real"
            case "BLOB": line += ", .blob"
            case "NUMERIC": line += ", .numeric"
            default: line += ", \(Self.swiftLiteral(column.type))"
            }
            line += ")"
            let isKey = key.contains { $0.equalsIdentifier(column.name) }
            if isKey && key.count == 1 {
                line += integerKey ? ".primaryKey()" : ".primaryKey().notNull()"
            } else if column.notNull || isKey {
                line += ".notNull()"
            }
            lines.append(line)
        }
        if key.count > 1 {
            lines.append("    t.primaryKey([\(key.map(Self.swiftLiteral).joined(separator: ", "))])")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// `text` as a Swift string literal.
    private static func swiftLiteral(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\r": literal += "\\r"
            case "\t": literal += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                literal += "\\u{\(String(scalar.value, radix: 16))}"
            default: literal.unicodeScalars.append(scalar)
            }
        }
        return literal + "\""
    }
}
