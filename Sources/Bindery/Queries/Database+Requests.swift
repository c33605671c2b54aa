/// Running a ``QueryRequest`` as `async` methods, each in a transaction of its own: fetches in a
/// ``Database/read(_:)``, deletes and updates in a ``Database/write(_:)``; see the same methods of
/// ``Connection``.
extension Database {
    /// Every row of `request`, as its record type.
    ///
    /// ```swift
    /// let orders = try await db.fetchAll(Order.all().filter("Freight > \(100)"))
    /// ```
    public nonisolated func fetchAll<R: Record>(_ request: QueryRequest<R>) async throws -> [R] {
        try await read { conn in try conn.fetchAll(request) }
    }

    /// Every row of `request` decoded as `T` (a struct of the record and its included associations).
    public nonisolated func fetchAll<T: Decodable & Sendable, R: Record>(_ type: T.Type, _ request: QueryRequest<R>)
        async throws -> [T]
    {
        try await read { conn in try conn.fetchAll(T.self, request) }
    }

    /// The first row of `request`, as its record type, or nil.
    public nonisolated func fetchOne<R: Record>(_ request: QueryRequest<R>) async throws -> R? {
        try await read { conn in try conn.fetchOne(request) }
    }

    /// The first row of `request` decoded as `T`, or nil.
    public nonisolated func fetchOne<T: Decodable & Sendable, R: Record>(_ type: T.Type, _ request: QueryRequest<R>)
        async throws -> T?
    {
        try await read { conn in try conn.fetchOne(T.self, request) }
    }

    /// The rows of `request` one small batch at a time, as an asynchronous sequence (see
    /// ``DatabaseCursor``).
    public nonisolated func fetchCursor<R: Record>(_ request: QueryRequest<R>) -> DatabaseCursor<R> {
        DatabaseCursor(database: self) { conn in try conn.fetchCursor(request) }
    }

    /// The rows of `request` decoded as `T`, one small batch at a time.
    public nonisolated func fetchCursor<T: Decodable & Sendable, R: Record>(
        _ type: T.Type, _ request: QueryRequest<R>
    ) -> DatabaseCursor<T> {
        DatabaseCursor(database: self) { conn in try conn.fetchCursor(T.self, request) }
    }

    /// How many rows `request` gives.
    public nonisolated func fetchCount<R: Record>(_ request: QueryRequest<R>) async throws -> Int {
        try await read { conn in try conn.fetchCount(request) }
    }

    /// Whether `request` gives any row.
    public nonisolated func exists<R: Record>(_ request: QueryRequest<R>) async throws -> Bool {
        try await read { conn in try conn.exists(request) }
    }

    /// Deletes the rows of `request` and returns how many were deleted.
    ///
    /// A request that groups its rows (`group`, a `having` of ``SQL``, an aggregate in its selection)
    /// throws ``RequestError/groupedRowsNotWritable(operation:)``, and one for the distinct values of
    /// a selection cut by a `limit` or an `offset` throws ``RequestError/distinctValuesNotWritable(operation:)``:
    /// the rows they give are not rows of the table. Nothing is written then.
    @discardableResult
    public nonisolated func deleteAll<R: Record>(_ request: QueryRequest<R>) async throws -> Int {
        try await write { conn in try conn.deleteAll(request) }
    }

    /// Updates the rows of `request` with `assignments` (values bound) and returns how many changed.
    ///
    /// ```swift
    /// try await db.updateAll(Order.all().filter("ShipCountry = \("UK")"), set: "Freight = \(0)")
    /// ```
    ///
    /// A request that groups its rows (`group`, a `having` of ``SQL``, an aggregate in its selection)
    /// throws ``RequestError/groupedRowsNotWritable(operation:)``, and one for the distinct values of
    /// a selection cut by a `limit` or an `offset` throws ``RequestError/distinctValuesNotWritable(operation:)``:
    /// the rows they give are not rows of the table. Nothing is written then.
    @discardableResult
    public nonisolated func updateAll<R: Record>(_ request: QueryRequest<R>, set assignments: SQL...) async throws
        -> Int
    {
        try await write { conn in try conn.updateAll(request, set: assignments) }
    }

    /// Observes the rows of `request`: the current ones at once, then fresh ones after every committed
    /// write that changed a table the request reads (its associations' tables included); see
    /// `observe(_:)`.
    ///
    /// ```swift
    /// for try await orders in db.observe(Order.all().filter("ShippedDate IS NULL")) {
    ///     print(orders.count, "to ship")
    /// }
    /// ```
    public nonisolated func observe<R: Record>(_ request: QueryRequest<R>) -> DatabaseObservation<[R]> {
        observe { conn in try conn.fetchAll(request) }
    }

    /// Observes the rows of `request` decoded as `T`.
    public nonisolated func observe<T: Decodable & Sendable, R: Record>(_ type: T.Type, _ request: QueryRequest<R>)
        -> DatabaseObservation<[T]>
    {
        observe { conn in try conn.fetchAll(T.self, request) }
    }
}
