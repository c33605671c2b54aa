import Foundation
import Testing

@testable import Bindery

/// Two rows are equal when their values and their column names are, names compared by their bytes as
/// SQLite tells columns apart, never by Swift's canonical equivalence of `String`s.
@Suite struct RowEqualityExactnessTests {
    @Test func columnsNamedInTwoNormalizationsMakeTwoRows() throws {
        let conn = try Connection.inMemory()
        let composed = try conn.rows("SELECT 1 AS \"caf\u{E9}\"", arguments: [])
        let decomposed = try conn.rows("SELECT 1 AS \"cafe\u{301}\"", arguments: [])
        #expect(composed.first?.columnNames.first?.utf8.count == 5)
        #expect(decomposed.first?.columnNames.first?.utf8.count == 6)
        #expect(composed != decomposed)
        let again = try conn.rows("SELECT 1 AS \"caf\u{E9}\"", arguments: [])
        #expect(composed == again)
    }
}
