import Foundation
import Testing

@testable import Bindery

/// A synced table declared twice in one `SyncConfiguration` (in one spelling or in two that SQLite
/// takes for one name) with two policies: the first declaration's policy settled every conflict and the
/// second was ignored, with no error (a `.fieldWise` table merged as last writer wins).
@Suite struct SyncDuplicateTableTests {
    @Test func aTableDeclaredTwiceIsRefusedRatherThanSettledByTheFirstPolicy() throws {
        var options = Database.Options()
        options.sync = SyncConfiguration(tables: [SyncTable(SyncTodo.self), SyncTable("TODOS", policy: .fieldWise)])
        #expect(throws: SyncError.duplicateTable("todos", other: "TODOS")) {
            _ = try Database.inMemory(options: options)
        }
    }
}
