import Testing

@testable import Bindery

/// An error thrown by `encode(to:)` while `insert` binds the record to its cached INSERT as it is
/// encoded (the second insert of a shape, in a transaction): the statement is lent and half bound.
/// The error comes out as it was thrown, nothing is inserted, and the next insert of the shape writes
/// its own row. An `SQLiteError` with code `SQLITE_SCHEMA` from `encode(to:)` must not be mistaken
/// for the INSERT's own, which `insert` retries with a new statement: retried, the half-encoded row
/// would be stored.
@Suite struct InsertEncodingErrorTests {
    struct Refused: Error, Equatable {
        let n: Int
    }

    /// Throws `error` from `encode(to:)` for the record whose `n` is `failing`, between two values.
    struct Item: Record, Equatable {
        static let tableName = "items"
        var id: Int64?
        var n: Int
        var label: String
        var failing: Int?
        var error: (any Error & Sendable)?

        enum CodingKeys: String, CodingKey { case id, n, label }

        init(id: Int64? = nil, n: Int, label: String, failing: Int? = nil, error: (any Error & Sendable)? = nil) {
            self.id = id
            self.n = n
            self.label = label
            self.failing = failing
            self.error = error
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            n = try container.decode(Int.self, forKey: .n)
            label = try container.decode(String.self, forKey: .label)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(n, forKey: .n)
            if n == failing, let error {
                throw error
            }
            try container.encode(label, forKey: .label)
        }

        static func == (lhs: Item, rhs: Item) -> Bool {
            lhs.id == rhs.id && lhs.n == rhs.n && lhs.label == rhs.label
        }
    }

    static let schema = "CREATE TABLE items (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, label TEXT NOT NULL)"

    /// Inserts records 1, 2 and 3 in one transaction, record 2 throwing `error`; returns what the second
    /// insert threw and the rows stored.
    static func insertThree(throwing error: any Error & Sendable) throws -> (thrown: (any Error)?, rows: [Item]) {
        let conn = try Connection.inMemory()
        try conn.execute(script: schema)
        var thrown: (any Error)?
        try conn.transaction { conn in
            try conn.insert(Item(n: 1, label: "one"))
            do {
                try conn.insert(Item(n: 2, label: "two", failing: 2, error: error))
            } catch {
                thrown = error
            }
            try conn.insert(Item(n: 3, label: "three"))
        }
        return (thrown, try conn.fetchAll(Item.self, sql: "SELECT * FROM items ORDER BY id"))
    }

    @Test func anErrorOfTheRecordsOwnComesOutAndNothingIsStored() throws {
        let (thrown, rows) = try Self.insertThree(throwing: Refused(n: 2))
        #expect(thrown as? Refused == Refused(n: 2))
        #expect(rows == [Item(id: 1, n: 1, label: "one"), Item(id: 2, n: 3, label: "three")])
    }

    @Test func anSQLiteSchemaErrorFromEncodingIsNotRetried() throws {
        let schemaError = SQLiteError(code: .schema, message: "thrown by encode(to:)")
        let (thrown, rows) = try Self.insertThree(throwing: schemaError)
        let error = try #require(thrown as? SQLiteError)
        #expect(error.code == .schema)
        #expect(error.message == "thrown by encode(to:)")
        #expect(rows == [Item(id: 1, n: 1, label: "one"), Item(id: 2, n: 3, label: "three")])
    }
}
