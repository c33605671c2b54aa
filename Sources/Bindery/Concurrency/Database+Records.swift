/// The record operations of ``Connection`` as `async` methods, each in a transaction of its own:
/// those that change rows in a ``Database/write(_:)``, those that read in a ``Database/read(_:)``.
///
/// To make several changes together, or to read several things from one snapshot, call the
/// connection's own methods inside one `write` or `read` closure instead.
extension Database {
    // MARK: Writing records

    /// Inserts `record` and returns the row as stored: a nil integer id comes back assigned, and
    /// columns with defaults come back filled. See ``Connection/insert(_:onConflict:)``.
    ///
    /// ```swift
    /// let saved = try await db.insert(Student(id: nil, name: "Ana", year: 2024))
    /// ```
    @discardableResult
    public nonisolated func insert<T: Record>(_ record: T, onConflict policy: ConflictPolicy = .abort) async throws
        -> T
    {
        try await write { conn in try conn.insert(record, onConflict: policy) }
    }

    /// Inserts many records in one transaction, runs of one shape in batches through multi-row
    /// statements; returns how many rows were inserted. See ``Connection/insert(contentsOf:onConflict:)``.
    ///
    /// ```swift
    /// try await db.insert(contentsOf: students)
    /// ```
    @discardableResult
    public nonisolated func insert<S: Sequence & Sendable>(
        contentsOf records: S, onConflict policy: ConflictPolicy = .abort
    ) async throws -> Int where S.Element: Record {
        try await write { conn in try conn.insert(contentsOf: records, onConflict: policy) }
    }

    /// Inserts many records in one transaction, as ``insert(contentsOf:onConflict:)`` does, and returns
    /// them as stored, in order (ids assigned, defaults filled). With ``ConflictPolicy/ignore``, a record
    /// whose row was skipped comes back as given: ``insertOrIgnoreAndFetch(contentsOf:)`` returns nil
    /// for it instead. See ``Connection/insertAndFetch(contentsOf:onConflict:)``.
    ///
    /// ```swift
    /// let saved = try await db.insertAndFetch(contentsOf: students)
    /// ```
    public nonisolated func insertAndFetch<S: Sequence & Sendable>(
        contentsOf records: S, onConflict policy: ConflictPolicy = .abort
    ) async throws -> [S.Element] where S.Element: Record {
        try await write { conn in try conn.insertAndFetch(contentsOf: records, onConflict: policy) }
    }

    /// Updates the rows with the primary keys of `records`, all or nothing, in one transaction. See
    /// ``Connection/update(contentsOf:)``.
    ///
    /// ```swift
    /// try await db.update(contentsOf: edited)
    /// ```
    public nonisolated func update<S: Sequence & Sendable>(contentsOf records: S) async throws
    where S.Element: Record {
        try await write { conn in try conn.update(contentsOf: records) }
    }

    /// Upserts `records` (each inserted, or the row with its key updated), all or nothing, in one
    /// transaction. See ``Connection/upsert(contentsOf:)``.
    ///
    /// ```swift
    /// try await db.upsert(contentsOf: fromServer)
    /// ```
    public nonisolated func upsert<S: Sequence & Sendable>(contentsOf records: S) async throws
    where S.Element: Record {
        try await write { conn in try conn.upsert(contentsOf: records) }
    }

    /// Updates the row with `record`'s primary key, writing every other column. Throws
    /// ``RecordError/notFound(table:key:)`` when no row has that key.
    ///
    /// ```swift
    /// try await db.update(saved)
    /// ```
    public nonisolated func update<T: Record>(_ record: T) async throws {
        try await write { conn in try conn.update(record) }
    }

    /// Updates only the named columns of the row with `record`'s primary key. See
    /// ``Connection/update(_:columns:)``.
    ///
    /// ```swift
    /// try await db.update(student, columns: ["year"])
    /// ```
    public nonisolated func update<T: Record>(_ record: T, columns: [String]) async throws {
        try await write { conn in try conn.update(record, columns: columns) }
    }

