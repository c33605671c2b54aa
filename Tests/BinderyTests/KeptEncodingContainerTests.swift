import Foundation
import Testing

@testable import Bindery

/// The `Encoder` protocol lets `encode(to:)` keep its encoder or a container. Used after its record, a
/// container throws an `EncodingError` saying so: it writes into no other record's row, and touches
/// no memory freed with its encoder.
@Suite struct KeptEncodingContainerTests {
    final class Keeper: @unchecked Sendable {
        // Safe: each test has its own keeper and uses it from one thread.
        var container: KeyedEncodingContainer<Note.CodingKeys>?
        var encoder: (any Encoder)?
        /// Whether `encode(to:)` writes through the container kept from the record before.
        var writeThroughKept = false
        /// Where `encode(to:)` inserts a record of its own type, once, keeping its container in the
        /// other keeper.
        var inner: (conn: Connection, keeper: Keeper)?
    }

    struct Note: Record, Equatable {
        static let tableName = "note"
        static let primaryKey = ["id"]
        var id: Int?
        var text: String
        var keeper: Keeper?

        enum CodingKeys: String, CodingKey {
            case id, text
        }

        init(id: Int?, text: String, keeper: Keeper? = nil) {
            (self.id, self.text, self.keeper) = (id, text, keeper)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int.self, forKey: .id)
            text = try container.decode(String.self, forKey: .text)
        }

        func encode(to encoder: any Encoder) throws {
            if let keeper, keeper.writeThroughKept, var kept = keeper.container {
                try kept.encode("from the kept container", forKey: .text)
            }
            if let keeper, let (conn, innerKeeper) = keeper.inner {
                keeper.inner = nil
                try conn.insert(Note(id: nil, text: "inner", keeper: innerKeeper))
            }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(text, forKey: .text)
            keeper?.container = container
            keeper?.encoder = encoder
        }

        static func == (lhs: Note, rhs: Note) -> Bool {
            lhs.id == rhs.id && lhs.text == rhs.text
        }
    }

    private static func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        return conn
    }

    /// Expects `body` to throw the error of an encoding container used after its record.
    static func expectExpired(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("a container kept past its record wrote a value", sourceLocation: sourceLocation)
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.contains("was used after its record"), sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aKeptContainerThrowsAfterItsRecord() throws {
        let conn = try Self.connection()
        let keeper = Keeper()
        let saved = try conn.insert(Note(id: nil, text: "first", keeper: keeper))
        #expect(saved == Note(id: 1, text: "first"))
        Self.expectExpired { try keeper.container?.encode("late", forKey: .text) }
        // The next records are stored as given, through a container of their own.
        let second = try conn.insert(Note(id: nil, text: "second", keeper: keeper))
        #expect(second == Note(id: 2, text: "second"))
        try conn.update(Note(id: 2, text: "changed"))
        Self.expectExpired { try keeper.container?.encode("late", forKey: .text) }
        // The kept encoder hands out containers that refuse to write.
        let encoder = try #require(keeper.encoder)
        var container = encoder.container(keyedBy: Note.CodingKeys.self)
        Self.expectExpired { try container.encode("late", forKey: .text) }
        #expect(encoder.userInfo.isEmpty)
        let texts = try conn.fetchAll(Note.self, sql: "SELECT * FROM note ORDER BY id").map(\.text)
        #expect(texts == ["first", "changed"])
    }

    @Test func aKeptContainerWritesIntoNoOtherRecordsRow() throws {
        let conn = try Self.connection()
        let keeper = Keeper()
        try conn.insert(Note(id: nil, text: "first", keeper: keeper))
        keeper.writeThroughKept = true
        // The second record's encode(to:) writes through the first one's container: it throws, and
        // nothing is stored.
        #expect(throws: EncodingError.self) { try conn.insert(Note(id: nil, text: "second", keeper: keeper)) }
        #expect(throws: EncodingError.self) {
            try conn.insert(contentsOf: [Note(id: nil, text: "third", keeper: keeper)])
        }
        #expect(try conn.fetchAll(Note.self, sql: "SELECT * FROM note ORDER BY id").map(\.text) == ["first"])
        // A record whose encode(to:) keeps nothing is stored as given.
        keeper.writeThroughKept = false
        let third = try conn.insert(Note(id: nil, text: "third"))
        #expect(third == Note(id: 2, text: "third"))
    }

    @Test func aKeptContainerThrowsAfterItsConnectionIsGone() throws {
        let keeper = Keeper()
        do {
            let conn = try Self.connection()
            try conn.insert(Note(id: nil, text: "first", keeper: keeper))
            // New coding options drop the record types' encoders.
            conn.codingOptions = CodingOptions()
            try conn.insert(Note(id: nil, text: "second"))
        }
        Self.expectExpired { try keeper.container?.encode("late", forKey: .text) }
        Self.expectExpired { try keeper.container?.encodeNil(forKey: .id) }
        // The kept encoder hands out a container that refuses to write too.
        var container = try #require(keeper.encoder).container(keyedBy: Note.CodingKeys.self)
        Self.expectExpired { try container.encode(3, forKey: .id) }
    }

    @Test func aKeptContainerOfAReentrantInsertThrows() throws {
        let conn = try Self.connection()
        let outer = Keeper()
        let inner = Keeper()
        outer.inner = (conn, inner)
        // The inner insert starts while the outer one uses the type's encoder: it gets an encoder of
        // its own, freed when it ends.
        let saved = try conn.insert(Note(id: nil, text: "outer", keeper: outer))
        #expect(saved.text == "outer")
        Self.expectExpired { try inner.container?.encode("late", forKey: .text) }
        Self.expectExpired { try outer.container?.encode("late", forKey: .text) }
        #expect(try conn.fetchAll(Note.self, sql: "SELECT * FROM note ORDER BY id").map(\.text) == ["inner", "outer"])
    }
}
