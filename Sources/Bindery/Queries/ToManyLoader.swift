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
///
/// The parents' keys are bound in a `VALUES` table joined to the associated rows, each with its
/// position: `JOIN (VALUES (0, ?), (1, ?), …) AS "bindery.keys" ON "orders"."CustomerID" =
/// "bindery.keys".column2`. SQLite compares them as it compares any key, by the key column's collation
/// (`NOCASE`, `RTRIM`) and affinity (an INTEGER key column against the text `'1'`), and reports with
/// each row the position of the key it matched: a row is grouped with the parents whose key SQLite
/// matched, never by a second comparison in Swift that could disagree. The keys go in statements of
/// at most as many parameters as the connection's `SQLITE_LIMIT_VARIABLE_NUMBER` allows, whatever
/// their type (BLOB keys too), padded with NULL keys (which match nothing) to a power of two so that
/// few distinct statements are prepared.
///
/// That join costs SQLite an automatic index over the whole associated table when its key column has
/// no index of its own (2.3 times the `IN (…)` list on Northwind's orders). So where a second comparison
/// in Swift cannot disagree with SQLite's, the rows are first fetched with `key IN (…)` and grouped by
/// exact value: every key column compares with `BINARY`, and the parents' values of each key column
/// are of one storage class, so that no two parent keys can match one row. A row whose key is not
/// exactly one of the parents' (SQLite converted it by the column's affinity) ends that attempt, and
/// the join runs instead.
struct ToManyLoader<Destination: Record>: ToManyLoading {
    func load(
        _ descriptor: AssociationDescriptor, keys: JoinKeys, parentKeys: Set<[SQLiteValue]>, keyColumn: Int32,
        on conn: Connection
    ) throws -> any PrefetchedValues {
        let load = try ToManyLoad<Destination>(
            descriptor: descriptor, keys: keys, parentKeys: Array(parentKeys), keyColumn: keyColumn, on: conn)
        guard load.layout.isEmpty, descriptor.selection == nil else {
            // The records include associations of their own, or are a selection of columns: decoded as
            // the property's element type (`[BookInfo]`), known only when the first row asks for it.
            return DeferredToManyGroups(load, on: conn)
        }
        return try load.run(Destination.self, on: conn)
    }
}

/// The rows of one to-many association to fetch for its parents' keys (see ``ToManyLoader``), decoded
/// as any `Decodable` element: the destination record, or a struct of it and what it includes: the
/// records of to-one associations, which the same statements join, and of to-many ones, which one
/// more query a statement fetches (the rows are then read twice, as a request's are).
struct ToManyLoad<Destination: Record> {
    let descriptor: AssociationDescriptor
    let keys: JoinKeys
    let parentKeys: [[SQLiteValue]]
    let keyColumn: Int32
    /// What the rows select for the associations the association includes.
    let layout: AssociationLayout

    init(
        descriptor: AssociationDescriptor, keys: JoinKeys, parentKeys: [[SQLiteValue]], keyColumn: Int32,
        on conn: Connection
    ) throws {
        self.descriptor = descriptor
        self.keys = keys
        self.parentKeys = parentKeys
        self.keyColumn = keyColumn
        self.layout = try AssociationLayout(descriptor.children, parentAlias: descriptor.alias, conn.requestSchema)
    }

