import Foundation
import Testing

@testable import Bindery

/// Text keys are told apart by their bytes, as SQLite's `BINARY` collation tells them apart, never by
/// Swift's canonical equivalence of `String`s: `"é"` written as one code point and as `e` with a
/// combining accent are two keys of a table, and each parent gets its own children.
@Suite struct TextKeyExactnessTests {
    struct Folder: Record, Equatable {
        static let tableName = "folder"
        static let primaryKey = ["name"]
        var name: String
        static let files = hasMany(File.self, using: ForeignKey(["folder"]))
    }

    struct File: Record, Equatable {
        static let tableName = "file"
        var id: Int64
        var folder: String
    }

    struct FolderFiles: Decodable, Equatable {
        var folder: Folder
        var files: [File]
    }

    /// "é" as one code point (NFC) and as two (NFD): equal as Swift strings, two keys to SQLite.
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    static func connection() throws -> Connection {
        let conn = try Connection(path: ":memory:")
        try conn.execute(
            script: """
                CREATE TABLE folder (name TEXT PRIMARY KEY);
                CREATE TABLE file (id INTEGER PRIMARY KEY, folder TEXT NOT NULL REFERENCES folder(name));
                """)
        try conn.insert(Folder(name: composed))
        try conn.insert(Folder(name: decomposed))
        try conn.insert(File(id: 1, folder: composed))
        try conn.insert(File(id: 2, folder: decomposed))
        try conn.insert(File(id: 3, folder: decomposed))
        return conn
    }

    @Test func sqliteValuesCompareTextByBytes() {
        #expect(Self.composed == Self.decomposed)
        #expect(SQLiteValue.text(Self.composed) != SQLiteValue.text(Self.decomposed))
        #expect(Set([SQLiteValue.text(Self.composed), .text(Self.decomposed)]).count == 2)
        #expect(SQLiteValue.text(Self.composed) == SQLiteValue.text("caf" + "\u{E9}"))
    }

    @Test func eachParentGetsItsOwnChildren() throws {
        let conn = try Self.connection()
        let found = try conn.fetchAll(FolderFiles.self, Folder.including(all: Folder.files).order("rowid"))
        #expect(found.map(\.folder.name.utf8.count) == [5, 6])
        #expect(found.map { $0.files.map(\.id) } == [[1], [2, 3]])
    }

    @Test func eachParentGetsItsOwnCount() throws {
        let conn = try Self.connection()
        struct Counted: Decodable, Equatable {
            var name: String
            var fileCount: Int
        }
        let counted = try conn.fetchAll(
            Counted.self, Folder.annotated(with: Folder.files.count).order("rowid"))
        #expect(counted.map(\.fileCount) == [1, 2])
    }
}
