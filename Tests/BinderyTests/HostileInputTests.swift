import CSQLite
import Foundation
import Testing

@testable import Bindery

/// Values, table names, coding keys and nested JSON that hold SQL syntax, NUL bytes, lone surrogates
/// or 10 MB: each is stored verbatim or refused with a clear error, and nothing else in the database
/// changes (a checksum of every other table, and of the schema, is the same before and after).
@Suite struct HostileInputTests {
    typealias Support = ReliabilityTestSupport

    /// Text that would break SQL built by string formatting.
    static let hostileTexts: [String] = [
        "Robert'); DROP TABLE bystander; --", "\"; DELETE FROM bystander; --", "x' OR '1'='1", "semi;colon",
        "-- comment", "/* open comment", "*/", "a\0b", "\0", "\0\0\0 trailing", "'", "\"", "''\"\"", "?", "?1",
        ":name", "@x", "$y", "%_", "\\", "😀\u{202E}é\u{0301}", "\u{FEFF}BOM", "\r\n\t", "", " ",
        String(repeating: "'", count: 1000),
    ]

    struct Inner: Codable, Equatable, Sendable {
        var text: String
        var list: [String]
    }

    struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64?
        var text: String
        var data: Data
        var tags: [String]
        var inner: Inner
    }

    /// A table with a hostile name and hostile column names.
    struct Weird: Record, Equatable {
        static let tableName = "we\"ird'; DROP TABLE bystander; --"
        var id: Int64?
        var quote: String
        var semi: Int
        var dash: Double?
        var space: [String]

        enum CodingKeys: String, CodingKey {
            case id
            case quote = "it's \"quoted\""
            case semi = "a;b"
            case dash = "--c"
            case space = "d e /* f"
        }
    }

    struct NULTable: Record {
        static let tableName = "bad\0name"
        var id: Int64?
        var value: Int
    }

    struct NULKey: Record {
        static let tableName = "nul_key"
        var id: Int64?
        var value: Int

        enum CodingKeys: String, CodingKey {
            case id
            case value = "val\0ue"
        }
    }

    /// An in-memory connection with a bystander table, whose content must never change.
    private func connectionWithBystander() throws -> Connection {
        let conn = try Connection.inMemory()
        try conn.execute(script: "CREATE TABLE bystander(id INTEGER PRIMARY KEY, name TEXT, data BLOB)")
        try conn.execute(
            "INSERT INTO bystander(name, data) VALUES (\("first"), \(Data([1, 2, 3]))), (\("second"), \(Data()))")
        return conn
    }

    /// The checksum of the bystander table and of the schema, minus the table under test.
    private func bystanderChecksum(_ conn: Connection, except table: String) throws -> [String: UInt64] {
        var sums = try Support.checksum(conn, except: [table])
        // The schema row of the table under test may come and go; the rest of the schema may not.
        let others = try conn.rows(
            "SELECT type, name, coalesce(sql, '') FROM sqlite_schema WHERE tbl_name <> \(table) ORDER BY name")
        sums["sqlite_schema"] = Support.fnv1a(try others.map(Support.values(of:)))
        return sums
    }

    // MARK: Values

    @Test func hostileValuesAreStoredVerbatim() throws {
        let conn = try connectionWithBystander()
        try conn.createTable(for: Note.self)
        let before = try bystanderChecksum(conn, except: Note.tableName)
        for text in Self.hostileTexts {
            let note = Note(
                id: nil, text: text, data: Data(text.utf8), tags: [text, "x", text],
                inner: Inner(text: text, list: [text]))
            let saved = try conn.insert(note)
            let found = try conn.find(Note.self, id: try #require(saved.id))
            #expect(found == Note(id: saved.id, text: text, data: note.data, tags: note.tags, inner: note.inner))
            // The same value interpolated into a condition finds the row, and only it.
            let matches = try conn.fetchAll(Note.self, where: "text = \(text)")
            #expect(matches.map(\.id) == [saved.id], "\(text.debugDescription)")
            // What SQLite holds is the text itself, every byte of it.
            let bytes = try conn.fetchOne(Data.self, sql: "SELECT CAST(text AS BLOB) FROM notes WHERE id = \(saved.id)")
            #expect(bytes ?? Data() == Data(text.utf8), "\(text.debugDescription)")
            #expect(
                try conn.fetchOne(Int.self, sql: "SELECT length(CAST(text AS BLOB)) FROM notes WHERE id = \(saved.id)")
                    == text.utf8.count)
        }
        #expect(try conn.count(Note.self) == Self.hostileTexts.count)
        #expect(try bystanderChecksum(conn, except: Note.tableName) == before)
    }

    @Test func hostileTableNamesAndCodingKeysAreQuoted() async throws {
        let conn = try connectionWithBystander()
        let before = try bystanderChecksum(conn, except: Weird.tableName)
        try conn.createTable(for: Weird.self)
        let tables = try conn.fetchAll(
            String.self, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        #expect(tables == ["bystander", Weird.tableName])
        let columns = try conn.fetchAll(String.self, sql: "SELECT name FROM pragma_table_info(\(Weird.tableName))")
        #expect(columns == ["id", "it's \"quoted\"", "a;b", "--c", "d e /* f"])

        for text in Self.hostileTexts {
            var weird = try conn.insert(Weird(id: nil, quote: text, semi: 1, dash: nil, space: [text]))
            #expect(try conn.find(Weird.self, id: try #require(weird.id)) == weird)
            weird.semi = 2
            weird.dash = 0.5
            try conn.update(weird)
            try conn.update(weird, columns: ["a;b"])
            #expect(try conn.upsert(weird) == weird)
            #expect(try conn.fetchOne(Weird.self, where: "\(identifier: "it's \"quoted\"") = \(text)") == weird)
        }
        #expect(try conn.count(Weird.self) == Self.hostileTexts.count)
        #expect(try conn.delete(Weird.self, where: "\(identifier: "a;b") = \(2)") == Self.hostileTexts.count)
        #expect(try bystanderChecksum(conn, except: Weird.tableName) == before)
    }

    @Test func aNULInATableNameOrColumnNameIsRefused() throws {
        let conn = try connectionWithBystander()
        let before = try Support.checksum(conn)
        // SQLite reads SQL text up to its first NUL, so SQL text holding one is refused before
        // SQLite sees it: never a shorter, different statement.
        let table = #expect(throws: SQLiteError.self) { try conn.createTable(for: NULTable.self) }
        #expect(table?.code == .misuse)
        #expect(table?.message.contains("contains a NUL byte") == true, "\(String(describing: table))")
        #expect(throws: SQLiteError.self) { try conn.insert(NULTable(id: nil, value: 1)) }
        #expect(throws: SQLiteError.self) { try conn.execute("DELETE FROM \(identifier: "bystander\0")") }
        #expect(throws: SQLiteError.self) {
            try conn.execute("UPDATE bystander SET \(identifier: "name\0") = \("x")")
        }
        let key = #expect(throws: SQLiteError.self) { try conn.createTable(for: NULKey.self) }
        #expect(key?.code == .misuse)
        #expect(try Support.checksum(conn) == before)
    }

    // MARK: JSON

    @Test func loneSurrogatesInStoredJSONAreADecodingErrorNotACrash() throws {
        let conn = try connectionWithBystander()
        try conn.createTable(for: Note.self)
        let before = try bystanderChecksum(conn, except: Note.tableName)
        let texts = [
            #"{"text":"\ud800","list":[]}"#, #"{"text":"ok","list":["\udc00\ud800"]}"#,
            #"{"text":"\ud800\u0041","list":[]}"#,
        ]
        for json in texts {
            try conn.execute(
                """
                INSERT INTO notes(text, data, tags, inner) VALUES (\("surrogate"), \(Data()), \("[]"), \(json))
                """)
            let id = conn.lastInsertRowID
            let error = #expect(throws: DecodingError.self, "\(json)") { try conn.find(Note.self, id: id) }
            // The error names the column.
            #expect(String(describing: error).contains("inner"), "\(String(describing: error))")
            // The row itself is intact and readable as text.
            #expect(try conn.fetchOne(String.self, sql: "SELECT inner FROM notes WHERE id = \(id)") == json)
        }
        // A paired surrogate, an escaped NUL and escaped quotes decode to what they say.
        let fine = #"{"text":"\ud83d\ude00 \u0000 \"; --","list":["\u0027"]}"#
        try conn.execute(
            "INSERT INTO notes(text, data, tags, inner) VALUES (\("fine"), \(Data()), \("[]"), \(fine))")
        let note = try conn.find(Note.self, id: conn.lastInsertRowID)
        #expect(note?.inner == Inner(text: "😀 \0 \"; --", list: ["'"]))
        #expect(try bystanderChecksum(conn, except: Note.tableName) == before)
    }

    // MARK: Size

    @Test func tenMegabyteValuesAreStoredVerbatim() async throws {
        try await Support.withDirectory { directory in
            let db = try Database(path: directory.appendingPathComponent("big.sqlite").path)
            try await db.write { conn in
                try conn.execute(script: "CREATE TABLE bystander(id INTEGER PRIMARY KEY, name TEXT)")
                try conn.execute("INSERT INTO bystander(name) VALUES (\("untouched"))")
                try conn.createTable(for: Note.self)
            }
            let before = try await db.read { conn in try Support.checksum(conn, except: [Note.tableName]) }
            let megabytes = 10 * 1024 * 1024
            let text = String(repeating: "é'\";--\0x", count: megabytes / 9 + 1)  // 9 bytes each
            var random = Support.SeededGenerator(state: 10)
            let blob = Data((0..<megabytes).map { _ in UInt8.random(in: 0...255, using: &random) })
            let list = (0..<10).map {
                String(repeating: Character(UnicodeScalar(UInt8(65 + $0))), count: megabytes / 10)
            }
            let note = Note(id: nil, text: text, data: blob, tags: list, inner: Inner(text: text, list: []))
            #expect(text.utf8.count >= megabytes)

            let saved = try await db.insert(note)
            let found = try await db.find(Note.self, id: try #require(saved.id))
            #expect(found?.text == text)
            #expect(found?.data == blob)
            #expect(found?.tags == list)
            #expect(found?.inner == note.inner)
            #expect(try await db.read { conn in try Support.checksum(conn, except: [Note.tableName]) } == before)
            try await db.close()
        }
    }

    @Test func valuesAboveSQLitesLengthLimitAreRefused() throws {
        let conn = try connectionWithBystander()
        try conn.createTable(for: Note.self)
        try conn.insert(Note(id: nil, text: "small", data: Data(), tags: [], inner: Inner(text: "", list: [])))
        let before = try Support.checksum(conn)
        // A connection that allows 1 MB per value, as SQLite's SQLITE_MAX_LENGTH could be compiled.
        sqlite3_limit(conn.handle, SQLITE_LIMIT_LENGTH, 1_000_000)
        let big = String(repeating: "x", count: 10 * 1024 * 1024)
        let cases: [(String, Note)] = [
            ("text", Note(id: nil, text: big, data: Data(), tags: [], inner: Inner(text: "", list: []))),
            ("blob", Note(id: nil, text: "", data: Data(big.utf8), tags: [], inner: Inner(text: "", list: []))),
            ("JSON", Note(id: nil, text: "", data: Data(), tags: [big], inner: Inner(text: "", list: []))),
        ]
        for (name, note) in cases {
            let error = #expect(throws: SQLiteError.self, "\(name)") { try conn.insert(note) }
            #expect(error?.code == .tooBig, "\(name): \(String(describing: error))")
        }
        #expect(try Support.checksum(conn) == before)
    }
}