    /// Fetches the rows, each decoded as an `Element`, grouped by the parents' keys.
    func run<Element: Decodable>(_ type: Element.Type, on conn: Connection) throws -> ToManyGroups<Element> {
        let nestedKeys = try layout.keyColumns(conn.requestSchema)
        let nestedColumns = nestedKeys.sql + layout.scopedColumns
        let nesting = ToManyNesting(
            scopes: layout.scopes, width: try nestedWidth(on: conn), keyCount: Int32(nestedKeys.count),
            steps: Array(zip(layout.toMany, nestedKeys.keys)))
        let groups = ToManyGroups<Element>(
            association: descriptor.key, keyColumns: keys.origin, keyColumn: keyColumn,
            nested: layout.isEmpty ? nil : nesting)
        guard !parentKeys.isEmpty else { return groups }
        // The columns that hold the parent's key: the associated table's, or the join table's.
        let links =
            descriptor.pivot == nil
            ? keys.destination.map { descriptor.alias + "." + SQL.quote(identifier: $0) }
            : keys.pivotOrigin.map { descriptor.pivotAlias + "." + SQL.quote(identifier: $0) }
        let valuesAlias = SQL.quote(identifier: "bindery.keys")
        let select =
            SQL(text: "SELECT ") + descriptor.selectedColumns
            + SQL(text: ", " + valuesAlias + ".column1 AS " + SQL.quote(identifier: "bindery.key")) + nestedColumns
        let from = try fromClause(conn)
        // The key column on the left: its collation decides, as in `key IN (…)`.
        let on = links.enumerated().map { index, column in "\(column) = \(valuesAlias).column\(index + 2)" }
            .joined(separator: " AND ")
        var tail = SQL(text: "")
        for (index, condition) in descriptor.conditions.enumerated() {
            tail += (index == 0 ? " WHERE (" : " AND (") + condition + ")"
        }
        let orderings = descriptor.orderings + QueryRequest<Destination>.toOneOrderings(descriptor.children)
        if !orderings.isEmpty {
            tail += " ORDER BY " + QueryRequest<Destination>.list(orderings)
        }
        let all = parentKeys
        groups.prepare(all)
        let chunkSize = try Self.chunkSize(
            keyColumns: links.count,
            otherParameters: tail.valueCount + from.valueCount + nestedColumns.valueCount
                + (descriptor.selection?.valueCount ?? 0), on: conn,
            descriptor: descriptor)
        if try Self.groupsByExactValue(all, descriptor: descriptor, keys: keys, on: conn) {
            let grouped = try loadByValue(
                all, links: links, nestedColumns: nestedColumns, from: from, groups: groups,
                chunkSize: Swift.max(1, Swift.min(chunkSize, SQL.listParameterLimit / links.count)), on: conn)
            if grouped { return groups }
            groups.prepare(all)
        }
        var start = 0
        while start < all.count {
            let chunk = all[start..<Swift.min(start + chunkSize, all.count)]
            start += chunk.count
            var rows = 1
            while rows < chunk.count { rows <<= 1 }
            rows = Swift.min(rows, chunkSize)
            var text = " JOIN (VALUES "
            var values: [any Encodable & Sendable] = []
            values.reserveCapacity(rows * links.count)
            let placeholders = "?" + String(repeating: ", ?", count: links.count - 1)
            for row in 0..<rows {
                text += (row == 0 ? "(" : ", (") + String(row) + ", " + placeholders + ")"
                if row < chunk.count {
                    values += chunk[chunk.startIndex + row].map { $0 as any Encodable & Sendable }
                } else {
                    values += repeatElement(SQLiteValue.null as any Encodable & Sendable, count: links.count)
                }
            }
            text += ") AS " + valuesAlias + " ON " + on
            try groups.add(conn, select + from + SQL(text: text, values: values) + tail, groups: chunk.indices)
        }
        return groups
    }

    /// ` FROM "books" AS "books"`, the join table's join and the joins of the included associations.
    private func fromClause(_ conn: Connection) throws -> SQL {
        var from = SQL(
            text: " FROM " + SQL.quote(identifier: descriptor.destinationTable) + " AS " + descriptor.alias)
        if let pivot = descriptor.pivot {
            from += SQL(
                text: " JOIN " + SQL.quote(identifier: pivot.table) + " AS " + descriptor.pivotAlias + " ON "
                    + QueryRequest<Destination>.equal(
                        descriptor.alias, keys.destination, descriptor.pivotAlias, keys.pivotDestination, descriptor))
            from += QueryRequest<Destination>.pivotConditions(descriptor)
        }
        for child in descriptor.children where child.isJoined {
            from += try QueryRequest<Destination>.join(child, conn.requestSchema, parent: descriptor.alias)
        }
        return from
    }

    /// How many columns the included associations' scopes take.
    private func nestedWidth(on conn: Connection) throws -> Int32 {
        Int32(try layout.scopes.reduce(0) { $0 + (try conn.width(of: $1)) })
    }

