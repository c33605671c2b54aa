import Bindery

/// A data-access object for any record type: the find/count/exists/delete helpers that a
/// hand-written base class used to build with string formatting, each a line or two over Bindery.
///
/// Every value a caller passes in a condition is bound as a statement parameter (see ``SQL``), so no
/// helper here can be used to inject SQL.
struct DataAccess<T: Record>: Sendable {
    let db: Database

    /// The record with primary key `id`, or nil.
    func find(id: some Encodable & Sendable) async throws -> T? {
        try await db.find(T.self, id: id)
    }

    /// The first record matching `condition`, or nil.
    func findOne(where condition: SQL) async throws -> T? {
        try await db.fetchOne(T.self, where: condition)
    }

    /// The records matching `condition`, sorted.
    func find(where condition: SQL, orderBy order: SQL) async throws -> [T] {
        try await db.fetchAll(T.self, where: condition, orderBy: order)
    }

    /// Every record, sorted.
    func all(orderBy order: SQL? = nil) async throws -> [T] {
        try await db.fetchAll(T.self, orderBy: order)
    }

    /// Page `number` (from 0) of `size` records, sorted.
    func page(_ number: Int, size: Int, orderBy order: SQL) async throws -> [T] {
        try await db.fetchAll(T.self, orderBy: order, limit: size, offset: number * size)
    }

    /// The values of one column, for the records matching `condition` (all by default).
    func fieldList<V: Decodable & Sendable>(
        _ column: String, as type: V.Type, where condition: SQL = "1", orderBy order: SQL = "rowid"
    ) async throws -> [V] {
        try await db.fetchAll(
            V.self,
            sql: "SELECT \(identifier: column) FROM \(identifier: T.tableName) WHERE \(condition) ORDER BY \(order)")
    }

    /// How many records match `condition` (all when nil).
    func count(where condition: SQL? = nil) async throws -> Int {
        try await db.count(T.self, where: condition)
    }

    /// Whether any record matches `condition`.
    func exists(where condition: SQL) async throws -> Bool {
        try await db.exists(T.self, where: condition)
    }

    /// Deletes the record with primary key `id`; returns whether there was one.
    @discardableResult
    func delete(id: some Encodable & Sendable) async throws -> Bool {
        try await db.delete(T.self, id: id)
    }

    /// Deletes the records matching `condition`; returns how many.
    @discardableResult
    func delete(where condition: SQL) async throws -> Int {
        try await db.delete(T.self, where: condition)
    }

    /// Writes `record` over the row with its primary key (only `columns`, when given);
    /// throws ``RecordError/notFound(table:key:)`` when there is none.
    func update(_ record: T, columns: [String]? = nil) async throws {
        if let columns {
            try await db.update(record, columns: columns)
        } else {
            try await db.update(record)
        }
    }

    /// Inserts `record` and returns the rowid SQLite assigned to it.
    func insert(_ record: T) async throws -> Int64 {
        try await db.write { conn in
            try conn.insert(record)
            return conn.lastInsertRowID
        }
    }
}
