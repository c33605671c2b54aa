import Foundation
import NorthwindFixture
import Testing

@testable import Bindery

/// Damaged database files: bytes flipped in the header and in data pages of a copy of Northwind.
/// Opening, reading and writing throw ``SQLiteError`` (``SQLiteError/Code/corrupt`` or
/// ``SQLiteError/Code/notADatabase``) and never crash; `integrityCheck()` reports the damage.
@Suite struct CorruptFileTests {
    typealias Support = ReliabilityTestSupport

    struct Order: Codable, Sendable {
        var orderID: Int64
        var customerID: String?
        var freight: Double?

        enum CodingKeys: String, CodingKey {
            case orderID = "OrderID"
            case customerID = "CustomerID"
            case freight = "Freight"
        }
    }

    /// The page size and the pages of `object` (a table or an index) of the copy at `path` whose
    /// kind (`leaf`, `internal`) is `kind`, read before any damage is done.
    private func pages(of object: String, kind: String, in path: String) throws -> (pageSize: Int, pages: [Int]) {
        let conn = try Connection(path: path, options: Connection.Options(readOnly: true))
        defer { conn.close() }
        let pageSize = try conn.fetchOne(Int.self, sql: "PRAGMA page_size") ?? 0
        let pages = try conn.fetchAll(
            Int.self, sql: "SELECT pageno FROM dbstat WHERE name = \(object) AND pagetype = \(kind) ORDER BY pageno")
        return (pageSize, pages)
    }

    /// Overwrites the b-tree page header (type, first freeblock, cell count, cell content offset) of
    /// every page in `pages`.
    private func smashPageHeaders(_ path: String, pageSize: Int, pages: [Int]) throws {
        for page in pages {
            try Support.overwrite(path, at: (page - 1) * pageSize, with: [0x07, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01])
        }
    }

    /// Flips the low bit of the last payload byte of every cell of the index leaf page `page`;
    /// returns how many cells it changed.
    private func flipLastPayloadBytes(_ path: String, pageSize: Int, page: Int) throws -> Int {
        let start = (page - 1) * pageSize
        var bytes = try Support.read(path, at: start, count: pageSize)
        // An index leaf page: type 10, an 8-byte header with the cell count at bytes 3-4, then the
        // cell pointers, 2 bytes each; a cell starts with its payload size as a varint.
        guard bytes.count == pageSize, bytes[0] == 0x0A else { return 0 }
        let cells = Int(bytes[3]) << 8 | Int(bytes[4])
        var changed = 0
        for cell in 0..<cells {
            let pointer = Int(bytes[8 + 2 * cell]) << 8 | Int(bytes[9 + 2 * cell])
            var payload = 0
            var position = pointer
            for index in 0..<9 where position < pageSize {
                let byte = Int(bytes[position])
                position += 1
                payload = index == 8 ? payload << 8 | byte : payload << 7 | (byte & 0x7F)
                if index < 8 && byte & 0x80 == 0 { break }
            }
            let last = position + payload - 1
            guard payload > 0, last < pageSize else { continue }
            bytes[last] ^= 0x01
            changed += 1
        }
        try Support.overwrite(path, at: start, with: bytes)
        return changed
    }

    private func expectDamaged(_ error: any Error, _ comment: Comment? = nil) {
        guard let error = error as? SQLiteError else {
            Issue.record("expected an SQLiteError, got \(type(of: error)): \(error)")
            return
        }
        #expect(error.code == .corrupt || error.code == .notADatabase, "\(error)")
    }

    // MARK: The header

    /// Header fields whose damage makes SQLite refuse the file at once, with the code it uses.
    static let headerDamage: [(name: String, offset: Int, bytes: [UInt8], code: SQLiteError.Code)] = [
        ("magic string", 0, Array("SQLite format 4".utf8), .notADatabase),
        ("magic string, one bit", 3, [UInt8(ascii: "L") ^ 0x20], .notADatabase),
        ("page size", 16, [0x00, 0x03], .notADatabase),
        ("read version", 19, [0x07], .notADatabase),
        ("maximum payload fraction", 21, [0x00], .notADatabase),
        ("minimum payload fraction", 22, [0xFF], .notADatabase),
        ("leaf payload fraction", 23, [0x00], .notADatabase),
        ("database size in pages", 28, [0x00, 0x00, 0x00, 0x05], .corrupt),
        ("text encoding", 56, [0x00, 0x00, 0x00, 0x07], .corrupt),
        ("page 1 b-tree type", 100, [0x07], .corrupt),
        ("every byte", 0, [UInt8](repeating: 0xA5, count: 100), .notADatabase),
    ]