    /// Inserts `record`, or updates the row with its primary key when there is one; returns the row
    /// as stored.
    ///
    /// ```swift
    /// let stored = try await db.upsert(student)
    /// ```
    @discardableResult
    public nonisolated func upsert<T: Record>(_ record: T) async throws -> T {
        try await write { conn in try conn.upsert(record) }
    }

    /// Deletes the row with `record`'s primary key; returns whether there was one.
    ///
    /// ```swift
    /// try await db.delete(student)
    /// ```
    @discardableResult
    public nonisolated func delete<T: Record>(_ record: T) async throws -> Bool {
        try await write { conn in try conn.delete(record) }
    }

    /// Deletes the row whose single-column primary key is `id`; returns whether there was one.
    ///
    /// ```swift
    /// try await db.delete(Student.self, id: 7)
    /// ```
    ///
    /// Throws ``RecordError/keyTypeMismatch(record:column:expected:given:)`` for a key whose type
    /// cannot match the key column (an `Int` for a `UUID` key), instead of matching no row.
    @discardableResult
    public nonisolated func delete<T: Record>(_ type: T.Type, id: some Encodable & Sendable) async throws -> Bool {
        try await write { conn in try conn.delete(T.self, id: id) }
    }

    /// Deletes the row with the given composite primary key; returns whether there was one.
    ///
    /// ```swift
    /// try await db.delete(Enrollment.self, key: ["student_id": 1, "course_id": 7])
    /// ```
    ///
    /// Throws ``RecordError/keyTypeMismatch(record:column:expected:given:)`` for a key whose type
    /// cannot match the key column (an `Int` for a `UUID` key), instead of matching no row.
    @discardableResult
    public nonisolated func delete<T: Record>(_ type: T.Type, key: [String: any Encodable & Sendable]) async throws
        -> Bool
    {
        try await write { conn in try conn.delete(T.self, key: key) }
    }

    /// Deletes the rows matching `condition`; returns how many went.
    ///
    /// ```swift
    /// let removed = try await db.delete(Student.self, where: "year < \(2000)")
    /// ```
    @discardableResult
    public nonisolated func delete<T: Record>(_ type: T.Type, where condition: SQL) async throws -> Int {
        try await write { conn in try conn.delete(T.self, where: condition) }
    }

    /// Deletes every row of the type's table; returns how many went.
    ///
    /// ```swift
    /// try await db.deleteAll(Student.self)
    /// ```
    @discardableResult
    public nonisolated func deleteAll<T: Record>(_ type: T.Type) async throws -> Int {
        try await write { conn in try conn.deleteAll(T.self) }
    }

    /// Runs one statement in a write transaction, binding every interpolated value as a parameter.
    ///
    /// ```swift
    /// try await db.execute("UPDATE counters SET n = n + 1 WHERE name = \(name)")
    /// ```
    public nonisolated func execute(_ sql: SQL) async throws {
        try await write { conn in try conn.execute(sql) }
    }

    /// Creates the table of record type `T` from its properties. See
    /// ``Connection/createTable(for:ifNotExists:)``.
    ///
    /// ```swift
    /// try await db.createTable(for: Student.self, ifNotExists: true)
    /// ```
    public nonisolated func createTable<T: Record>(for type: T.Type, ifNotExists: Bool = false) async throws {
        try await write { conn in try conn.createTable(for: T.self, ifNotExists: ifNotExists) }
    }

    // MARK: Reading records

    /// The record whose single-column primary key is `id`, or nil.
    ///
    /// ```swift
    /// let student = try await db.find(Student.self, id: 1)
    /// ```
    ///
    /// Throws ``RecordError/keyTypeMismatch(record:column:expected:given:)`` for a key whose type
    /// cannot match the key column (an `Int` for a `UUID` key), instead of matching no row.
    public nonisolated func find<T: Record>(_ type: T.Type, id: some Encodable & Sendable) async throws -> T? {
        try await read { conn in try conn.find(T.self, id: id) }
    }

