import Foundation
import Testing

@testable import Bindery

/// The calls by key (`update`, `upsert`, `delete`, `find`, `exists`) keep the SQL and the key slots of
/// the last row of each type: a row of another shape, a missing key or a key column learned late must
/// still get its own statement and its own errors.
@Suite struct RecordCallPlanTests {
    /// A record whose `encode(to:)` leaves `note` out when `keepsNote` is set: an update then leaves
    /// the column as it is.
    struct Memo: Record, Equatable {
        static let tableName = "memos"
        var id: Int64?
        var title: String
        var note: String?
        var keepsNote = false

        enum CodingKeys: String, CodingKey {
            case id, title, note
        }

        init(id: Int64?, title: String, note: String?, keepsNote: Bool = false) {
            (self.id, self.title, self.note, self.keepsNote) = (id, title, note, keepsNote)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decodeIfPresent(Int64.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            note = try container.decodeIfPresent(String.self, forKey: .note)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(id, forKey: .id)
            try container.encode(title, forKey: .title)
            if !keepsNote {
                try container.encodeIfPresent(note, forKey: .note)
            }
        }
    }

    /// A key column that is neither first nor named `id`, under the snake-case strategy.
    struct Badge: Record, Equatable {
        static let tableName = "badges"
        static let primaryKey = ["badge_code"]
        var label: String
        var level: Int?
        var badgeCode: String
    }

    /// Closes the connection it holds when a record is decoded; handed to `Closing.init(from:)` through
    /// `userInfo`.
    final class Closer: @unchecked Sendable {
        // @unchecked: each box is used by one test, on one thread.
        var connection: Connection?
        static let key = CodingUserInfoKey(rawValue: "bindery.plan.closer")
    }

    /// A record whose `init(from:)` closes its connection.
    struct Closing: Record, Equatable {
        static let tableName = "closing"
        var id: Int64
        var name: String

        init(id: Int64, name: String) {
            (self.id, self.name) = (id, name)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int64.self, forKey: .id)
            name = try container.decode(String.self, forKey: .name)
            if let key = Closer.key, let closer = decoder.userInfo[key] as? Closer {
                closer.connection?.close()
            }
        }
    }

