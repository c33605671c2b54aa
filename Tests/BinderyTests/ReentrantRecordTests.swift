import Foundation
import Testing

@testable import Bindery

/// Record operations that user code re-enters for the same type on the same connection: an
/// `encode(to:)` that inserts another record of its own type, an `init(from:)` that fetches its own
/// type. Each operation keeps its own row: the outer record is stored and read as it is. Serialized:
/// the tests share `Spawning.connection`.
@Suite(.serialized) struct ReentrantRecordTests {
    /// A record whose `encode(to:)` inserts a child of its own type (after its own keys) when its name
    /// starts with "outer": by a bulk insert when it starts with "outer bulk".
    struct Spawning: Record, Equatable {
        static let tableName = "spawning"
        nonisolated(unsafe) static var connection: Connection?
        var id: Int64?
        var name: String
        var size: Int

        enum CodingKeys: String, CodingKey {
            case id, name, size
        }

        init(id: Int64? = nil, name: String, size: Int) {
            self.id = id
            self.name = name
            self.size = size
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(size, forKey: .size)
            if name.hasPrefix("outer bulk"), let connection = Self.connection {
                try connection.insert(contentsOf: [Spawning(name: "child of \(name)", size: -size)])
            } else if name.hasPrefix("outer"), let connection = Self.connection {
                try connection.insert(Spawning(name: "child of \(name)", size: -size))
            }
        }
    }

