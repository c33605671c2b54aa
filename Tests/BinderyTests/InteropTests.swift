import Foundation
import Testing

@testable import Bindery

/// Rows that Bindery writes read correctly in the `sqlite3` shell and in Python's `sqlite3` module,
/// and rows they write decode in Bindery.
@Suite struct InteropTests {
    struct Student: Record, Equatable {
        static let tableName = "students"
        var id: Int64?
        var name: String
        var enrolledAt: Date
        var tags: [String]
        var token: UUID
        var score: Double?
        var active: Bool
    }

    /// A database file in the temporary directory, removed by ``remove()``.
    struct TemporaryDatabase {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-interop-\(UUID()).sqlite")
        var path: String { url.path }

        func remove() {
            for suffix in ["", "-journal", "-wal", "-shm"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
        }
    }

    struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }

    static let sqlite3Path = "/usr/bin/sqlite3"

    /// The standard output of `executable arguments…`, which must exit with status 0.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ToolFailure(
                description:
                    "\(executable) is missing: install it (apt-get install -y sqlite3 python3); "
                    + "this test cannot be skipped")
        }
        let (status, data, errorData) = try TestProcess.run(executable, arguments)
        guard status == 0 else {
            throw ToolFailure(
                description:
                    "\(executable) \(arguments.joined(separator: " ")) exited with \(status): "
                    + String(decoding: errorData, as: UTF8.self))
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func sqlite3(_ path: String, _ sql: String) throws -> String {
        try run(sqlite3Path, ["-batch", path, sql])
    }

    /// Runs a Python script with `sys.argv[1]` set to `path`.
    static func python(_ path: String, _ script: String) throws -> String {
        try run("/usr/bin/env", ["python3", "-c", script, path])
    }

    static let enrolled = Date(timeIntervalSince1970: 1_700_000_000.123)

    static func writeWithBindery(_ path: String) throws -> [Student] {
        let conn = try Connection(path: path)
        try conn.createTable(for: Student.self)
        let token = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        return [
            try conn.insert(
                Student(
                    id: nil, name: "Ana", enrolledAt: enrolled, tags: ["math", "it's"], token: token, score: 2.5,
                    active: true)),
            try conn.insert(
                Student(
                    id: nil, name: "Zoë 👩‍🔬 O'Brien", enrolledAt: Date(timeIntervalSince1970: 951_825_599.999),
                    tags: [], token: UUID(), score: nil, active: false)),
        ]
    }

    @Test func sqliteShellReadsWhatBinderyWrote() throws {
        let database = TemporaryDatabase()
        defer { database.remove() }
        _ = try Self.writeWithBindery(database.path)
        let output = try Self.sqlite3(
            database.path,
            """
            SELECT name, datetime(enrolledAt), strftime('%Y-%m-%d %H:%M:%f', enrolledAt), json_extract(tags, '$[1]'),
                typeof(token), token, quote(score), active
            FROM students ORDER BY id
            """)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            lines == [
                "Ana|2023-11-14 22:13:20|2023-11-14 22:13:20.123|it's|text|e621e1f8-c36c-495a-93fc-0c247a3e6e5f|2.5|1",
                try Self.secondLine(database.path), "",
            ])
    }

    /// The second row as the shell prints it; its random token is read back through Bindery.
    static func secondLine(_ path: String) throws -> String {
        let conn = try Connection(path: path, options: .init(readOnly: true))
        let token = try #require(try conn.fetchOne(String.self, sql: "SELECT token FROM students WHERE id = 2"))
        return "Zoë 👩‍🔬 O'Brien|2000-02-29 11:59:59|2000-02-29 11:59:59.999||text|\(token)|NULL|0"
    }

    @Test func binderyReadsWhatTheShellWrote() throws {
        let database = TemporaryDatabase()
        defer { database.remove() }
        let written = try Self.writeWithBindery(database.path)
        _ = try Self.sqlite3(
            database.path,
            """
            INSERT INTO students (name, enrolledAt, tags, token, score, active)
                VALUES ('Cli ''quoted''', '2024-02-29T12:30:00+01:00', json_array('a', 'b'),
                    'C0FFEE00-0000-4000-8000-000000000001', 3, 1);
            INSERT INTO students (name, enrolledAt, tags, token, score, active)
                VALUES ('now', CURRENT_TIMESTAMP, '[]', lower(hex(randomblob(4))) || '-0000-4000-8000-000000000002',
                    NULL, 0);
            INSERT INTO students (name, enrolledAt, tags, token, score, active)
                VALUES ('julian', strftime('%Y-%m-%d %H:%M:%f', 2460000.25), '["x"]',
                    '00000000-0000-4000-8000-000000000003', 1.25, 0);
            """)
        let conn = try Connection(path: database.path)
        let all = try conn.fetchAll(Student.self, orderBy: "id")
        try #require(all.count == 5)
        #expect(Array(all.prefix(2)) == written)
        #expect(all[2].name == "Cli 'quoted'")
        #expect(all[2].enrolledAt == SQLiteDate.date(from: "2024-02-29 11:30:00"))
        #expect(all[2].tags == ["a", "b"])
        #expect(all[2].token.uuidString == "C0FFEE00-0000-4000-8000-000000000001")
        #expect(all[2].score == 3)
        #expect(all[2].active)
        #expect(abs(all[3].enrolledAt.timeIntervalSinceNow) < 60)
        #expect(all[3].score == nil)
        #expect(all[4].enrolledAt == SQLiteDate.date(fromJulianDay: 2_460_000.25))
        #expect(all[4].tags == ["x"])
    }

    @Test func pythonReadsWhatBinderyWrote() throws {
        let database = TemporaryDatabase()
        defer { database.remove() }
        let written = try Self.writeWithBindery(database.path)
        let output = try Self.python(
            database.path,
            """
            import json, sqlite3, sys, uuid, datetime
            db = sqlite3.connect(sys.argv[1])
            for name, enrolled, tags, token, score, active in db.execute(
                    "SELECT name, enrolledAt, tags, token, score, active FROM students ORDER BY id"):
                when = datetime.datetime.fromisoformat(enrolled).replace(tzinfo=datetime.timezone.utc)
                print(json.dumps([name, when.timestamp(), json.loads(tags), str(uuid.UUID(token)), score, active]))
            """)
        let lines = output.split(separator: "\n").map { Data($0.utf8) }
        try #require(lines.count == 2)
        for (line, student) in zip(lines, written) {
            let fields = try JSONDecoder().decode([PythonField].self, from: line)
            #expect(fields.count == 6)
            #expect(fields[0] == .text(student.name))
            #expect(fields[1] == .number(student.enrolledAt.timeIntervalSince1970))
            #expect(fields[2] == .list(student.tags))
            #expect(fields[3] == .text(student.token.uuidString.lowercased()))
            #expect(fields[4] == (student.score.map(PythonField.number) ?? .null))
            #expect(fields[5] == .number(student.active ? 1 : 0))
        }
    }

    /// One value of the JSON arrays the Python script prints.
    enum PythonField: Decodable, Equatable {
        case text(String)
        case number(Double)
        case list([String])
        case null

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let list = try? container.decode([String].self) {
                self = .list(list)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
    }

    @Test func binderyReadsWhatPythonWrote() throws {
        let database = TemporaryDatabase()
        defer { database.remove() }
        _ = try Self.writeWithBindery(database.path)
        _ = try Self.python(
            database.path,
            """
            import json, sqlite3, sys, uuid, datetime
            db = sqlite3.connect(sys.argv[1])
            when = datetime.datetime(2024, 2, 29, 12, 30, 45, 123456, tzinfo=datetime.timezone.utc)
            db.execute(
                "INSERT INTO students (name, enrolledAt, tags, token, score, active) VALUES (?, ?, ?, ?, ?, ?)",
                ("Py \\u00e9\\u0000nul", when.isoformat(), json.dumps(["p", "q"]),
                 str(uuid.UUID("12345678-1234-5678-1234-567812345678")).upper(), 7, True))
            db.execute(
                "INSERT INTO students (name, enrolledAt, tags, token, score, active) VALUES (?, ?, ?, ?, ?, ?)",
                ("bytes", when.strftime("%Y-%m-%d %H:%M"), "[]",
                 uuid.UUID("12345678-1234-5678-1234-567812345679").bytes, 0.1, False))
            db.commit()
            """)
        let conn = try Connection(path: database.path)
        let rows = try conn.fetchAll(Student.self, where: "id > \(2)", orderBy: "id")
        try #require(rows.count == 2)
        #expect(rows[0].name == "Py é\u{0}nul")
        #expect(rows[0].enrolledAt == SQLiteDate.date(from: "2024-02-29 12:30:45.123"))
        #expect(rows[0].tags == ["p", "q"])
        #expect(rows[0].token.uuidString == "12345678-1234-5678-1234-567812345678")
        #expect(rows[0].score == 7)
        #expect(rows[0].active)
        #expect(rows[1].enrolledAt == SQLiteDate.date(from: "2024-02-29 12:30"))
        #expect(rows[1].token.uuidString == "12345678-1234-5678-1234-567812345679")
        #expect(rows[1].score == 0.1)
        #expect(!rows[1].active)
    }
}
