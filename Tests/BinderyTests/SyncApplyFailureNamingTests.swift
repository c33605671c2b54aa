import Foundation
import Testing

@testable import Bindery

/// A changeset that fails outside any conflict (a trigger on the receiving copy fails with a runtime
/// error, "integer overflow", on a row it inserts; a `RAISE` would be a constraint conflict) stopped the pull with an error that named neither the table nor the row ("cannot be
/// applied to row  of :"). SQLite does not say which change failed (nor keep the trigger's message: its
/// error is "SQL logic error"): the error now names the table when the changeset changes one, and the row
/// when it changes one.
@Suite struct SyncApplyFailureNamingTests {
    typealias Span = SyncMergeConstraintTests.Span

    /// Two copies; the second fails to store a span whose id is "9" or "10".
    static func copies() async throws -> [SyncCopy] {
        let copies = try await SyncMergeConstraintTests.copies(policy: .fieldWise)
        try await copies[1].database.write { conn in
            try conn.execute(
                script: """
                    CREATE TRIGGER refuse BEFORE INSERT ON spans WHEN NEW.id IN ('9', '10')
                    BEGIN SELECT abs(-9223372036854775807 - 1); END;
                    """)
        }
        return copies
    }

    /// The error `pull()` throws, or the one the status keeps.
    static func failure(of copy: SyncCopy) async throws -> (error: SyncError?, lastError: String?) {
        var thrown: SyncError?
        do {
            try await copy.pull()
        } catch let error as SyncError {
            thrown = error
        }
        return (thrown, try await copy.status().lastError)
    }

    @Test func oneRowIsNamed() async throws {
        let copies = try await Self.copies()
        try await copies[0].database.insert(Span(id: "9", start: 1, end: 2))
        try await copies[0].sync()
        let (error, lastError) = try await Self.failure(of: copies[1])
        let stop = try #require(lastError)
        #expect(stop.contains("row '9' of spans"))
        guard case .cannotApply(_, let table, let key, _) = try #require(error) else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(table == "spans")
        #expect(key == "'9'")
        #expect(try await copies[1].database.fetchAll(Span.self).isEmpty)
    }

    @Test func severalRowsNameTheTable() async throws {
        let copies = try await Self.copies()
        try await copies[0].database.insert(contentsOf: [
            Span(id: "8", start: 1, end: 2), Span(id: "9", start: 1, end: 2),
        ])
        try await copies[0].sync()
        let (_, lastError) = try await Self.failure(of: copies[1])
        let stop = try #require(lastError)
        #expect(stop.contains("cannot be applied to table spans: "))
        #expect(!stop.contains("row  of"))
        // Nothing of the changeset was applied, not even the row the trigger let through.
        #expect(try await copies[1].database.fetchAll(Span.self).isEmpty)
    }

    @Test func theDescriptionLeavesOutWhatIsUnknown() {
        #expect(
            SyncError.cannotApply(sequence: 3, table: "", key: "", reason: "disk full").description
                == "changeset 3 cannot be applied: disk full")
        #expect(
            SyncError.cannotApply(sequence: nil, table: "t", key: "", reason: "r").description
                == "an unpushed local changeset cannot be applied to table t: r")
        #expect(
            SyncError.cannotApply(sequence: 1, table: "t", key: "1", reason: "r").description
                == "changeset 1 cannot be applied to row 1 of t: r")
    }
}
