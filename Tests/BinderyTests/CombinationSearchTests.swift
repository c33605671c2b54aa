import Foundation
import Testing

@testable import Bindery

/// Search tables meeting table rebuilds, bulk writes with conflict policies, upserts, and requests
/// with associations, counts and reversed orderings: after every step each word finds, through
/// `matching`, exactly the rows a LIKE scan finds.
@Suite struct CombinationSearchTests {
    /// A note under a TEXT key (the search table maps it through `notes_fts_keys`).
    struct Note: Record, Equatable {
        static let tableName = "notes"
        static let primaryKey = ["code"]
        var code: String
        var title: String
        var body: String
        var folderId: Int64?
        static let folder = belongsTo(Folder.self, using: ForeignKey(["folderId"]))
    }

    /// A note under an `INTEGER PRIMARY KEY` (the search table's rowid is the note's).
    struct Memo: Record, Equatable {
        static let tableName = "memos"
        var id: Int64
        var title: String
        var body: String
        var folderId: Int64?
        static let folder = belongsTo(Folder.self, using: ForeignKey(["folderId"]))
    }

    struct Folder: Record, Equatable {
        static let tableName = "folders"
        var id: Int64
        var name: String
        static let notes = hasMany(Note.self, using: ForeignKey(["folderId"]))
        static let memos = hasMany(Memo.self, using: ForeignKey(["folderId"]))
    }

    static let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"]

    static func connection() throws -> Connection {
        let conn = try Connection(path: ":memory:", options: .init(schemaTrust: .trustedSchema))
        try conn.execute(
            script: """
                CREATE TABLE folders(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO folders VALUES (1, 'work'), (2, 'home');
                CREATE TABLE notes(code TEXT PRIMARY KEY NOT NULL COLLATE NOCASE, title TEXT NOT NULL UNIQUE,
                    body TEXT NOT NULL, folderId INTEGER REFERENCES folders);
                CREATE TABLE memos(id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, body TEXT NOT NULL,
                    folderId INTEGER REFERENCES folders);
                """)
        try conn.insert(contentsOf: [
            Note(code: "a", title: "alpha", body: "bravo charlie", folderId: 1),
            Note(code: "b", title: "delta", body: "echo", folderId: 2),
        ])
        try conn.insert(contentsOf: [
            Memo(id: 1, title: "alpha", body: "bravo charlie", folderId: 1),
            Memo(id: 2, title: "delta", body: "echo", folderId: 2),
        ])
        try conn.create(searchTable: "notes_fts", on: "notes", columns: ["title", "body"])
        try conn.create(searchTable: "memos_fts", on: "memos", columns: ["title", "body"])
        return conn
    }