    /// Whether rows can be grouped with their parents by exact value (see the type's comment): every
    /// key column compares with `BINARY`, and no key column holds NULL or values of two storage classes
    /// among the parents' keys.
    private static func groupsByExactValue(
        _ parentKeys: [[SQLiteValue]], descriptor: AssociationDescriptor, keys: JoinKeys, on conn: Connection
    ) throws -> Bool {
        let (table, columns) =
            descriptor.pivot.map { ($0.table, keys.pivotOrigin) } ?? (descriptor.destinationTable, keys.destination)
        for column in columns {
            guard let collation = conn.columnCollation(table: table, column: column),
                FoldedIdentifier.same(collation, "BINARY")
            else { return false }
        }
        guard let first = parentKeys.first else { return true }
        for index in first.indices {
            let typeName = first[index].typeName
            guard typeName != SQLiteValue.null.typeName,
                parentKeys.allSatisfy({ $0.count == first.count && $0[index].typeName == typeName })
            else { return false }
        }
        return true
    }

    /// Fetches the rows with `key IN (…)` and groups them by exact value; false, with the groups
    /// partly filled, when a row's key is none of the parents' keys exactly.
    private func loadByValue<Element>(
        _ all: [[SQLiteValue]], links: [String], nestedColumns: SQL, from: SQL, groups: ToManyGroups<Element>,
        chunkSize: Int, on conn: Connection
    ) throws -> Bool {
        var keyColumns = ""
        for (index, column) in links.enumerated() {
            keyColumns += ", " + column + " AS " + SQL.quote(identifier: "bindery.key.\(index)")
        }
        let select = SQL(text: "SELECT ") + descriptor.selectedColumns + SQL(text: keyColumns) + nestedColumns + from
        var start = 0
        while start < all.count {
            let chunk = all[start..<Swift.min(start + chunkSize, all.count)]
            start += chunk.count
            var sql = select + " WHERE "
            if links.count == 1 {
                sql += SQL(text: links[0] + " IN ") + "\(list: chunk.map { $0[0] })"
            } else {
                var tuples = "(" + links.joined(separator: ", ") + ") IN (VALUES "
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
            let orderings = descriptor.orderings + QueryRequest<Destination>.toOneOrderings(descriptor.children)
            if !orderings.isEmpty {
                sql += " ORDER BY " + QueryRequest<Destination>.list(orderings)
            }
            guard try groups.addByValue(conn, sql, keyCount: links.count, groups: chunk.indices) else { return false }
        }
        return true
    }

    /// How many keys one statement binds: as many as `SQLITE_LIMIT_VARIABLE_NUMBER` leaves after the
    /// association's own parameters, at most 4096. (With 32,766 rows of `VALUES`, SQLite 3.40 plans
    /// to scan an unindexed key column once per key instead of building an automatic index: 4096
    /// keeps well below that, and each statement builds its index once.)
    private static func chunkSize(
        keyColumns: Int, otherParameters: Int, on conn: Connection, descriptor: AssociationDescriptor
    ) throws -> Int {
        let limit = conn.parameterLimit
        let size = (limit - otherParameters) / Swift.max(1, keyColumns)
        guard size >= 1 else {
            throw AssociationError.tooManyParameters(
                association: descriptor.key, parameters: otherParameters + keyColumns, limit: limit)
        }
        return Swift.min(size, 4096)
    }
}

/// The records of a to-many association, grouped by the key of the row they belong to.
///
/// Each key has a group, found by its position in ``prepare(_:)``'s keys. A statement's records go into
/// one ``RecordBuffer`` with the group of each, and are moved into their groups' arrays once the
/// statement is done: appending row by row to an array of a generic `Destination` held in a dictionary
/// would look up the array's metadata on every row (callgrind, issue 39: 720 instructions a record of
/// the Northwind customers' orders).
final class ToManyGroups<Destination: Decodable>: PrefetchedValues, CustomStringConvertible {
    let association: String
    /// The parent's key columns, for errors.
    let keyColumns: [String]
    /// The first of the parent row's key columns.
    let keyColumn: Int32
    /// What each record includes (the rows' columns after its key); nil when it includes nothing.
    let nested: ToManyNesting?
    /// The group of each key, one-column keys and composite ones.
    private var single: [SQLiteValue: Int] = [:]
    private var composite: [[SQLiteValue]: Int] = [:]
    /// The group of each one-column key, found from the row's column itself; nil when the keys are not
    /// all INTEGER or TEXT (``single`` is used then).
    private var exact: ExactKeyTable?
    /// The records of each group, in the order of the keys given to ``prepare(_:)``.
    private var groups: [[Destination]] = []

