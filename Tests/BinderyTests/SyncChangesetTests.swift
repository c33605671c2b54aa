import Foundation
import Testing

@testable import Bindery

@Suite("Sync changesets")
struct SyncChangesetTests {
    /// The changeset a change recorder makes of `statements` run on a table made by `schema`.
    static func recorded(schema: String, table: String, _ statements: String) throws -> [UInt8] {
        let connection = try Connection.inMemory()
        try connection.execute(script: schema)
        let recorder = try connection.openChangeRecorder(tables: [table])
        try connection.execute(script: statements)
        return try ChangeRecorderTests.changeset(recorder, on: connection)
    }

    @Test func recordedBytesReadAndWriteBackUnchanged() throws {
        let bytes = try Self.recorded(
            schema: "CREATE TABLE t(a TEXT, b INTEGER, c BLOB, d REAL, PRIMARY KEY (b, a))", table: "t",
            """
            INSERT INTO t VALUES ('x', 1, x'00ff', 1.5), ('y', 2, NULL, -0.0), ('z', 3, zeroblob(300), 1e300);
            """)
        let changeset = try Changeset(parsing: bytes)
        #expect(changeset.tables.map(\.name) == ["t"])
        #expect(changeset.tables[0].primaryKey == [true, true, false, false])
        #expect(changeset.serialized() == bytes)
        #expect(changeset.changeCount == 3)
        #expect(try Changeset.inverse(of: Changeset.inverse(of: bytes)) == bytes)
    }

    @Test func damagedBytesThrowMalformedChangeset() throws {
        let bytes = try Self.recorded(
            schema: "CREATE TABLE t(id TEXT PRIMARY KEY, v TEXT)", table: "t",
            "INSERT INTO t VALUES ('1', 'one'), ('2', 'two')")
        var failures = 0
        for length in 0..<bytes.count {
            do {
                _ = try Changeset(parsing: Array(bytes.prefix(length)))
            } catch SyncError.malformedChangeset {
                failures += 1
            }
        }
        // Every cut inside a change throws (cuts at a change's end read fewer changes).
        #expect(failures >= bytes.count - 3)
        #expect(throws: SyncError.self) { try Changeset(parsing: [UInt8(ascii: "P")] + bytes.dropFirst()) }
        #expect(throws: SyncError.self) { try Changeset(parsing: Array(bytes.prefix(5)) + [0xff, 0xff, 0xff]) }
    }
}
