import Foundation
import Testing

@testable import Bindery

/// Named arguments are matched to parameter names by their bytes, as SQLite matches them
/// (`sqlite3_bind_parameter_index` compares bytes), never by Swift's canonical equivalence of
/// `String`s: `:café` written composed and decomposed are two parameters. The expected answers are
/// SQLite's own (python3's sqlite3 module, binding the same names, gives the same results and refuses
/// the same statements).
@Suite struct NamedArgumentExactnessTests {
    /// "é" as one code point (NFC) and as two (NFD): equal as Swift strings, two names to SQLite.
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func aKeySpeltOtherwiseDoesNotBindAParameter() throws {
        let conn = try Connection.inMemory()
        // SQLite: "You did not supply a value for binding parameter :café" (the decomposed one).
        #expect(throws: SQLiteError.self) {
            _ = try conn.rows("SELECT :\(Self.decomposed)", arguments: [Self.composed: .integer(7)])
        }
        #expect(throws: SQLiteError.self) {
            try conn.execute("SELECT :\(Self.decomposed)", arguments: [":" + Self.composed: .integer(7)])
        }
        // Spelt as the statement spells it, with or without the prefix, it binds.
        let rows = try conn.rows("SELECT :\(Self.decomposed)", arguments: [Self.decomposed: .integer(7)])
        #expect(rows.first?.values == [.integer(7)])
    }

    @Test func twoSpellingsAreTwoParameters() throws {
        let conn = try Connection.inMemory()
        let sql = "SELECT :\(Self.composed), :\(Self.decomposed)"
        // One key cannot give both parameters.
        #expect(throws: SQLiteError.self) {
            _ = try conn.rows(sql, arguments: [Self.composed: .integer(1)])
        }
        // The composed one bare, the decomposed one with its prefix: each binds its own parameter.
        let rows = try conn.rows(
            sql, arguments: [Self.composed: .integer(1), ":" + Self.decomposed: .integer(2)])
        #expect(rows.first?.values == [.integer(1), .integer(2)])
        let swapped = try conn.rows(
            sql, arguments: [":" + Self.composed: .integer(1), Self.decomposed: .integer(2)])
        #expect(swapped.first?.values == [.integer(1), .integer(2)])
    }
}
