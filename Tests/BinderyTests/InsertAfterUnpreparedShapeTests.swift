import Testing

@testable import Bindery

/// `insert` binds each record to the INSERT of the last shape inserted as it encodes it, and so
/// prepares that statement before it knows the record's shape. When a record's shape made an INSERT
/// SQLite cannot prepare (a value for a generated column, or one the table lacks), that failed shape stayed
/// the last one: every later `insert` of the type on the connection failed on it, whatever its own
/// values, with the first record's error. The failed shape is now forgotten, and each record meets
/// only its own statement's error.
@Suite struct InsertAfterUnpreparedShapeTests {
    /// A record with a property for a generated column.
    struct Score: Record, Equatable {
        static let tableName = "scores"
        var id: Int64
        var points: Int
        var doubled: Int?
    }

    static func connection() throws -> Connection {
        let conn = try Connection(path: ":memory:")
        try conn.execute(
            script: """
                CREATE TABLE scores(id INTEGER PRIMARY KEY, points INTEGER NOT NULL,
                                    doubled INTEGER GENERATED ALWAYS AS (points * 2) STORED);
                """)
        return conn
    }

    /// Expects `body` to throw an `SQLiteError` whose message contains `text`.
    static func expectFailure(_ text: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("no error; expected one saying \(text)")
        } catch let error as SQLiteError {
            #expect(error.description.contains(text), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aGeneratedColumn() throws {
        let conn = try Self.connection()
        #expect(try conn.insert(Score(id: 1, points: 2)) == Score(id: 1, points: 2, doubled: 4))
        Self.expectFailure("generated column") { try conn.insert(Score(id: 2, points: 3, doubled: 6)) }
        #expect(try conn.insert(Score(id: 3, points: 5)) == Score(id: 3, points: 5, doubled: 10))
        #expect(try conn.insert(contentsOf: [Score(id: 4, points: 1), Score(id: 5, points: 2)]) == 2)
        #expect(try conn.insert(Score(id: 6, points: 7)) == Score(id: 6, points: 7, doubled: 14))
        #expect(try conn.fetchAll(Score.self, orderBy: "id").map(\.doubled) == [4, 10, 2, 4, 14])
    }

    /// Every policy keeps its own last shape: each recovers, inside a caller's transaction too, which
    /// the failed statement leaves open with its rows.
    @Test(arguments: [ConflictPolicy.abort, .ignore, .replace, .fail, .rollback])
    func eachPolicy(_ policy: ConflictPolicy) throws {
        let conn = try Self.connection()
        try conn.insert(Score(id: 1, points: 1), onConflict: policy)
        Self.expectFailure("generated column") {
            try conn.insert(Score(id: 2, points: 2, doubled: 4), onConflict: policy)
        }
        #expect(try conn.insert(Score(id: 3, points: 3), onConflict: policy) == Score(id: 3, points: 3, doubled: 6))
        let inserted = try conn.transaction { conn -> [Score] in
            let first = try conn.insert(Score(id: 4, points: 4), onConflict: policy)
            Self.expectFailure("generated column") {
                try conn.insert(Score(id: 5, points: 5, doubled: 10), onConflict: policy)
            }
            return [first, try conn.insert(Score(id: 6, points: 6), onConflict: policy)]
        }
        #expect(inserted == [Score(id: 4, points: 4, doubled: 8), Score(id: 6, points: 6, doubled: 12)])
        #expect(try conn.fetchAll(Score.self, orderBy: "id").map(\.id) == [1, 3, 4, 6])
    }
}
