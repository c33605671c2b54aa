/// The schema of a database as `sqlite_schema` lists it (tables, indexes, views and triggers with
/// their SQL), leaving out SQLite's own objects and the migration bookkeeping table: what
/// ``Migrator/eraseDatabaseOnSchemaChange`` compares.
struct SchemaSnapshot: Equatable {
    /// One schema object.
    struct Object: Equatable {
        /// `table`, `index`, `view` or `trigger`.
        var type: String
        /// The object's name.
        var name: String
        /// The table the object belongs to (its own name for a table or view).
        var tableName: String
        /// The SQL that created it, as SQLite keeps it; nil for an automatic index.
        var sql: String?
    }

    /// The objects, ordered by name.
    var objects: [Object]

    /// Reads the schema of the main database of `connection`.
    init(reading connection: Connection) throws {
        let rows = try connection.rows(
            """
            SELECT type, name, tbl_name, sql FROM sqlite_schema
            WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND NOT (name = ? COLLATE NOCASE)
            ORDER BY name
            """,
            arguments: [.text(MigrationLedger.tableName)])
        objects = try rows.map { row in
            Object(type: try row[0], name: try row[1], tableName: try row[2], sql: try row[3])
        }
    }

    /// Drops every object of the snapshot from `connection`, and the migration bookkeeping table:
    /// the database is left empty. Run it in a transaction with foreign keys off.
    func dropAll(in connection: Connection) throws {
        // Triggers and views first, then virtual tables (which drop their shadow tables), then the
        // rest; dropping a table drops its indexes and triggers, hence IF EXISTS.
        func rank(_ object: Object) -> Int {
            switch object.type {
            case "trigger": return 0
            case "view": return 1
            case "table" where object.sql?.uppercased().hasPrefix("CREATE VIRTUAL") == true: return 2
            case "table": return 3
            default: return 4
            }
        }
        for object in objects.sorted(by: { rank($0) < rank($1) }) {
            let keyword: String
            switch object.type {
            case "trigger": keyword = "TRIGGER"
            case "view": keyword = "VIEW"
            case "index": keyword = "INDEX"
            default: keyword = "TABLE"
            }
            try connection.execute(script: "DROP \(keyword) IF EXISTS \(SQL.quote(identifier: object.name))")
        }
        try connection.execute(script: "DROP TABLE IF EXISTS \(MigrationLedger.tableName)")
    }
}
