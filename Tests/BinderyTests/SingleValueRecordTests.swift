import Foundation
import Testing

@testable import Bindery

/// A value that encodes as a single value (or an unkeyed list) is not a row: every way of storing it
/// as a record throws an `EncodingError` naming its type, instead of writing a column named "".
@Suite struct SingleValueRecordTests {
    /// A raw-value enum declared as a record.
    enum Status: String, Record {
        static let tableName = "things"
        case active
    }

    /// A wrapper whose `encode(to:)` stores its one value.
    struct Email: Record {
        static let tableName = "things"
        var value: String

        init(_ value: String) { self.value = value }
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(String.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    /// A pair written as an unkeyed list.
    struct Pair: Record {
        static let tableName = "things"
        var first: Int
        var second: Int

        init(_ first: Int, _ second: Int) {
            self.first = first
            self.second = second
        }
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            first = try container.decode(Int.self)
            second = try container.decode(Int.self)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(first)
            try container.encode(second)
        }
    }

    /// Writes its columns by hand, but its Codable form is a single value.
    struct Tag: Record, ColumnEncodable {
        static let tableName = "things"
        var id: Int64?

        init(id: Int64?) { self.id = id }
        init(from decoder: any Decoder) throws { id = try decoder.singleValueContainer().decode(Int64?.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(id)
        }
        func encodeColumns(to columns: inout ColumnWriter) throws {
            try columns.encode(id, forKey: "id")
        }
    }

    /// The table every attempt would write to, and a connection holding it.
    private func connection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: #"CREATE TABLE things (id INTEGER PRIMARY KEY, "" TEXT, "0" ANY, "1" ANY)"#)
        return conn
    }

    /// Checks that `body` throws `EncodingError.invalidValue` naming `typeName` and saying that a record
    /// needs keyed properties, and that nothing was written.
    private func expectRefused(
        _ typeName: String, _ conn: Connection, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) throws {
        let error = try #require(throws: EncodingError.self, sourceLocation: sourceLocation) { try body() }
        guard case .invalidValue(_, let context) = error else {
            Issue.record("expected invalidValue, got \(error)", sourceLocation: sourceLocation)
            return
        }
        #expect(context.debugDescription.hasPrefix(typeName + " "), sourceLocation: sourceLocation)
        #expect(context.debugDescription.contains("a record needs keyed properties"), sourceLocation: sourceLocation)
        #expect(try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM things") == 0, sourceLocation: sourceLocation)
    }

    @Test func rawValueEnumIsRefusedByEveryOperation() throws {
        let conn = try connection()
        try expectRefused("Status", conn) { try conn.insert(Status.active) }
        try expectRefused("Status", conn) { try conn.insert(Status.active, onConflict: .ignore) }
        try expectRefused("Status", conn) { try conn.update(Status.active) }
        try expectRefused("Status", conn) { try conn.upsert(Status.active) }
        try expectRefused("Status", conn) { try conn.insert(contentsOf: [Status.active]) }
        try expectRefused("Status", conn) { _ = try RowEncoder().encode(Status.active) }
    }

    @Test func singleValueContainerIsRefusedByEveryOperation() throws {
        let conn = try connection()
        let email = Email("ana@example.com")
        try expectRefused("Email", conn) { try conn.insert(email) }
        try expectRefused("Email", conn) { try conn.update(email) }
        try expectRefused("Email", conn) { try conn.upsert(email) }
        try expectRefused("Email", conn) { try conn.insert(contentsOf: [email, email]) }
        try expectRefused("Email", conn) { _ = try RowEncoder().encode(email) }
    }

    @Test func unkeyedContainerIsRefusedByEveryOperation() throws {
        let conn = try connection()
        try expectRefused("Pair", conn) { try conn.insert(Pair(1, 2)) }
        try expectRefused("Pair", conn) { try conn.update(Pair(1, 2)) }
        try expectRefused("Pair", conn) { try conn.upsert(Pair(1, 2)) }
        try expectRefused("Pair", conn) { try conn.insert(contentsOf: [Pair(1, 2)]) }
        try expectRefused("Pair", conn) { _ = try RowEncoder().encode(Pair(1, 2)) }
    }

    @Test func topLevelScalarsAreRefused() throws {
        let conn = try connection()
        try expectRefused("String", conn) { _ = try RowEncoder().encode("text") }
        try expectRefused("Int", conn) { _ = try RowEncoder().encode(42) }
        try expectRefused("Date", conn) { _ = try RowEncoder().encode(Date()) }
        try expectRefused("Optional<Int>", conn) { _ = try RowEncoder().encode(Int?.none) }
        try expectRefused("Array<Int>", conn) { _ = try RowEncoder().encode([1, 2]) }
        // One value is still encoded as a property would be.
        #expect(try RowEncoder().encodeValue("text") == .text("text"))
    }

    @Test func columnEncodableWhoseCodableFormIsOneValueIsRefused() throws {
        let conn = try connection()
        try expectRefused("Tag", conn) { try conn.insert(Tag(id: 1)) }
        try expectRefused("Tag", conn) { try conn.insert(contentsOf: [Tag(id: 1), Tag(id: 2)]) }
        try expectRefused("Tag", conn) { _ = try RowEncoder().encode(Tag(id: 1)) }
    }

    /// A type that fails once does not leave the shared encoder in a state that breaks a good record.
    @Test func aGoodRecordStillEncodesAfterARefusal() throws {
        struct Good: Record, Equatable {
            static let tableName = "things"
            var id: Int64?
        }
        let conn = try connection()
        try expectRefused("Email", conn) { try conn.insert(Email("x")) }
        #expect(try conn.insert(Good(id: nil)) == Good(id: 1))
        #expect(try RowEncoder().encode(Good(id: 3)).map(\.column) == ["id"])
    }
}
