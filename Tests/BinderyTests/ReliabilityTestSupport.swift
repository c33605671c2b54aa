import Foundation
import NorthwindFixture
import Testing

@testable import Bindery

/// Files, copies and checksums shared by the reliability suites (corrupt files, full disks, hostile
/// input, backups).
enum ReliabilityTestSupport {
    /// Runs `body` with a fresh directory, removed afterwards.
    static func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-reliability-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// Copies the Northwind fixture (expanded from `Tests/Fixtures`) into `directory` and returns the copy's path.
    static func copyNorthwind(into directory: URL, name: String = "northwind.db") throws -> String {
        let copy = directory.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: NorthwindFixture.databasePath(), toPath: copy)
        return copy
    }

    /// Overwrites bytes of the file at `path`, starting at `offset`.
    static func overwrite(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
        try handle.synchronize()
    }

    /// Reads `count` bytes of the file at `path`, starting at `offset`.
    static func read(_ path: String, at offset: Int, count: Int) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    }

    /// A checksum of every table's rows (in any order) and of the schema: equal checksums
    /// mean, for the purpose of these tests, the same content. Tables named in `except` are skipped.
    static func checksum(_ conn: Connection, except: Set<String> = []) throws -> [String: UInt64] {
        var sums: [String: UInt64] = [:]
        let schema = try conn.rows(
            "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema ORDER BY name", arguments: [])
        sums["sqlite_schema"] = fnv1a(try schema.map(values(of:)))
        let tables = try conn.fetchAll(
            String.self,
            sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        for table in tables where !except.contains(table) {
            let rows = try conn.rows("SELECT * FROM \(identifier: table)")
            // Each row hashed alone, then the hashes sorted: the order rows come in does not matter.
            let hashes = try rows.map { row in fnv1a([try values(of: row)]) }
            sums[table] = fnv1a([hashes.sorted().map { .integer(Int64(bitPattern: $0)) }])
        }
        return sums
    }

    /// Every value of `row`, in column order.
    static func values(of row: Row) throws -> [SQLiteValue] {
        try (0..<row.count).map { index in try row[index] as SQLiteValue }
    }

    /// FNV-1a over the values' storage classes and bytes.
    static func fnv1a(_ rows: [[SQLiteValue]]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
            for byte in bytes {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
        for row in rows {
            add([0xFF])
            for value in row {
                switch value {
                case .null: add([0])
                case .integer(let integer): add([1] + withUnsafeBytes(of: integer.littleEndian) { Array($0) })
                case .real(let real): add([2] + withUnsafeBytes(of: real.bitPattern.littleEndian) { Array($0) })
                case .text(let text): add([3] + withUnsafeBytes(of: text.utf8.count) { Array($0) } + Array(text.utf8))
                case .blob(let data): add([4] + withUnsafeBytes(of: data.count) { Array($0) } + Array(data))
                }
            }
        }
        return hash
    }

    /// A deterministic random number generator (SplitMix64), so that a failing case can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
