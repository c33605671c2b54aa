/// Filtering a request by primary-key values.
extension QueryRequest {
    /// Only the row whose single-column primary key is `key`; several key filters AND together.
    ///
    /// ```swift
    /// let book = try conn.fetchOne(Book.filter(key: 7).including(required: Book.author))
    /// ```
    ///
    /// The key is checked when the request runs, before any SQL does, as ``Connection/find(_:id:)``
    /// checks it: a value whose type cannot match the key column (an `Int` for a `UUID` key) throws
    /// ``RecordError/keyTypeMismatch(record:column:expected:given:)``, and a record type with a
    /// composite key ``RecordError/compositeKey(table:key:)`` (use the dictionary form).
    public func filter(key: some Encodable & Sendable) -> QueryRequest {
        adding(KeyFilter(keys: .single([key])))
    }

    /// Only the rows whose single-column primary key is one of `keys` (none for no key), checked as
    /// ``filter(key:)-(EncodableSendable)`` checks one.
    ///
    /// ```swift
    /// let some = try conn.fetchAll(Book.filter(keys: [1, 2, 3]).order("title"))
    /// ```
    public func filter<Keys: Sequence>(keys: Keys) -> QueryRequest where Keys.Element: Encodable & Sendable {
        adding(KeyFilter(keys: .single(keys.map { $0 })))
    }

    /// Only the row with the given primary key, every key column named once, as in
    /// ``Connection/find(_:key:)``: a composite key (or a single one, by its column's name).
    ///
    /// ```swift
    /// let enrollment = Enrollment.filter(key: ["studentID": 1, "courseID": "math"])
    /// ```
    ///
    /// A key that leaves out a key column throws ``RecordError/incompleteKey(table:key:missing:)``,
    /// one that names another column ``RecordError/notKeyColumns(table:key:columns:)``, and a value
    /// whose type cannot match its column ``RecordError/keyTypeMismatch(record:column:expected:given:)``,
    /// when the request runs, before any SQL does.
    public func filter(key: [String: any Encodable & Sendable]) -> QueryRequest {
        adding(KeyFilter(keys: .composite([key])))
    }

    /// Only the rows with one of the given primary keys (none for no key), each checked as
    /// ``filter(key:)-([String:EncodableSendable])`` checks one.
    public func filter(keys: [[String: any Encodable & Sendable]]) -> QueryRequest {
        adding(KeyFilter(keys: .composite(keys)))
    }

    private func adding(_ filter: KeyFilter) -> QueryRequest {
        var request = self
        request.keyFilters.append(filter)
        return request
    }

    /// The conditions of the key filters, with the values as given (unchecked), for a request that
    /// runs without a connection's check (printed); see ``Connection/resolvingKeyFilters(_:)``.
    func uncheckedKeyConditions() throws -> [SQL] {
        guard !keyFilters.isEmpty else { return [] }
        let encoder = ValueEncoder(options: CodingOptions())
        return try keyFilters.map { filter in
            try filter.condition(table: Base.tableName, primaryKey: Base.primaryKey, alias: baseTable) { _, value in
                try encoder.encode(value, codingPath: [])
            }
        }
    }
}

extension Record {
    /// A request for the row whose single-column primary key is `key`: `Book.filter(key: 7)` is
    /// `Book.all().filter(key: 7)`.
    public static func filter(key: some Encodable & Sendable) -> QueryRequest<Self> {
        all().filter(key: key)
    }

    /// A request for the rows whose single-column primary key is one of `keys`.
    public static func filter<Keys: Sequence>(keys: Keys) -> QueryRequest<Self>
    where Keys.Element: Encodable & Sendable {
        all().filter(keys: keys)
    }

    /// A request for the row with the given (composite) primary key.
    public static func filter(key: [String: any Encodable & Sendable]) -> QueryRequest<Self> {
        all().filter(key: key)
    }

    /// A request for the rows with one of the given (composite) primary keys.
    public static func filter(keys: [[String: any Encodable & Sendable]]) -> QueryRequest<Self> {
        all().filter(keys: keys)
    }
}