    @Test(arguments: headerDamage.indices)
    func aDamagedHeaderIsRefusedWhenOpening(_ index: Int) async throws {
        let damage = Self.headerDamage[index]
        try await Support.withDirectory { directory in
            let path = try Support.copyNorthwind(into: directory)
            try Support.overwrite(path, at: damage.offset, with: damage.bytes)

            let error = #expect(throws: SQLiteError.self, "\(damage.name)") { try Connection(path: path) }
            #expect(error?.code == damage.code, "\(damage.name): \(String(describing: error))")
            let readOnly = #expect(throws: SQLiteError.self, "\(damage.name), read-only") {
                try Connection(path: path, options: Connection.Options(readOnly: true))
            }
            #expect(readOnly?.code == damage.code)
            let database = #expect(throws: SQLiteError.self, "\(damage.name), Database") {
                try Database(path: path)
            }
            #expect(database?.code == damage.code)
        }
    }

    @Test func aFileThatIsNotADatabaseIsRefused() async throws {
        try await Support.withDirectory { directory in
            let path = directory.appendingPathComponent("text.db").path
            try Data(String(repeating: "not a database ", count: 1000).utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: SQLiteError.self) { try Database(path: path) }
            #expect(error?.code == .notADatabase)
        }
    }

    // MARK: Data pages

    @Test func damagedTablePagesMakeReadsAndWritesThrowCorrupt() async throws {
        try await Support.withDirectory { directory in
            let path = try Support.copyNorthwind(into: directory)
            let (pageSize, leaves) = try pages(of: "Orders", kind: "leaf", in: path)
            try #require(leaves.count > 10)
            // Every third leaf page of Orders: a full scan meets them whatever the order.
            let smashed = leaves.enumerated().filter { $0.offset % 3 == 1 }.map(\.element)
            try smashPageHeaders(path, pageSize: pageSize, pages: smashed)

            // Opening still works: the schema and the header are intact.
            try await DatabaseTestSupport.closing(Database(path: path)) { db in
                await #expect { try await db.fetchAll(Order.self, sql: "SELECT * FROM Orders") } throws: { error in
                    expectDamaged(error)
                    return true
                }
                await #expect {
                    try await db.read { conn in try conn.fetchOne(Int.self, sql: "SELECT sum(Freight) FROM Orders") }
                } throws: { error in
                    expectDamaged(error)
                    return true
                }
                await #expect {
                    try await db.write { conn in try conn.execute("UPDATE Orders SET Freight = Freight + 1") }
                } throws: { error in
                    expectDamaged(error)
                    return true
                }
                await #expect {
                    try await db.write { conn in try conn.execute("DELETE FROM Orders WHERE Freight > \(10)") }
                } throws: { error in
                    expectDamaged(error)
                    return true
                }
                // The rest of the database still works, for reads and writes.
                let categories = try await db.read { conn in
                    try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM Categories")
                }
                #expect(categories == 8)
                try await db.write { conn in
                    try conn.execute("UPDATE Categories SET Description = \("checked") WHERE CategoryID = \(1)")
                }
                let problems = try await db.integrityCheck()
                #expect(!problems.isEmpty)
                #expect(problems.count <= 100)
                #expect(problems.allSatisfy { !$0.contains("\n") && !$0.hasPrefix("***") })
                #expect(
                    smashed.contains { page in problems.contains { $0.hasPrefix("Page \(page): ") } }, "\(problems)")
            }
        }
    }

    @Test func damagedIndexPagesAreReportedByIntegrityCheck() async throws {
        try await Support.withDirectory { directory in
            let path = try Support.copyNorthwind(into: directory)
            let pristine = try Database(path: path)
            #expect(try await pristine.integrityCheck() == [])
            try await pristine.close()

            // Flip the low bit of the last byte of every entry of the `Order Details` primary-key
            // index (the rowid it points to), leaving the page structure alone: the table reads
            // fine, but the index no longer matches it.
            let (pageSize, leaves) = try pages(of: "sqlite_autoindex_Order Details_1", kind: "leaf", in: path)
            try #require(!leaves.isEmpty)
            var flipped = 0
            for page in leaves {
                flipped += try flipLastPayloadBytes(path, pageSize: pageSize, page: page)
            }
            try #require(flipped > 1000)
            let db = try Database(path: path)
            let count = try await db.read { conn in
                try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM \(identifier: "Order Details") NOT INDEXED")
            }
            #expect(count == NorthwindFixture.rowCounts["Order Details"])
            let problems = try await db.integrityCheck()
            #expect(!problems.isEmpty)
            #expect(problems.contains { $0.contains("sqlite_autoindex_Order Details_1") }, "\(problems.prefix(5))")
            #expect(problems.count <= 100)
            let conn = try Connection(path: path, options: Connection.Options(readOnly: true))
            #expect(try conn.integrityCheck() == problems)
            conn.close()
            try await db.close()
        }
    }

    /// Random bytes flipped at random places of random pages, again and again (seeded, so a failure
    /// replays): whatever the damage, every operation returns or throws; errors from SQLite are
    /// `corrupt` or `notADatabase`, and a value a damaged row no longer holds is a `DecodingError`.
    @Test func randomDamageNeverCrashes() async throws {
        try await Support.withDirectory { directory in
            let pristine = try Support.copyNorthwind(into: directory, name: "pristine.db")
            let (pageSize, orderLeaves) = try pages(of: "Orders", kind: "leaf", in: pristine)
            let (_, interiors) = try pages(of: "Orders", kind: "internal", in: pristine)
            let targets = [1] + Array(2...140) + orderLeaves + interiors
            var generator = Support.SeededGenerator(state: 0x5EED)
            var outcomes: [String: Int] = [:]
            for round in 0..<24 {
                let path = directory.appendingPathComponent("damaged-\(round).db").path
                try FileManager.default.copyItem(atPath: pristine, toPath: path)
                defer { try? FileManager.default.removeItem(atPath: path) }
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    let page = targets.randomElement(using: &generator) ?? 1
                    // Half the time in the page's structure (header, cell pointers), else anywhere.
                    let structure = Bool.random(using: &generator)
                    let within = Int.random(in: 0..<(structure ? 48 : pageSize), using: &generator)
                    let offset = (page - 1) * pageSize + (page == 1 && structure ? 100 : 0) + within
                    let bytes = (0..<Int.random(in: 1...8, using: &generator)).map { _ in
                        UInt8.random(in: 0...255, using: &generator)
                    }
                    try Support.overwrite(path, at: offset, with: bytes)
                }
                for (name, operation) in operations {
                    do {
                        let problems = try operation(path)
                        outcomes["\(name): \(problems ? "returned, damage reported" : "returned")", default: 0] += 1
                    } catch let error as SQLiteError {
                        #expect(
                            [.corrupt, .notADatabase].contains(error.code),
                            "round \(round), \(name): \(error)")
                        outcomes["\(name): \(error.code)", default: 0] += 1
                    } catch is DecodingError {
                        outcomes["\(name): DecodingError", default: 0] += 1
                    }
                }
            }
            // The damage was real: some operations failed, and some integrity checks reported it.
            #expect(
                outcomes.keys.contains { $0.hasSuffix("malformed") || $0.hasSuffix("not a database") }, "\(outcomes)")
            #expect(outcomes["integrity check: returned, damage reported", default: 0] > 0, "\(outcomes)")
        }
    }

    /// What `randomDamageNeverCrashes` runs on each damaged file, each on a connection of its own;
    /// each returns whether it found damage.
    private var operations: [(String, (String) throws -> Bool)] {
        [
            (
                "open",
                { path in
                    try Connection(path: path).close()
                    return false
                }
            ),
            (
                "read",
                { path in
                    let conn = try Connection(path: path)
                    defer { conn.close() }
                    _ = try conn.fetchAll(Order.self, sql: "SELECT * FROM Orders")
                    _ = try conn.rows("SELECT * FROM Categories")
                    return false
                }
            ),
            (
                "write",
                { path in
                    let conn = try Connection(path: path)
                    defer { conn.close() }
                    try conn.transaction(.immediate) { conn in
                        try conn.execute("UPDATE Orders SET Freight = Freight + 1 WHERE OrderID % 7 = 0")
                        try conn.execute("INSERT INTO Categories(CategoryName) VALUES (\("new"))")
                    }
                    return false
                }
            ),
            (
                "integrity check",
                { path in
                    let conn = try Connection(path: path)
                    defer { conn.close() }
                    return try !conn.integrityCheck().isEmpty
                }
            ),
        ]
    }
}