    init(association: String, keyColumns: [String], keyColumn: Int32, nested: ToManyNesting?) {
        self.association = association
        self.keyColumns = keyColumns
        self.keyColumn = keyColumn
        self.nested = nested
    }

    /// Makes an empty group for each of `keys`, dropping any records added before: a record whose key
    /// has no group belongs to no parent.
    func prepare(_ keys: [[SQLiteValue]]) {
        single = [:]
        composite = [:]
        exact = nil
        if keyColumns.count == 1 {
            single.reserveCapacity(keys.count)
            for (index, key) in keys.enumerated() { single[key[0]] = index }
            exact = ExactKeyTable(keys: keys.map { $0[0] })
        } else {
            composite.reserveCapacity(keys.count)
            for (index, key) in keys.enumerated() { composite[key] = index }
        }
        groups = Array(repeating: [], count: keys.count)
    }

    /// Runs `sql`, whose last column (before the included associations' columns) is the position, among
    /// the statement's keys, of the key each row matched, and adds its records to the groups of those keys: the keys at `range` of ``prepare(_:)``'s,
    /// the statement's first key being the one at `range.lowerBound`.
    func add(_ conn: Connection, _ sql: SQL, groups range: Range<Int>) throws {
        _ = try collect(conn, sql, .position, groups: range)
    }

    /// Runs `sql`, whose last `keyCount` columns (before the included associations' columns) are each
    /// row's key, and adds its records to the
    /// groups of their keys, which are among `range` (the positions of the statement's keys in
    /// ``prepare(_:)``'s); false as soon as a row's key is not exactly one of those groups' keys.
    func addByValue(_ conn: Connection, _ sql: SQL, keyCount: Int, groups range: Range<Int>) throws -> Bool {
        try collect(conn, sql, .value(keyCount: keyCount), groups: range)
    }

    /// How a statement's rows say which group they belong to.
    private enum RowGrouping {
        /// The last column is the position of the key the row matched among the statement's keys.
        case position
        /// The last `keyCount` columns are the row's key.
        case value(keyCount: Int)
    }

    /// Runs `sql` and adds each row's record to its group, as `grouping` finds it, among `range`;
    /// false, adding nothing, when a row's key is none of those groups'. The statement's records are
    /// moved into their groups only when every row was read: a row that throws leaves the groups as
    /// they were. The work after the rows is that of the statement's groups (`range`), not of all:
    /// a request with many parents runs many statements.
    private func collect(_ conn: Connection, _ sql: SQL, _ grouping: RowGrouping, groups range: Range<Int>) throws
        -> Bool
    {
        let options = conn.recordContext.options
        var buffer = RecordBuffer<Destination>(capacity: 64)
        defer { buffer.deallocate() }
        var owners: [Int] = []
        // Read from locals: the class's stored properties would be checked for exclusive access on
        // every row.
        let single = self.single
        let composite = self.composite
        let exact = self.exact
        let keyCount: Int32
        switch grouping {
        case .position: keyCount = 1
        case .value(let count): keyCount = Int32(count)
        }
        var scoping: RowScoping?
        if let nested {
            // The records of the to-many associations each record includes, for all the rows' keys.
            let prefetched =
                nested.steps.isEmpty ? [:] : try conn.prefetch(nested.steps, rowsOf: sql, scopedWidth: nested.width)
            scoping = conn.scoping(
                nested.scopes, trailing: (keyCount + nested.keyCount, nested.width), prefetched: prefetched)
        }
        let trailingWidth = (nested?.width ?? 0) + (nested?.keyCount ?? 0)
        let complete: Bool = try conn.withBoundStatement(sql) { statement in
            guard try statement.step() else { return true }
            let decoder = RowDecoder.attached(
                to: statement, options: options, for: Destination.self,
                scoping: scoping ?? conn.recordContext.scoping)
            let end = statement.columnCount - trailingWidth
            repeat {
                let group: Int?
                switch grouping {
                case .value(keyCount: 1):
                    if let exact {
                        group = exact.group(ofColumn: end - 1, of: statement.handle)
                    } else {
                        group = single[try statement.value(at: end - 1)]
                    }
                case .value(let keyCount):
                    let first = end - Int32(keyCount)
                    group = composite[try (0..<Int32(keyCount)).map { try statement.value(at: first + $0) }]
                case .position:
                    let last = try statement.value(at: end - 1)
                    group = range.lowerBound + (try position(last, among: range.count))
                }
                guard let group, range.contains(group) else { return false }
                try buffer.append { try decoder.decodeRow(Destination.self) }
                owners.append(group - range.lowerBound)
            } while try statement.step()
            return true
        }
        guard complete else { return false }
        guard !owners.isEmpty else { return true }
        for (offset, records) in buffer.grouped(by: owners, groupCount: range.count).enumerated()
        where !records.isEmpty {
            let index = range.lowerBound + offset
            if groups[index].isEmpty {
                groups[index] = records
            } else {
                groups[index] += records
            }
        }
        return true
    }

