import Foundation
import Testing

@testable import Bindery

/// The `Decoder` protocol lets `init(from:)` keep its decoder or a container (a lazily decoding
/// wrapper does). Used after its row, each of them throws a `DecodingError` saying so, and reads
/// neither the statement's registers nor memory freed with the statement.
@Suite struct KeptContainerTests {
    /// Keeps its keyed container and decodes `name` only when asked.
    struct Lazy: Decodable {
        let id: Int
        let container: KeyedDecodingContainer<CodingKeys>

        enum CodingKeys: String, CodingKey {
            case id, name
        }

        init(from decoder: any Decoder) throws {
            container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            // Within the row, the kept container reads as any other.
            _ = try container.decode(String.self, forKey: .name)
        }

        func name() throws -> String {
            try container.decode(String.self, forKey: .name)
        }
    }

    private static func connection(capacity: Int = 128) throws -> Connection {
        let conn = try Connection.inMemory(options: .init(statementCacheCapacity: capacity))
        try conn.execute(
            script: """
                CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO item VALUES (1, 'one'), (2, 'two'), (3, 'three');
                """)
        return conn
    }

    /// Expects `body` to throw the error of a container or decoder used after its row.
    static func expectExpired(
        _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try body()
            Issue.record("a container kept past its row read a row that is gone", sourceLocation: sourceLocation)
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("was used after its row"), sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aKeptKeyedContainerThrowsAfterFetchAll() throws {
        let conn = try Self.connection()
        let items = try conn.fetchAll(Lazy.self, sql: "SELECT * FROM item ORDER BY id")
        #expect(items.map(\.id) == [1, 2, 3])
        for item in items {
            Self.expectExpired { _ = try item.name() }
            #expect(!item.container.contains(.name))
            #expect(item.container.allKeys.isEmpty)
            Self.expectExpired { _ = try item.container.decodeNil(forKey: .name) }
            Self.expectExpired { _ = try item.container.decodeIfPresent(String.self, forKey: .name) }
            Self.expectExpired { _ = try item.container.decode(Int64.self, forKey: .id) }
            Self.expectExpired { _ = try item.container.decode(Date.self, forKey: .name) }
            Self.expectExpired { _ = try item.container.superDecoder() }
            Self.expectExpired { _ = try item.container.superDecoder(forKey: .name) }
        }
        // The next query of the same SQL reuses the statement and its decoder: still refused.
        let again = try conn.fetchAll(Lazy.self, sql: "SELECT * FROM item ORDER BY id")
        Self.expectExpired { _ = try items[0].name() }
        Self.expectExpired { _ = try again[2].name() }
    }

    @Test func aKeptKeyedContainerThrowsOnceItsStatementIsFinalized() throws {
        // Without the guard: a heap-use-after-free (the decoder, its tag table and the statement are freed).
        let conn = try Self.connection()
        let items = try conn.fetchAll(Lazy.self, sql: "SELECT * FROM item ORDER BY id")
        conn.clearStatementCache()
        for item in items {
            Self.expectExpired { _ = try item.name() }
        }
        let small = try Self.connection(capacity: 1)
        let one = try small.fetchOne(Lazy.self, sql: "SELECT * FROM item WHERE id = 2")
        _ = try small.fetchAll(Int.self, sql: "SELECT id FROM item")
        let kept = try #require(one)
        Self.expectExpired { _ = try kept.name() }
    }

    @Test func aKeptKeyedContainerThrowsWhileTheNextRowIsDecoded() throws {
        /// Reads the container kept by the previous row while its own row is current.
        struct Chained: Decodable {
            nonisolated(unsafe) static var previous: KeyedDecodingContainer<Lazy.CodingKeys>?
            var id: Int
            var previousName: String?

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Lazy.CodingKeys.self)
                id = try container.decode(Int.self, forKey: .id)
                if let previous = Self.previous {
                    previousName = try? previous.decode(String.self, forKey: .name)
                }
                Self.previous = container
            }
        }
        let conn = try Self.connection()
        Chained.previous = nil
        let rows = try conn.fetchAll(Chained.self, sql: "SELECT * FROM item ORDER BY id")
        #expect(rows.map(\.id) == [1, 2, 3])
        #expect(rows.map(\.previousName) == [nil, nil, nil])
        // A cursor too: the row before the current one is gone.
        Chained.previous = nil
        let cursor = try conn.fetchCursor(Chained.self, sql: "SELECT * FROM item ORDER BY id")
        var read: [Chained] = []
        while let row = try cursor.next() {
            read.append(row)
        }
        #expect(read.map(\.previousName) == [nil, nil, nil])
        Chained.previous = nil
    }

    @Test func aContainerThatIsNotKeptIsStillReusedRowAfterRow() throws {
        struct Plain: Decodable, Equatable {
            var id: Int
            var name: String
        }
        let conn = try Self.connection()
        #expect(
            try conn.fetchAll(Plain.self, sql: "SELECT * FROM item ORDER BY id") == [
                Plain(id: 1, name: "one"), Plain(id: 2, name: "two"), Plain(id: 3, name: "three"),
            ])
        // After a row kept its container, the next rows get a new one and decode as before.
        let mixed = try conn.fetchAll(Lazy.self, sql: "SELECT * FROM item ORDER BY id")
        #expect(mixed.map(\.id) == [1, 2, 3])
        #expect(
            try conn.fetchAll(Plain.self, sql: "SELECT * FROM item ORDER BY id").map(\.name) == ["one", "two", "three"])
    }

    /// Keeps its decoder, and a container of every other kind.
    struct Hoarder: Decodable {
        let decoder: any Decoder
        let single: any SingleValueDecodingContainer
        let unkeyed: any UnkeyedDecodingContainer
        let columnDecoder: any Decoder
        let superDecoder: any Decoder

        init(from decoder: any Decoder) throws {
            self.decoder = decoder
            single = try decoder.singleValueContainer()
            unkeyed = try decoder.unkeyedContainer()
            let keyed = try decoder.container(keyedBy: Lazy.CodingKeys.self)
            columnDecoder = try keyed.superDecoder(forKey: .name)
            superDecoder = try keyed.superDecoder()
            // Within the row they all read.
            _ = try single.decode(Int.self)
            _ = try columnDecoder.singleValueContainer().decode(String.self)
            var copy = unkeyed
            _ = try copy.decode(Int.self)
        }
    }

    @Test func aKeptDecoderAndKeptContainersOfEveryKindThrow() throws {
        let conn = try Self.connection()
        let kept = try #require(try conn.fetchAll(Hoarder.self, sql: "SELECT * FROM item ORDER BY id").first)
        Self.expectExpired { _ = try kept.decoder.container(keyedBy: Lazy.CodingKeys.self) }
        Self.expectExpired { _ = try kept.decoder.singleValueContainer() }
        Self.expectExpired { _ = try kept.decoder.unkeyedContainer() }
        Self.expectExpired { _ = try kept.single.decode(Int.self) }
        Self.expectExpired { _ = try kept.single.decode(String.self) }
        #expect(!kept.single.decodeNil())
        var unkeyed = kept.unkeyed
        Self.expectExpired { _ = try unkeyed.decode(Int.self) }
        Self.expectExpired { _ = try unkeyed.decodeNil() }
        Self.expectExpired { _ = try unkeyed.superDecoder() }
        Self.expectExpired { _ = try kept.columnDecoder.singleValueContainer() }
        Self.expectExpired { _ = try kept.superDecoder.container(keyedBy: Lazy.CodingKeys.self) }
        conn.clearStatementCache()
        Self.expectExpired { _ = try kept.single.decode(Int.self) }
        Self.expectExpired { _ = try unkeyed.decode(String.self) }
    }

    /// A property whose own `init(from:)` keeps the single-value container of its column.
    struct LazyName: Decodable {
        let container: any SingleValueDecodingContainer

        init(from decoder: any Decoder) throws {
            container = try decoder.singleValueContainer()
        }
    }

    @Test func aPropertysKeptContainerThrows() throws {
        struct Holder: Decodable {
            var id: Int
            var name: LazyName
        }
        let conn = try Self.connection()
        let rows = try conn.fetchAll(Holder.self, sql: "SELECT * FROM item ORDER BY id")
        #expect(rows.map(\.id) == [1, 2, 3])
        conn.clearStatementCache()
        for row in rows {
            Self.expectExpired { _ = try row.name.container.decode(String.self) }
        }
    }
}
