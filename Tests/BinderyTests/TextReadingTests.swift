import Foundation
import Testing

@testable import Bindery

/// TEXT decodes to a `String` holding exactly its bytes, or throws when they are not valid UTF-8, on
/// each path that reads it: a record's property, an optional one, a plain value of a query. SQLite's
/// text is read as a NUL-terminated C string first, so a NUL inside the text, with valid or invalid
/// bytes after it, must not cut the string short nor hide the invalid bytes.
@Suite struct TextReadingTests {
    struct Note: Record, Equatable {
        static let tableName = "note"
        var id: Int64
        var body: String
        var extra: String?
    }

    /// The texts stored, each an SQL expression, with the string each must read as (nil: refused).
    static let cases: [(sql: String, expected: String?)] = [
        ("'plain'", "plain"),
        ("''", ""),
        ("'a text longer than fifteen bytes, kept on the heap'", "a text longer than fifteen bytes, kept on the heap"),
        ("'café 😀'", "café 😀"),
        ("CAST(X'610062' AS TEXT)", "a\u{0}b"),
        ("CAST(X'00' AS TEXT)", "\u{0}"),
        ("CAST(X'6100C3A900' AS TEXT)", "a\u{0}é\u{0}"),
        ("CAST(X'61FF' AS TEXT)", nil),
        ("CAST(X'FF0061' AS TEXT)", nil),
        ("CAST(X'6100FF' AS TEXT)", nil),
        ("CAST(X'610062C3' AS TEXT)", nil),
        ("CAST(X'EDA080' AS TEXT)", nil),
    ]

    static func connection(_ sql: String) throws -> Connection {
        let conn = try Connection(path: ":memory:")
        try conn.execute(
            script: """
                CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL, extra TEXT);
                INSERT INTO note VALUES (1, \(sql), \(sql));
                """)
        return conn
    }

    @Test(arguments: cases.indices)
    func aRecordReadsTheWholeTextOrThrows(_ index: Int) throws {
        let (sql, expected) = Self.cases[index]
        let conn = try Self.connection(sql)
        if let expected {
            let note = try #require(try conn.find(Note.self, id: 1))
            #expect(note == Note(id: 1, body: expected, extra: expected))
            #expect(note.body.utf8.count == expected.utf8.count)
        } else {
            #expect(throws: DecodingError.self) { try conn.find(Note.self, id: 1) }
            // The optional property alone refuses the bytes too, rather than reading them as nil.
            #expect(throws: DecodingError.self) {
                try conn.fetchAll(Note.self, sql: "SELECT id, 'ok' AS body, extra FROM note")
            }
        }
    }

    @Test(arguments: cases.indices)
    func aPlainValueReadsTheWholeTextOrThrows(_ index: Int) throws {
        let (sql, expected) = Self.cases[index]
        let conn = try Self.connection(sql)
        if let expected {
            #expect(try conn.fetchAll(String.self, sql: "SELECT body FROM note") == [expected])
            #expect(try conn.fetchAll(String?.self, sql: "SELECT extra FROM note") == [expected])
        } else {
            #expect(throws: DecodingError.self) { try conn.fetchAll(String.self, sql: "SELECT body FROM note") }
            #expect(throws: DecodingError.self) { try conn.fetchAll(String?.self, sql: "SELECT extra FROM note") }
        }
    }
}