    private static func spawningConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute("CREATE TABLE spawning (id INTEGER PRIMARY KEY, name TEXT NOT NULL, size INTEGER NOT NULL)")
        return conn
    }

    /// The table's rows as "name=size", sorted.
    private static func stored(_ conn: Connection) throws -> [String] {
        try conn.fetchAll(Spawning.self, sql: "SELECT * FROM spawning").map { "\($0.name)=\($0.size)" }.sorted()
    }

    @Test func anEncodeThatInsertsItsOwnTypeKeepsTheOuterRow() throws {
        let conn = try Self.spawningConnection()
        Spawning.connection = conn
        defer { Spawning.connection = nil }
        let saved = try conn.insert(Spawning(name: "outer", size: 3))
        #expect(saved.name == "outer" && saved.size == 3)
        #expect(try Self.stored(conn) == ["child of outer=-3", "outer=3"])
        // The shared encoder is free again: a plain insert after it is stored as given.
        try conn.insert(Spawning(name: "plain", size: 1))
        #expect(try Self.stored(conn).contains("plain=1"))
    }

    @Test func bulkInsertsWhoseRecordsInsertTheirOwnTypeKeepEachRow() throws {
        let conn = try Self.spawningConnection()
        Spawning.connection = conn
        defer { Spawning.connection = nil }
        let records = [
            Spawning(name: "outer 1", size: 1), Spawning(name: "plain 2", size: 2),
            Spawning(name: "outer bulk 3", size: 3),
        ]
        #expect(try conn.insert(contentsOf: records) == 3)
        #expect(
            try Self.stored(conn) == [
                "child of outer 1=-1", "child of outer bulk 3=-3", "outer 1=1", "outer bulk 3=3", "plain 2=2",
            ])
        try conn.deleteAll(Spawning.self)
        let fetched = try conn.insertAndFetch(contentsOf: records)
        #expect(fetched.map(\.name) == ["outer 1", "plain 2", "outer bulk 3"])
        #expect(fetched.map(\.size) == [1, 2, 3])
        #expect(try Self.stored(conn).count == 5)
        // Through a sequence that is no array too.
        try conn.deleteAll(Spawning.self)
        #expect(try conn.insert(contentsOf: records.lazy.map { $0 }) == 3)
        #expect(try Self.stored(conn).count == 5)
    }

    @Test func updatesAndUpsertsWhoseEncodeInsertsTheirOwnTypeWriteTheOuterRow() throws {
        let conn = try Self.spawningConnection()
        try conn.insert(Spawning(id: 1, name: "first", size: 1))
        Spawning.connection = conn
        defer { Spawning.connection = nil }
        try conn.update(Spawning(id: 1, name: "outer updated", size: 10))
        #expect(try conn.find(Spawning.self, id: 1) == Spawning(id: 1, name: "outer updated", size: 10))
        try conn.update(Spawning(id: 1, name: "outer columns", size: 11), columns: ["name"])
        #expect(try conn.find(Spawning.self, id: 1) == Spawning(id: 1, name: "outer columns", size: 10))
        let upserted = try conn.upsert(Spawning(id: 1, name: "outer upserted", size: 12))
        #expect(upserted == Spawning(id: 1, name: "outer upserted", size: 12))
        #expect(try conn.find(Spawning.self, id: 1) == upserted)
        #expect(try conn.delete(Spawning(id: 1, name: "outer deleted", size: 0)))
        #expect(try conn.find(Spawning.self, id: 1) == nil)
        #expect(
            try Self.stored(conn) == [
                "child of outer columns=-11", "child of outer deleted=0", "child of outer updated=-10",
                "child of outer upserted=-12",
            ])
    }

    /// A record whose `init(from:)` fetches records of its own type when its name starts with "outer":
    /// once with the SQL being decoded, once with other SQL.
    struct Fetching: Record, Equatable {
        static let tableName = "fetching"
        nonisolated(unsafe) static var connection: Connection?
        var id: Int64?
        var name: String
        var size: Int
        var nested: [String] = []

        enum CodingKeys: String, CodingKey {
            case id, name, size
        }

        init(id: Int64? = nil, name: String, size: Int, nested: [String] = []) {
            self.id = id
            self.name = name
            self.size = size
            self.nested = nested
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            if name.hasPrefix("outer"), let connection = Self.connection {
                // Fetched half-way through the keys: the outer row must still read its own size.
                let leaves = try connection.fetchAll(Fetching.self, where: "name LIKE 'leaf%'", orderBy: "id")
                let all = try connection.fetchAll(Fetching.self, sql: "SELECT * FROM fetching WHERE name LIKE 'leaf%'")
                nested = leaves.map(\.name) + all.map(\.name)
            }
            size = try container.decode(Int.self, forKey: .size)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(size, forKey: .size)
        }
    }

    @Test func anInitThatFetchesItsOwnTypeKeepsTheOuterRow() throws {
        let conn = try Connection.inMemory()
        try conn.execute("CREATE TABLE fetching (id INTEGER PRIMARY KEY, name TEXT NOT NULL, size INTEGER NOT NULL)")
        try conn.insert(contentsOf: [
            Fetching(name: "outer 1", size: 1), Fetching(name: "leaf 2", size: 2), Fetching(name: "outer 3", size: 3),
            Fetching(name: "leaf 4", size: 4),
        ])
        Fetching.connection = conn
        defer { Fetching.connection = nil }
        let leaves = ["leaf 2", "leaf 4", "leaf 2", "leaf 4"]
        let expected = [
            Fetching(id: 1, name: "outer 1", size: 1, nested: leaves), Fetching(id: 2, name: "leaf 2", size: 2),
            Fetching(id: 3, name: "outer 3", size: 3, nested: leaves), Fetching(id: 4, name: "leaf 4", size: 4),
        ]
        #expect(try conn.fetchAll(Fetching.self, orderBy: "id") == expected)
        #expect(
            try conn.fetchAll(Fetching.self, sql: "SELECT * FROM fetching WHERE name LIKE 'leaf%' OR 1") == expected)
        #expect(try conn.fetchCursor(Fetching.self, orderBy: "id").collect() == expected)
        #expect(try conn.find(Fetching.self, id: 3) == expected[2])
        // Rows read back through RETURNING, by one insert and by a bulk one.
        let saved = try conn.insert(Fetching(name: "outer 5", size: 5))
        #expect(saved == Fetching(id: 5, name: "outer 5", size: 5, nested: leaves))
        let fetched = try conn.insertAndFetch(contentsOf: [
            Fetching(name: "outer 6", size: 6), Fetching(name: "leaf 7", size: 7),
        ])
        #expect(
            fetched == [
                Fetching(id: 6, name: "outer 6", size: 6, nested: leaves),
                Fetching(id: 7, name: "leaf 7", size: 7),
            ])
    }

    /// A record whose `init(from:)` finds its parent, a record of its own type, by id: `find` inside
    /// `find`, each decoding into the memory the type keeps for it.
    struct Finding: Record, Equatable {
        static let tableName = "finding"
        nonisolated(unsafe) static var connection: Connection?
        var id: Int64
        var name: String
        var parentID: Int64?
        var parent: String?

        enum CodingKeys: String, CodingKey {
            case id, name, parentID
        }

        init(id: Int64, name: String, parentID: Int64?, parent: String? = nil) {
            (self.id, self.name, self.parentID, self.parent) = (id, name, parentID, parent)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int64.self, forKey: .id)
            parentID = try container.decodeIfPresent(Int64.self, forKey: .parentID)
            if let parentID, let connection = Self.connection, let found = try connection.find(Self.self, id: parentID)
            {
                parent = "\(found.name) < \(found.parent ?? "root")"
            }
            name = try container.decode(String.self, forKey: .name)
        }
    }

    @Test func anInitThatFindsItsOwnTypeByIDKeepsTheOuterRecord() throws {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE finding (id INTEGER PRIMARY KEY, name TEXT NOT NULL, parentID INTEGER)")
        try conn.insert(contentsOf: [
            Finding(id: 1, name: "root one", parentID: nil), Finding(id: 2, name: "middle two", parentID: 1),
            Finding(id: 3, name: "leaf three", parentID: 2),
        ])
        Finding.connection = conn
        defer { Finding.connection = nil }
        for _ in 0..<3 {
            #expect(
                try conn.find(Finding.self, id: 3)
                    == Finding(id: 3, name: "leaf three", parentID: 2, parent: "middle two < root one < root"))
            #expect(try conn.find(Finding.self, id: 1) == Finding(id: 1, name: "root one", parentID: nil))
            #expect(try conn.find(Finding.self, id: 4) == nil)
        }
    }
}