    static func memos() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE memos (id INTEGER PRIMARY KEY, title TEXT NOT NULL, note TEXT)")
        return conn
    }

    @Test func updatesOfEveryShapeWriteTheirOwnColumns() throws {
        let conn = try Self.memos()
        try conn.insert(Memo(id: 1, title: "a", note: "first"))
        try conn.update(Memo(id: 1, title: "b", note: "second"))
        #expect(try conn.find(Memo.self, id: 1) == Memo(id: 1, title: "b", note: "second"))
        // Without the note: its column keeps its value.
        try conn.update(Memo(id: 1, title: "c", note: "ignored", keepsNote: true))
        #expect(try conn.find(Memo.self, id: 1) == Memo(id: 1, title: "c", note: "second"))
        try conn.update(Memo(id: 1, title: "d", note: nil))
        #expect(try conn.find(Memo.self, id: 1) == Memo(id: 1, title: "d", note: nil))
        try conn.update(Memo(id: 1, title: "e", note: "third", keepsNote: true))
        #expect(try conn.find(Memo.self, id: 1) == Memo(id: 1, title: "e", note: nil))
        try conn.update(Memo(id: 1, title: "f", note: "fourth"))
        #expect(try conn.find(Memo.self, id: 1) == Memo(id: 1, title: "f", note: "fourth"))
    }

    @Test func upsertsOfEveryShapeWriteTheirOwnColumns() throws {
        let conn = try Self.memos()
        #expect(try conn.upsert(Memo(id: 1, title: "a", note: nil)) == Memo(id: 1, title: "a", note: nil))
        #expect(try conn.upsert(Memo(id: 1, title: "b", note: "x")) == Memo(id: 1, title: "b", note: "x"))
        #expect(try conn.upsert(Memo(id: 2, title: "c", note: "y")) == Memo(id: 2, title: "c", note: "y"))
        #expect(try conn.upsert(Memo(id: 1, title: "d", note: nil)) == Memo(id: 1, title: "d", note: nil))
        #expect(
            try conn.upsert(Memo(id: 2, title: "e", note: "z", keepsNote: true)) == Memo(id: 2, title: "e", note: "y"))
        #expect(try conn.upsert(Memo(id: 3, title: "f", note: "w")) == Memo(id: 3, title: "f", note: "w"))
        #expect(
            try conn.fetchAll(Memo.self, orderBy: "id") == [
                Memo(id: 1, title: "d", note: nil), Memo(id: 2, title: "e", note: "y"),
                Memo(id: 3, title: "f", note: "w"),
            ])
    }

    @Test func aMissingKeyIsRefusedAfterAKeyWasFound() throws {
        let conn = try Self.memos()
        try conn.insert(Memo(id: 1, title: "a", note: nil))
        for _ in 0..<2 {
            try conn.update(Memo(id: 1, title: "b", note: nil))
            #expect(throws: RecordError.missingPrimaryKey(table: "memos", column: "id")) {
                try conn.update(Memo(id: nil, title: "c", note: nil))
            }
            #expect(throws: RecordError.missingPrimaryKey(table: "memos", column: "id")) {
                try conn.delete(Memo(id: nil, title: "c", note: nil))
            }
            #expect(throws: RecordError.notFound(table: "memos", key: ["id": .integer(2)])) {
                try conn.update(Memo(id: 2, title: "c", note: nil))
            }
        }
        #expect(try conn.fetchAll(Memo.self) == [Memo(id: 1, title: "b", note: nil)])
        #expect(try conn.delete(Memo(id: 1, title: "b", note: nil)))
        #expect(try !conn.delete(Memo(id: 1, title: "b", note: nil)))
    }

    @Test func aKeyColumnOfItsOwnNameUnderSnakeCase() throws {
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(keyStrategy: .snakeCase)
        try conn.createTable(for: Badge.self)
        try conn.insert(Badge(label: "gold", level: 3, badgeCode: "g"))
        try conn.insert(Badge(label: "silver", level: nil, badgeCode: "s"))
        try conn.update(Badge(label: "golden", level: 4, badgeCode: "g"))
        #expect(try conn.find(Badge.self, id: "g") == Badge(label: "golden", level: 4, badgeCode: "g"))
        #expect(try conn.upsert(Badge(label: "bronze", level: 1, badgeCode: "b")).label == "bronze")
        #expect(try conn.exists(Badge.self, id: "b"))
        #expect(try conn.delete(Badge.self, id: "s"))
        #expect(try !conn.exists(Badge.self, id: "s"))
        #expect(throws: RecordError.notFound(table: "badges", key: ["badge_code": .text("s")])) {
            try conn.update(Badge(label: "x", level: nil, badgeCode: "s"))
        }
        #expect(try conn.count(Badge.self) == 2)
    }

    /// The record is decoded and the connection closes under it: the call throws, as every other
    /// operation does then.
    @Test func aFindOrUpsertWhoseDecodingClosesTheConnectionThrows() throws {
        for upserting in [false, true] {
            let closer = Closer()
            let conn = try Connection.inMemory()
            conn.codingOptions = CodingOptions(userInfo: Closer.key.map { [$0: closer] } ?? [:])
            try conn.execute(script: "CREATE TABLE closing (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try conn.insert(contentsOf: [Closing(id: 1, name: "one")])
            closer.connection = conn
            let error = try #require(throws: SQLiteError.self) {
                if upserting {
                    try conn.upsert(Closing(id: 1, name: "uno"))
                } else {
                    _ = try conn.find(Closing.self, id: 1)
                }
            }
            #expect(error.code == .misuse)
            #expect(conn.isClosed)
        }
    }

    @Test func aFindWhoseRowCannotBeDecodedThrowsAndTheNextOneWorks() throws {
        let conn = try Self.memos()
        try conn.execute(script: "INSERT INTO memos (id, title, note) VALUES (1, 'a', 'x'), (2, x'00ff', NULL)")
        #expect(throws: DecodingError.self) { try conn.find(Memo.self, id: 2) }
        #expect(try conn.find(Memo.self, id: 1) == Memo(id: 1, title: "a", note: "x"))
        #expect(try conn.find(Memo.self, id: 3) == nil)
    }
}
