import Foundation
import Testing

@testable import Bindery

/// A to-many association whose parents' key column holds TEXT that is not valid UTF-8 throws
/// ``AssociationError/invalidKeyText(association:column:)``: read as `String`s, the keys `61 FF` and
/// `61 FE` were both repaired to "a\u{FFFD}", matched none of the children, and each parent came back
/// with no children and no error.
@Suite struct InvalidKeyTextTests {
    struct Folder: Record, Equatable {
        static let tableName = "folder"
        var id: Int64
        static let files = hasMany(File.self, using: ForeignKey(["folder"], to: ["name"]))
    }

    struct File: Record, Equatable {
        static let tableName = "file"
        var id: Int64
        static let tags = hasMany(Tag.self, using: ForeignKey(["file"], to: ["label"]))
    }

    struct Tag: Record, Equatable {
        static let tableName = "tag"
        var id: Int64
    }

    struct FolderFiles: Decodable, Equatable {
        var folder: Folder
        var files: [File]
    }

    struct FileTags: Decodable, Equatable {
        var file: File
        var tags: [Tag]
    }

    struct FolderTaggedFiles: Decodable, Equatable {
        var folder: Folder
        var files: [FileTags]
    }

    /// Folders 1 and 2 keyed by invalid UTF-8 (`61 FF`, `61 FE`), folder 3 by "b"; the files of folder
    /// "b" are labelled by invalid UTF-8 too, for a second step.
    static func connection(folderKeys: (String, String) = ("X'61FF'", "X'61FE'")) throws -> Connection {
        let conn = try Connection(path: ":memory:")
        let (first, second) = folderKeys
        try conn.execute(
            script: """
                CREATE TABLE folder (id INTEGER PRIMARY KEY, name TEXT UNIQUE);
                CREATE TABLE file (id INTEGER PRIMARY KEY, folder TEXT NOT NULL, label TEXT);
                CREATE TABLE tag (id INTEGER PRIMARY KEY, file TEXT NOT NULL);
                INSERT INTO folder VALUES (1, CAST(\(first) AS TEXT)), (2, CAST(\(second) AS TEXT)), (3, 'b');
                INSERT INTO file VALUES (1, CAST(\(first) AS TEXT), 'x'), (2, CAST(\(second) AS TEXT), 'y'),
                    (3, CAST(\(second) AS TEXT), 'z'), (4, 'b', CAST(X'7AFF' AS TEXT));
                INSERT INTO tag VALUES (1, 'x'), (2, CAST(X'7AFF' AS TEXT));
                """)
        return conn
    }

    @Test func invalidParentKeysThrowNamingTheAssociationAndColumn() throws {
        let conn = try Self.connection()
        #expect(throws: AssociationError.invalidKeyText(association: "files", column: "name")) {
            try conn.fetchAll(FolderFiles.self, Folder.including(all: Folder.files).order("id"))
        }
        #expect(throws: AssociationError.invalidKeyText(association: "files", column: "name")) {
            try conn.fetchOne(FolderFiles.self, Folder.including(all: Folder.files).filter("id = 1"))
        }
    }

    @Test func aParentKeyOfANestedStepThrowsToo() throws {
        let conn = try Self.connection()
        let request = Folder.including(all: Folder.files.including(all: File.tags)).filter("id = 3")
        #expect(throws: AssociationError.invalidKeyText(association: "tags", column: "label")) {
            try conn.fetchAll(FolderTaggedFiles.self, request)
        }
    }

    @Test func validKeysStillMatchTheirChildren() throws {
        let conn = try Self.connection(folderKeys: ("'a1'", "'a2'"))
        let found = try conn.fetchAll(FolderFiles.self, Folder.including(all: Folder.files).order("id"))
        #expect(found.map { $0.files.map(\.id) } == [[1], [2, 3], [4]])
    }
}