    /// The record with the given composite primary key, or nil.
    ///
    /// ```swift
    /// let enrollment = try await db.find(Enrollment.self, key: ["student_id": 1, "course_id": 7])
    /// ```
    ///
    /// Throws ``RecordError/keyTypeMismatch(record:column:expected:given:)`` for a key whose type
    /// cannot match the key column (an `Int` for a `UUID` key), instead of matching no row.
    public nonisolated func find<T: Record>(_ type: T.Type, key: [String: any Encodable & Sendable]) async throws
        -> T?
    {
        try await read { conn in try conn.find(T.self, key: key) }
    }

    /// The records matching `condition` (all when nil), sorted by `orderBy`, one page of them when
    /// `limit` (and `offset`) are given.
    ///
    /// ```swift
    /// let page = try await db.fetchAll(Student.self, where: "year >= \(2020)", orderBy: "name", limit: 20)
    /// ```
    public nonisolated func fetchAll<T: Record>(
        _ type: T.Type, where condition: SQL? = nil, orderBy order: SQL? = nil, limit: Int? = nil, offset: Int? = nil
    ) async throws -> [T] {
        try await read { conn in
            try conn.fetchAll(T.self, where: condition, orderBy: order, limit: limit, offset: offset)
        }
    }

    /// The first record matching `condition` in the order `orderBy`, or nil.
    ///
    /// ```swift
    /// let ana = try await db.fetchOne(Student.self, where: "name = \("Ana")")
    /// ```
    public nonisolated func fetchOne<T: Record>(_ type: T.Type, where condition: SQL? = nil, orderBy order: SQL? = nil)
        async throws -> T?
    {
        try await read { conn in try conn.fetchOne(T.self, where: condition, orderBy: order) }
    }

    /// How many rows match `condition` (all rows when nil).
    ///
    /// ```swift
    /// let n = try await db.count(Student.self, where: "department = \(dept)")
    /// ```
    public nonisolated func count<T: Record>(_ type: T.Type, where condition: SQL? = nil) async throws -> Int {
        try await read { conn in try conn.count(T.self, where: condition) }
    }

    /// Whether a row has the single-column primary key `id`. See ``Connection/exists(_:id:)``.
    ///
    /// ```swift
    /// let enrolled = try await db.exists(Student.self, id: 1)
    /// ```
    ///
    /// Throws ``RecordError/compositeKey(table:key:)`` for a type whose key has several columns, and
    /// ``RecordError/keyTypeMismatch(record:column:expected:given:)`` for a key whose type cannot match
    /// the key column (an `Int` for a `UUID` key), instead of matching no row.
    public nonisolated func exists<T: Record>(_ type: T.Type, id: some Encodable & Sendable) async throws -> Bool {
        try await read { conn in try conn.exists(T.self, id: id) }
    }

    /// Whether any row matches `condition` (whether the table has rows, when nil).
    ///
    /// ```swift
    /// let taken = try await db.exists(Student.self, where: "name = \(name)")
    /// ```
    public nonisolated func exists<T: Record>(_ type: T.Type, where condition: SQL? = nil) async throws -> Bool {
        try await read { conn in try conn.exists(T.self, where: condition) }
    }

    /// Every row of a query decoded as `T`: a struct by column name, a single-value type from the
    /// first column.
    ///
    /// ```swift
    /// let names = try await db.fetchAll(String.self, sql: "SELECT name FROM students ORDER BY name")
    /// ```
    public nonisolated func fetchAll<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) async throws -> [T] {
        try await read { conn in try conn.fetchAll(T.self, sql: sql) }
    }

    /// The first row of a query decoded as `T`, or nil when there is none.
    ///
    /// ```swift
    /// let name = try await db.fetchOne(String.self, sql: "SELECT name FROM students WHERE id = \(id)")
    /// ```
    public nonisolated func fetchOne<T: Decodable & Sendable>(_ type: T.Type, sql: SQL) async throws -> T? {
        try await read { conn in try conn.fetchOne(T.self, sql: sql) }
    }
}