    /// Every word finds the rows a LIKE scan finds, in both tables; the integrity checks pass.
    static func check(_ conn: Connection, after step: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        for word in words {
            let pattern = try #require(SearchPattern.all(word))
            let like = "%" + word + "%"
            let notes = try conn.fetchAll(Note.all().matching(pattern, in: "notes_fts").order("code"))
            let scannedNotes = try conn.fetchAll(
                Note.all().filter("title LIKE \(like) OR body LIKE \(like)").order("code"))
            #expect(notes == scannedNotes, "notes: \(word) after \(step)", sourceLocation: sourceLocation)
            let memos = try conn.fetchAll(Memo.all().matching(pattern, in: "memos_fts").order("id"))
            let scannedMemos = try conn.fetchAll(
                Memo.all().filter("title LIKE \(like) OR body LIKE \(like)").order("id"))
            #expect(memos == scannedMemos, "memos: \(word) after \(step)", sourceLocation: sourceLocation)
        }
        #expect(throws: Never.self, "integrity after \(step)", sourceLocation: sourceLocation) {
            try conn.checkIntegrity(searchTable: "notes_fts")
            try conn.checkIntegrity(searchTable: "memos_fts")
        }
    }

    @Test func bulkWritesWithConflictPoliciesAfterARebuildOfTheContentTables() throws {
        let conn = try Self.connection()
        try Self.check(conn, after: "create")
        for table in ["notes", "memos"] {
            try conn.alter(table: table) { t in
                t.change(column: "body", to: .text).check("length(body) < 100")
                t.add(column: "stars", .integer).defaults(to: 0)
            }
        }
        try Self.check(conn, after: "rebuild")
        #expect(
            try conn.rows("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'notes'")
                .first.map { try $0[0] as Int } ?? 0 > 0)
        // Replaces through the key (another case, NOCASE) and through the UNIQUE title, in one batch.
        try conn.insert(
            contentsOf: [
                Note(code: "A", title: "foxtrot", body: "golf", folderId: 1),
                Note(code: "c", title: "delta", body: "alpha", folderId: nil),
                Note(code: "d", title: "echo", body: "echo", folderId: 2),
            ], onConflict: .replace)
        try conn.insert(
            contentsOf: [
                Memo(id: 1, title: "foxtrot", body: "golf", folderId: 1),
                Memo(id: 3, title: "delta", body: "alpha", folderId: nil),
                Memo(id: 4, title: "echo", body: "echo", folderId: 2),
            ], onConflict: .replace)
        try Self.check(conn, after: "bulk INSERT OR REPLACE")
        #expect(try conn.fetchCount(Note.all()) == 3)
        #expect(try conn.fetchCount(Memo.all()) == 3)
        try conn.insert(
            contentsOf: [
                Note(code: "e", title: "golf", body: "bravo", folderId: 1),
                Note(code: "C", title: "charlie", body: "x", folderId: 1),
            ], onConflict: .ignore)
        try conn.insert(
            contentsOf: [
                Memo(id: 5, title: "golf", body: "bravo", folderId: 1),
                Memo(id: 3, title: "charlie", body: "x", folderId: 1),
            ], onConflict: .ignore)
        try Self.check(conn, after: "bulk INSERT OR IGNORE")
        // Upserts: the same key twice ends as the later record.
        try conn.upsert(contentsOf: [
            Note(code: "e", title: "golf", body: "delta", folderId: 2),
            Note(code: "f", title: "bravo", body: "charlie", folderId: nil),
            Note(code: "F", title: "bravo", body: "echo", folderId: nil),
        ])
        try conn.upsert(contentsOf: [
            Memo(id: 5, title: "golf", body: "delta", folderId: 2),
            Memo(id: 6, title: "bravo", body: "charlie", folderId: nil),
            Memo(id: 6, title: "bravo", body: "echo", folderId: nil),
        ])
        try Self.check(conn, after: "bulk upsert")
        try conn.update(contentsOf: [Note(code: "E", title: "golf", body: "foxtrot", folderId: 2)])
        try conn.update(contentsOf: [Memo(id: 5, title: "golf", body: "foxtrot", folderId: 2)])
        try Self.check(conn, after: "bulk update")
        try conn.deleteAll(Note.all().matching(try #require(SearchPattern.all("echo")), in: "notes_fts"))
        try conn.deleteAll(Memo.all().matching(try #require(SearchPattern.all("echo")), in: "memos_fts"))
        try Self.check(conn, after: "deleteAll of a search")
        try conn.execute(script: "VACUUM")
        try Self.check(conn, after: "VACUUM")
    }

    struct NoteInFolder: Decodable, Equatable {
        var note: Note
        var folder: Folder?
    }

    struct FolderNotes: Decodable, Equatable {
        var folder: Folder
        var notes: [Note]
    }

    @Test func aSearchWithAssociationsCountsLimitsAndReversedRanks() throws {
        let conn = try Self.connection()
        try conn.insert(contentsOf: [
            Note(code: "c", title: "charlie charlie charlie", body: "alpha", folderId: 2),
            Note(code: "d", title: "golf", body: "charlie", folderId: nil),
        ])
        let charlie = try #require(SearchPattern.all("charlie"))
        let request = Note.all().matching(charlie, in: "notes_fts").including(optional: Note.folder)
        let ranked = try conn.fetchAll(NoteInFolder.self, request)
        #expect(ranked.map(\.note.code) == ["c", "d", "a"] || ranked.map(\.note.code) == ["c", "a", "d"])
        #expect(ranked.map { $0.folder?.id } == ranked.map(\.note.folderId))
        #expect(try conn.fetchCount(request) == 3)
        #expect(try conn.fetchCount(request.limit(2, offset: 2)) == 1)
        let reversed = try conn.fetchAll(NoteInFolder.self, request.reversed())
        #expect(reversed.map(\.note.code) == ranked.map(\.note.code).reversed())
        let required = Note.all().matching(charlie, in: "notes_fts").including(required: Note.folder)
        #expect(try conn.fetchCount(required) == 2)
        #expect(try conn.fetchCount(required.filter(key: "C")) == 1)
        #expect(try conn.exists(required.filter(key: "D")) == false)
        // The folders of the notes that match, each with every note of its own.
        let matches = Folder.notes.forKey("matches")
        let folders = try conn.fetchAll(
            FolderNotes.self,
            Folder.all().joining(required: matches.filter("\(matches.column("title")) LIKE \("%charlie%")"))
                .distinct().including(all: Folder.notes.order("\(Folder.notes.column("code"))")).order("folders.id"))
        #expect(folders.map(\.folder.id) == [2])
        #expect(folders.map { $0.notes.map(\.code) } == [["b", "c"]])
    }
}
