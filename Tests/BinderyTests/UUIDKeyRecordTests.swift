import Foundation
import Testing

@testable import Bindery

/// Every record operation on a record whose primary key is a `UUID`, stored as lowercase text.
@Suite struct UUIDKeyRecordTests {
    struct Device: Record, Equatable {
        static let tableName = "devices"
        var id: UUID
        var name: String
        var port: Int?
        var lastSeen: Date?
    }

    // MARK: Helpers

    private func makeConnection() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.createTable(for: Device.self)
        return conn
    }

    /// A UUID whose last byte is `n`, so that ids sort in the order they were made.
    private func uuid(_ n: Int) -> UUID {
        let hex = String(n, radix: 16)
        let suffix = String(repeating: "0", count: 12 - hex.count) + hex
        return UUID(uuidString: "00000000-0000-4000-8000-\(suffix)") ?? UUID()
    }

    private func device(_ n: Int, name: String? = nil, port: Int? = nil, lastSeen: Date? = nil) -> Device {
        Device(id: uuid(n), name: name ?? "device \(n)", port: port, lastSeen: lastSeen)
    }

    private func allRows(_ conn: Connection) throws -> [Device] {
        try conn.fetchAll(Device.self, orderBy: "id")
    }

    private func notFound(_ id: UUID) -> RecordError {
        .notFound(table: "devices", key: ["id": .text(id.uuidString.lowercased())])
    }

    // MARK: Tests

    @Test func createTableMakesATextPrimaryKey() throws {
        let conn = try Connection.inMemory()
        let sql = try conn.createTableSQL(for: Device.self)
        #expect(sql.contains(#""id" TEXT NOT NULL PRIMARY KEY"#))
    }

    @Test func insertReturnsTheStoredRowWithTheIDAsLowercaseText() throws {
        let conn = try makeConnection()
        let id = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let seen = Date(timeIntervalSince1970: 1_700_000_000.5)
        let saved = try conn.insert(Device(id: id, name: "phone", port: 8080, lastSeen: seen))
        #expect(saved == Device(id: id, name: "phone", port: 8080, lastSeen: seen))
        let rows = try conn.rows("SELECT typeof(id), id FROM devices")
        #expect(try rows[0][0] as String == "text")
        #expect(try rows[0][1] as String == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        #expect(try conn.find(Device.self, id: id) == saved)
        #expect(try conn.find(Device.self, id: uuid(1)) == nil)
    }

    @Test func insertOfADuplicateIDThrowsConstraint() throws {
        let conn = try makeConnection()
        try conn.insert(device(1))
        let error = #expect(throws: SQLiteError.self) {
            try conn.insert(device(1, name: "again"))
        }
        #expect(error?.code == .constraint)
        #expect(try allRows(conn) == [device(1)])
    }

    @Test func updateWritesEveryColumnAndNullForNil() throws {
        let conn = try makeConnection()
        try conn.insert(device(1, port: 1, lastSeen: Date(timeIntervalSince1970: 10)))
        try conn.insert(device(2))
        let changed = device(1, name: "renamed", port: nil, lastSeen: nil)
        try conn.update(changed)
        #expect(try allRows(conn) == [changed, device(2)])
        #expect(try conn.fetchOne(String.self, sql: "SELECT typeof(port) FROM devices WHERE id = \(uuid(1))") == "null")
    }

    @Test func updateOfAMissingRowThrowsNotFoundAndChangesNothing() throws {
        let conn = try makeConnection()
        try conn.insert(device(1))
        let before = try allRows(conn)
        #expect(throws: notFound(uuid(9))) {
            try conn.update(device(9))
        }
        #expect(throws: notFound(uuid(9))) {
            try conn.update(device(9), columns: ["port"])
        }
        #expect(try allRows(conn) == before)
    }

    @Test func updateColumnsWritesOnlyThoseColumns() throws {
        let conn = try makeConnection()
        try conn.insert(device(1, port: 1))
        try conn.update(device(1, name: "not written", port: 2), columns: ["port"])
        #expect(try allRows(conn) == [device(1, port: 2)])
        #expect(throws: RecordError.unknownColumns(table: "devices", columns: ["host"])) {
            try conn.update(device(1, port: 3), columns: ["host"])
        }
        #expect(try allRows(conn) == [device(1, port: 2)])
    }

    @Test func upsertInsertsThenUpdates() throws {
        let conn = try makeConnection()
        #expect(try conn.upsert(device(1, port: 1)) == device(1, port: 1))
        let second = device(1, name: "second", port: nil, lastSeen: Date(timeIntervalSince1970: 99))
        #expect(try conn.upsert(second) == second)
        #expect(try allRows(conn) == [second])
        #expect(try conn.upsert(device(2)) == device(2))
        #expect(try conn.count(Device.self) == 2)
    }

    @Test func insertContentsOfAndQueries() throws {
        let conn = try makeConnection()
        let devices = (1...100).map { device($0, port: $0 % 2 == 0 ? $0 : nil) }
        #expect(try conn.insert(contentsOf: devices) == 100)
        #expect(try allRows(conn) == devices)
        #expect(try conn.find(Device.self, id: uuid(42)) == devices[41])
        let even = try conn.fetchAll(Device.self, where: "port IS NOT NULL", orderBy: "port DESC", limit: 3)
        #expect(even.map(\.port) == [100, 98, 96])
        #expect(try conn.fetchOne(Device.self, where: "id = \(uuid(7))") == devices[6])
        #expect(try conn.count(Device.self, where: "port IS NULL") == 50)
        #expect(try conn.exists(Device.self, where: "id = \(uuid(100))"))
        #expect(try conn.exists(Device.self, where: "id = \(uuid(101))") == false)
        let cursor = try conn.fetchCursor(Device.self, where: "port > \(90)", orderBy: "id")
        #expect(try cursor.collect() == devices.filter { ($0.port ?? 0) > 90 })
    }

    @Test func insertContentsOfWithADuplicateLeavesNothing() throws {
        let conn = try makeConnection()
        #expect(throws: SQLiteError.self) {
            try conn.insert(contentsOf: [device(1), device(2), device(1), device(3)])
        }
        #expect(try conn.count(Device.self) == 0)
    }

    @Test func deleteVariants() throws {
        let conn = try makeConnection()
        try conn.insert(contentsOf: (1...6).map { device($0, port: $0) })
        #expect(try conn.delete(device(1)))
        #expect(try conn.delete(device(1)) == false)
        #expect(try conn.delete(Device.self, id: uuid(2)))
        #expect(try conn.delete(Device.self, id: uuid(2)) == false)
        #expect(try conn.delete(Device.self, where: "port >= \(5)") == 2)
        #expect(try allRows(conn).map(\.id) == [uuid(3), uuid(4)])
        #expect(try conn.deleteAll(Device.self) == 2)
        #expect(try conn.exists(Device.self) == false)
    }

    @Test func aBlobIDUnderTheBlobStrategy() throws {
        let conn = try Connection.inMemory()
        conn.codingOptions = CodingOptions(uuidStrategy: .blob)
        try conn.createTable(for: Device.self)
        try conn.insert(contentsOf: [device(1), device(2, port: 2)])
        #expect(try conn.fetchOne(String.self, sql: "SELECT typeof(id) FROM devices LIMIT 1") == "blob")
        #expect(try conn.find(Device.self, id: uuid(2)) == device(2, port: 2))
        try conn.update(device(1, name: "blob"))
        #expect(try conn.upsert(device(2, port: 3)) == device(2, port: 3))
        #expect(try conn.fetchOne(Device.self, where: "id = \(uuid(1))")?.name == "blob")
        #expect(try conn.delete(Device.self, id: uuid(1)))
        #expect(try conn.count(Device.self) == 1)
    }

    @Test func anUppercaseIDStoredBySQLIsFoundAndDecoded() throws {
        let conn = try makeConnection()
        let id = uuid(0xABC)
        try conn.execute(
            "INSERT INTO devices (id, name) VALUES (?, ?)", arguments: [.text(id.uuidString.uppercased()), "upper"])
        #expect(try conn.fetchAll(Device.self) == [Device(id: id, name: "upper", port: nil, lastSeen: nil)])
    }
}
