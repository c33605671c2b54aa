import Foundation

/// A resolver closure with its record type erased: it decodes the three versions of a row into the
/// record type, calls the closure, and turns its answer into what the merge does.
struct AnySyncResolver: Sendable {
    /// The resolver's answer, with a merged record ready to write.
    enum Decision {
        case keepLocal
        case keepRemote
        case delete
        /// Writes the merged record (an upsert of the record type).
        case merged((Connection) throws -> Void)
    }

    /// The three versions of a row, as column values in the table's column order (nil: no row).
    struct Versions {
        var table: String
        var columns: [String]
        /// For each column, whether it belongs to the primary key.
        var primaryKey: [Bool]
        var key: [SQLiteValue]
        var base: [SQLiteValue]?
        var local: [SQLiteValue]?
        var remote: [SQLiteValue]?
    }

    private let resolve: @Sendable (Versions, Connection) throws -> Decision
    /// The record type's name, for errors.
    let recordType: String
    /// The record type's table (``Record/tableName``), which a merged record is written to.
    let recordTable: String

    init<T: Record>(
        _ type: T.Type, _ resolver: @escaping @Sendable (SyncConflict<T>) throws -> SyncResolution<T>
    ) {
        recordType = String(describing: T.self)
        recordTable = T.tableName
        resolve = { versions, connection in
            func decode(_ values: [SQLiteValue]?) throws -> T? {
                guard let values else { return nil }
                let selections = versions.columns.map { "? AS \(SQL.quote(identifier: $0))" }
                let sql = SQL(text: "SELECT " + selections.joined(separator: ", "), values: values)
                return try connection.fetchOne(T.self, sql: sql)
            }
            let conflict = SyncConflict<T>(
                table: versions.table, key: versions.key, base: try decode(versions.base),
                local: try decode(versions.local), remote: try decode(versions.remote))
            switch try resolver(conflict) {
            case .keepLocal: return .keepLocal
            case .keepRemote: return .keepRemote
            case .delete: return .delete
            case .merged(let record):
                // The merged record must be the conflict's row: another key would write another row.
                // Columns named as SQLite names them (ASCII case folded only): "É" and "é" are two.
                let keyColumns = zip(versions.columns, versions.primaryKey).filter(\.1).map { FoldedIdentifier($0.0) }
                let expected = Dictionary(zip(keyColumns, versions.key), uniquingKeysWith: { a, _ in a })
                let values = try connection.primaryKeyValues(of: record)
                let given = Dictionary(
                    T.primaryKey.map(FoldedIdentifier.init).enumerated().map { ($1, values[$0]) },
                    uniquingKeysWith: { a, _ in a })
                guard given == expected else {
                    throw SyncError.cannotApply(
                        sequence: nil, table: versions.table, key: SyncState.describe(versions.key),
                        reason: "the resolver's merged record has the key \(SyncState.describe(values)), not the row's")
                }
                return .merged { try $0.upsert(record) }
            }
        }
    }

    func decide(_ versions: Versions, on connection: Connection) throws -> Decision {
        try resolve(versions, connection)
    }
}