    /// The position of the key a row matched, read from its last column, among the statement's `count`
    /// keys; throws when it is no such position.
    private func position(_ value: SQLiteValue, among count: Int) throws -> Int {
        guard case .integer(let index) = value, (0..<Int64(count)).contains(index) else {
            throw AssociationError.keyTypeMismatch(
                association: association, column: keyColumns.joined(separator: ", "),
                value: "key position \(value)", expected: "a position among \(count) keys")
        }
        return Int(index)
    }

    /// The records of the current row of `statement`, as a `T` (an array of `Destination`).
    func value<T>(_ type: T.Type, row statement: OpaquePointer) throws -> T? {
        let found: Int?
        if keyColumns.count == 1 {
            found = single[try Self.value(statement, keyColumn)]
        } else {
            found = composite[try (0..<Int32(keyColumns.count)).map { try Self.value(statement, keyColumn + $0) }]
        }
        let records = found.map { groups[$0] } ?? []
        return ExactCast.cast(records, to: T.self) ?? records as? T
    }

    /// `[Destination]`, for errors.
    var description: String { "[\(Destination.self)]" }

    /// The value in column `index` of the current row.
    private static func value(_ statement: OpaquePointer, _ index: Int32) throws -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT: return .text(UTF8Text.lossyString(column: index, of: statement))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let bytes = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }
}

/// The records of a to-many association that includes associations of its own, fetched when the first
/// row asks for them, as the element type of the property that holds them (`[BookInfo]`, or the
/// destination record alone: `[Book]`), from the same transaction as the request's rows.
final class DeferredToManyGroups<Destination: Record>: PrefetchedValues, CustomStringConvertible {
    private let load: ToManyLoad<Destination>
    /// Not retained: the scoping that holds these values lives on the connection's statements.
    private weak var connection: Connection?
    /// The groups fetched, and the array type they were fetched for.
    private var fetched: (type: ObjectIdentifier, groups: any PrefetchedValues)?

    init(_ load: ToManyLoad<Destination>, on connection: Connection) {
        self.load = load
        self.connection = connection
    }

    func value<T>(_ type: T.Type, row statement: OpaquePointer) throws -> T? {
        if let fetched, fetched.type == ObjectIdentifier(T.self) {
            return try fetched.groups.value(T.self, row: statement)
        }
        guard let elements = T.self as? any DecodableElements.Type else { return nil }
        guard let connection else { throw SQLiteError(code: .misuse, message: "the connection is closed") }
        let groups = try elements.groups(of: load, on: connection)
        fetched = (ObjectIdentifier(T.self), groups)
        return try groups.value(T.self, row: statement)
    }

    /// `[Destination]`, for errors (any array of a `Decodable` element is fetched).
    var description: String { "an array of \(Destination.self) or of a Decodable struct that includes it" }
}

/// An array whose elements a to-many association's rows decode into.
protocol DecodableElements {
    /// The rows of `load`, decoded as the array's elements, grouped by their parents' keys.
    static func groups<Destination: Record>(of load: ToManyLoad<Destination>, on conn: Connection) throws
        -> any PrefetchedValues
}

extension Array: DecodableElements where Element: Decodable {
    static func groups<Destination: Record>(of load: ToManyLoad<Destination>, on conn: Connection) throws
        -> any PrefetchedValues
    {
        try load.run(Element.self, on: conn)
    }
}

/// What each record of a to-many association includes: the scopes of the to-one associations, and how
/// many columns they take at the end of the row; the to-many ones, and how many key columns they take
/// just before.
struct ToManyNesting {
    let scopes: [RowScope]
    let width: Int32
    let keyCount: Int32
    let steps: [(step: AssociationLayout.ToManyStep, keys: JoinKeys)]
}
