import CSQLite
import Foundation

/// Fetches the rows of a to-many association for all the keys of a request's rows at once.
protocol ToManyLoading: Sendable {
    /// The associated rows of the parents whose keys are `parentKeys` (each as many values as the
    /// association's key has columns), grouped by key, read from column `keyColumn` on of each
    /// parent row.
    func load(
        _ descriptor: AssociationDescriptor, keys: JoinKeys, parentKeys: Set<[SQLiteValue]>, keyColumn: Int32,
        on conn: Connection
    ) throws -> any PrefetchedValues
}

/// Fetches the records of a to-many association of `Destination`.
struct ToManyLoader<Destination: Record>: ToManyLoading {
    func load(
        _ descriptor: AssociationDescriptor, keys: JoinKeys, parentKeys: Set<[SQLiteValue]>, keyColumn: Int32,
        on conn: Connection
    ) throws -> any PrefetchedValues {
        let groups = ToManyGroups<Destination>(
            association: descriptor.key, keyColumns: keys.origin, keyColumn: keyColumn)
        guard !parentKeys.isEmpty else { return groups }
        let linkColumns =
            descriptor.pivot == nil
            ? keys.destination.map { descriptor.alias + "." + SQL.quote(identifier: $0) }
            : keys.pivotOrigin.map { descriptor.pivotAlias + "." + SQL.quote(identifier: $0) }
        var head = "SELECT " + descriptor.alias + ".*"
        for (index, column) in linkColumns.enumerated() {
            head += ", " + column + " AS " + SQL.quote(identifier: "bindery.key.\(index)")
        }
        head += " FROM " + SQL.quote(identifier: descriptor.destinationTable) + " AS " + descriptor.alias
        if let pivot = descriptor.pivot {
            head +=
                " JOIN " + SQL.quote(identifier: pivot.table) + " AS " + descriptor.pivotAlias + " ON "
                + QueryRequest<Destination>.equal(
                    descriptor.alias, keys.destination, descriptor.pivotAlias, keys.pivotDestination, descriptor)
        }
        head += " WHERE "
        let all = Array(parentKeys)
        groups.prepare(all)
        // One list for a one-column key (bound as one JSON array past 999 values); tuples for a
        // composite key, in as few statements as SQLite's parameter limit allows.
        let chunkSize = linkColumns.count == 1 ? all.count : Swift.max(1, SQL.listParameterLimit / linkColumns.count)
        var start = 0
        while start < all.count {
            let chunk = all[start..<Swift.min(start + chunkSize, all.count)]
            start += chunk.count
            var sql = SQL(text: head)
            if linkColumns.count == 1 {
                sql += SQL(text: linkColumns[0] + " IN ") + "\(list: chunk.map { $0[0] })"
            } else {
                var tuples = "(" + linkColumns.joined(separator: ", ") + ") IN (VALUES "
                var values: [any Encodable & Sendable] = []
                for (index, key) in chunk.enumerated() {
                    tuples += (index == 0 ? "(" : ", (") + key.map { _ in "?" }.joined(separator: ", ") + ")"
                    values += key.map { $0 as any Encodable & Sendable }
                }
                sql += SQL(text: tuples + ")", values: values)
            }
            for condition in descriptor.conditions {
                sql += " AND (" + condition + ")"
            }
            if !descriptor.orderings.isEmpty {
                sql += " ORDER BY " + QueryRequest<Destination>.list(descriptor.orderings)
            }
            try groups.add(conn, sql, keyCount: linkColumns.count)
        }
        return groups
    }
}

/// The records of a to-many association, grouped by the key of the row they belong to.
final class ToManyGroups<Destination: Record>: PrefetchedValues, CustomStringConvertible {
    let association: String
    /// The parent's key columns, for errors.
    let keyColumns: [String]
    /// The first of the parent row's key columns.
    let keyColumn: Int32
    private var single: [SQLiteValue: [Destination]] = [:]
    private var composite: [[SQLiteValue]: [Destination]] = [:]

    init(association: String, keyColumns: [String], keyColumn: Int32) {
        self.association = association
        self.keyColumns = keyColumns
        self.keyColumn = keyColumn
    }

    /// Makes an empty group for each of `keys`: a record whose key has no group belongs to no parent.
    func prepare(_ keys: [[SQLiteValue]]) {
        if keyColumns.count == 1 {
            single.reserveCapacity(keys.count)
            for key in keys { single[key[0]] = [] }
        } else {
            composite.reserveCapacity(keys.count)
            for key in keys { composite[key] = [] }
        }
    }

    /// Runs `sql`, whose last `keyCount` columns are each row's key, and adds its records to the
    /// groups of their keys.
    func add(_ conn: Connection, _ sql: SQL, keyCount: Int) throws {
        let options = conn.recordContext.options
        try conn.withBoundStatement(sql) { statement in
            guard try statement.step() else { return }
            let decoder = RowDecoder.attached(
                to: statement, options: options, for: Destination.self, scoping: conn.recordContext.scoping)
            let first = statement.columnCount - Int32(keyCount)
            repeat {
                let record = try decoder.decodeRow(Destination.self)
                // One hash per record: the group is found and appended to in place.
                if keyCount == 1 {
                    let key = try statement.value(at: first)
                    guard let index = single.index(forKey: key) else { throw mismatch(key) }
                    single.values[index].append(record)
                } else {
                    let key = try (0..<Int32(keyCount)).map { try statement.value(at: first + $0) }
                    guard let index = composite.index(forKey: key) else { throw mismatch(.text("\(key)")) }
                    composite.values[index].append(record)
                }
            } while try statement.step()
        }
    }

    private func mismatch(_ value: SQLiteValue) -> AssociationError {
        let keys = keyColumns.count == 1 ? Array(single.keys) : composite.keys.flatMap { $0 }
        let types = Set(keys.map(\.typeName)).sorted().joined(separator: ", ")
        return AssociationError.keyTypeMismatch(
            association: association, column: keyColumns.joined(separator: ", "),
            value: "\(value.typeName) \(value)", expected: "of type \(types)")
    }

    /// The records of the current row of `statement`, as a `T` (an array of `Destination`).
    func value<T>(_ type: T.Type, row statement: OpaquePointer) throws -> T? {
        let records: [Destination]
        if keyColumns.count == 1 {
            records = single[try Self.value(statement, keyColumn)] ?? []
        } else {
            let key = try (0..<Int32(keyColumns.count)).map { try Self.value(statement, keyColumn + $0) }
            records = composite[key] ?? []
        }
        if T.self == [Destination].self {
            return unsafeBitCast(records, to: T.self)
        }
        return records as? T
    }

    /// `[Destination]`, for errors.
    var description: String { "[\(Destination.self)]" }

    /// The value in column `index` of the current row.
    private static func value(_ statement: OpaquePointer, _ index: Int32) throws -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let bytes = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }
}
