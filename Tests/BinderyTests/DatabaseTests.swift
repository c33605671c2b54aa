import Dispatch
import Foundation
import Testing

@testable import Bindery

/// Records and files shared by the `Database` test suites.
enum DatabaseTestSupport {
    /// A record whose integer id SQLite assigns.
    struct Book: Record, Equatable {
        static let tableName = "books"
        var id: Int64?
        var title: String
        var year: Int
    }

    /// A record with a composite primary key.
    struct Shelf: Record, Equatable {
        static let tableName = "shelves"
        static let primaryKey = ["room", "position"]
        var room: String
        var position: Int
        var label: String
    }

    /// Runs `body` with a fresh directory, removed afterwards.
    static func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bindery-database-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// Runs `body` with a database file in a fresh directory (WAL, readers), closed and removed afterwards.
    static func withDatabase<T>(
        options: Database.Options = Database.Options(), _ body: (Database) async throws -> T
    ) async throws -> T {
        try await withDirectory { directory in
            try await closing(
                Database(path: directory.appendingPathComponent("db.sqlite").path, options: options), body)
        }
    }

    /// Runs `body` with `db` and closes it afterwards, whether `body` throws or not.
    static func closing<T>(_ db: Database, _ body: (Database) async throws -> T) async throws -> T {
        do {
            let result = try await body(db)
            try await db.close()
            return result
        } catch {
            try? await db.close()
            throw error
        }
    }

    /// The label of the database queue the caller runs on, or "none".
    static func currentQueueLabel() -> String {
        DatabaseExecutor.currentQueueLabel ?? "none"
    }
}

@Suite struct DatabaseTests {
    typealias Book = DatabaseTestSupport.Book
    typealias Shelf = DatabaseTestSupport.Shelf

    private struct Boom: Error {}

    private func books(_ db: Database) async throws -> [Book] {
        try await db.fetchAll(Book.self, orderBy: "id")
    }

    // MARK: Opening

    @Test func aFileOpensInWALModeWithReaders() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            #expect(db.hasReaders)
            let mode = try await db.read { conn in try conn.fetchOne(String.self, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
            let synchronous = try await db.writeWithoutTransaction { conn in
                try conn.fetchOne(Int.self, sql: "PRAGMA synchronous")
            }
            #expect(synchronous == 1)  // NORMAL
            let foreignKeys = try await db.read { conn in try conn.fetchOne(Int.self, sql: "PRAGMA foreign_keys") }
            #expect(foreignKeys == 1)
        }
    }

    @Test func readerConnectionsAreReadOnly() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Book.self)
            let queryOnly = try await db.read { conn in try conn.fetchOne(Int.self, sql: "PRAGMA query_only") }
            #expect(queryOnly == 1)
            await #expect(throws: SQLiteError.self) {
                try await db.read { conn in try conn.insert(Book(id: nil, title: "no", year: 1)) }
            }
            #expect(try await db.count(Book.self) == 0)
        }
    }

    @Test func otherJournalModesAndNoReadersReadThroughTheWriter() async throws {
        for options in [Database.Options(journalMode: .delete), Database.Options(readerCount: 0)] {
            try await DatabaseTestSupport.withDatabase(options: options) { db in
                #expect(!db.hasReaders)
                let mode = try await db.read { conn in try conn.fetchOne(String.self, sql: "PRAGMA journal_mode") }
                #expect(mode == (options.readerCount == 0 ? "wal" : "delete"))
                try await db.createTable(for: Book.self)
                try await db.insert(Book(id: nil, title: "A", year: 1))
                #expect(try await db.count(Book.self) == 1)
                let inTransaction = try await db.read { conn in conn.isInTransaction }
                #expect(inTransaction)
            }
        }
    }

    @Test func anInMemoryDatabaseHasNoReaders() async throws {
        let db = try Database.inMemory()
        #expect(!db.hasReaders)
        #expect(db.path == ":memory:")
        try await db.createTable(for: Book.self)
        try await db.insert(Book(id: nil, title: "A", year: 1))
        #expect(try await db.fetchAll(Book.self) == [Book(id: 1, title: "A", year: 1)])
        try await db.close()
    }

    @Test func codingOptionsApplyToEveryConnection() async throws {
        struct Event: Record, Equatable {
            static let tableName = "events"
            var id: Int64?
            var happenedAt: Date
        }
        var options = Database.Options(coding: CodingOptions(dateStrategy: .unixSeconds, keyStrategy: .snakeCase))
        for readerCount in [0, 2] {
            options.readerCount = readerCount
            try await DatabaseTestSupport.withDatabase(options: options) { db in
                try await db.createTable(for: Event.self)
                let event = Event(id: nil, happenedAt: Date(timeIntervalSince1970: 1_000))
                let saved = try await db.insert(event)
                let raw = try await db.read { conn in
                    try conn.fetchOne(Double.self, sql: "SELECT happened_at FROM events")
                }
                #expect(raw == 1_000)
                #expect(try await db.find(Event.self, id: saved.id) == saved)
                #expect(try await db.count(Event.self, where: "happened_at = \(event.happenedAt)") == 1)
            }
        }
    }

    @Test func aFileThatIsNotADatabaseThrows() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("text.sqlite").path
            try Data(String(repeating: "not a database ", count: 100).utf8).write(to: URL(fileURLWithPath: path))
            #expect {
                _ = try Database(path: path)
            } throws: { error in
                (error as? SQLiteError)?.code == .notADatabase
            }
        }
    }

    @Test func aReadOnlyDatabaseReadsAndRefusesWrites() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("db.sqlite").path
            let setup = try Database(path: path)
            try await setup.createTable(for: Book.self)
            try await setup.insert(Book(id: nil, title: "A", year: 1))
            try await setup.close()

            let db = try Database(path: path, options: Database.Options(readOnly: true))
            #expect(db.hasReaders)  // the file stays in WAL mode
            #expect(try await db.fetchAll(Book.self).map(\.title) == ["A"])
            await #expect {
                try await db.insert(Book(id: nil, title: "B", year: 2))
            } throws: { error in
                (error as? SQLiteError)?.code == .readOnly
            }
            #expect(try await db.count(Book.self) == 1)
            try await db.close()
        }
    }

    // MARK: Executors

    @Test func writesRunOnTheActorsQueueAndReadsOnReaderQueues() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            let writeQueue = try await db.write { _ in DatabaseTestSupport.currentQueueLabel() }
            let readQueue = try await db.read { _ in DatabaseTestSupport.currentQueueLabel() }
            #expect(writeQueue.hasPrefix("Bindery.Database("))
            #expect(!writeQueue.contains("reader"))
            #expect(readQueue.hasPrefix("Bindery.Database("))
            #expect(readQueue.contains(".reader"))
        }
    }

    @Test func manyActorCallsAllRunOnTheQueue() async throws {
        let db = try Database.inMemory()
        let labels = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 {
                group.addTask { try await db.write { _ in DatabaseTestSupport.currentQueueLabel() } }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(labels == ["Bindery.Database(:memory:)"])
        try await db.close()
    }

    // MARK: write, writeWithoutTransaction, read

    @Test func aWriteCommitsWhenItsClosureReturns() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Book.self)
            let result = try await db.write { conn in
                #expect(conn.isInTransaction)
                try conn.insert(Book(id: nil, title: "A", year: 1))
                try conn.insert(Book(id: nil, title: "B", year: 2))
                return conn.lastInsertRowID
            }
            #expect(result == 2)
            #expect(try await books(db).map(\.title) == ["A", "B"])
        }
    }

    @Test func aWriteRollsBackWhenItsClosureThrows() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Book.self)
            await #expect(throws: Boom.self) {
                try await db.write { conn in
                    try conn.insert(Book(id: nil, title: "A", year: 1))
                    throw Boom()
                }
            }
            #expect(try await db.count(Book.self) == 0)
            // The writer is usable, and not left inside a transaction.
            try await db.insert(Book(id: nil, title: "B", year: 2))
            #expect(try await books(db).map(\.title) == ["B"])
        }
    }

    @Test func aSavepointInsideAWriteRollsBackAlone() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Book.self)
            try await db.write { conn in
                try conn.insert(Book(id: nil, title: "kept", year: 1))
                _ = try? conn.transaction { conn in
                    try conn.insert(Book(id: nil, title: "dropped", year: 2))
                    throw Boom()
                }
            }
            #expect(try await books(db).map(\.title) == ["kept"])
        }
    }

    @Test func writeWithoutTransactionRunsOutsideATransaction() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Book.self)
            try await db.insert(Book(id: nil, title: "A", year: 1))
            let inTransaction = try await db.writeWithoutTransaction { conn in
                try conn.execute(script: "VACUUM")  // fails inside a transaction
                return conn.isInTransaction
            }
            #expect(!inTransaction)
            #expect(try await db.count(Book.self) == 1)
        }
    }

    @Test func aTransactionLeftOpenByWriteWithoutTransactionIsRolledBack() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Book.self)
            try await db.writeWithoutTransaction { conn in
                try conn.execute(script: "BEGIN")
                try conn.insert(Book(id: nil, title: "A", year: 1))
            }
            let inTransaction = try await db.writeWithoutTransaction { conn in conn.isInTransaction }
            #expect(!inTransaction)
            #expect(try await db.count(Book.self) == 0)
        }
    }

    @Test func aReadRunsInOneReadTransaction() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Book.self)
            try await db.insert(Book(id: nil, title: "A", year: 1))
            let (inTransaction, count) = try await db.read { conn in
                (conn.isInTransaction, try conn.count(Book.self))
            }
            #expect(inTransaction)
            #expect(count == 1)
            await #expect(throws: Boom.self) {
                try await db.read { _ in throw Boom() }
            }
            #expect(try await db.count(Book.self) == 1)
        }
    }

    @Test func moreReadsThanReadersWaitForOne() async throws {
        try await DatabaseTestSupport.withDatabase(options: Database.Options(readerCount: 2)) { db in
            try await db.createTable(for: Book.self)
            try await db.insert(contentsOf: (1...10).map { Book(id: nil, title: "B\($0)", year: $0) })
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<40 {
                    group.addTask { try await db.count(Book.self) }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(counts == Array(repeating: 10, count: 40))
        }
    }

    // MARK: Record operations

    @Test func insertReturnsTheStoredRecord() async throws {
        let db = try Database.inMemory()
        try await db.createTable(for: Book.self)
        let saved = try await db.insert(Book(id: nil, title: "Dune", year: 1965))
        #expect(saved == Book(id: 1, title: "Dune", year: 1965))
        await #expect {
            try await db.insert(saved)
        } throws: { error in
            (error as? SQLiteError)?.code == .constraint
        }
        let ignored = try await db.insert(Book(id: 1, title: "Other", year: 1), onConflict: .ignore)
        #expect(ignored.title == "Other")
        let replaced = try await db.insert(Book(id: 1, title: "Dune Messiah", year: 1969), onConflict: .replace)
        #expect(replaced.title == "Dune Messiah")
        #expect(try await db.fetchAll(Book.self) == [replaced])
    }

    @Test func insertContentsOfInsertsAllOrNothing() async throws {
        let db = try Database.inMemory()
        try await db.createTable(for: Book.self)
        let inserted = try await db.insert(contentsOf: (1...5).map { Book(id: nil, title: "B\($0)", year: $0) })
        #expect(inserted == 5)
        await #expect(throws: SQLiteError.self) {
            try await db.insert(contentsOf: [Book(id: 10, title: "new", year: 1), Book(id: 1, title: "dup", year: 1)])
        }
        #expect(try await db.count(Book.self) == 5)
        let skipped = try await db.insert(
            contentsOf: [Book(id: 10, title: "new", year: 1), Book(id: 1, title: "dup", year: 1)], onConflict: .ignore)
        #expect(skipped == 1)
        #expect(try await db.count(Book.self) == 6)
    }

    @Test func updateWritesTheRowOrThrowsNotFound() async throws {
        let db = try Database.inMemory()
        try await db.createTable(for: Book.self)
        var book = try await db.insert(Book(id: nil, title: "Dune", year: 1900))
        book.year = 1965
        book.title = "Dune (1)"
        try await db.update(book)
        #expect(try await db.find(Book.self, id: 1) == book)
        await #expect {
            try await db.update(Book(id: 99, title: "x", year: 1))
        } throws: { error in
            if case .notFound(let table, _) = error as? RecordError { return table == "books" }
            return false
        }
    }

    @Test func updateColumnsWritesOnlyThoseColumns() async throws {
        let db = try Database.inMemory()
        try await db.createTable(for: Book.self)
        let book = try await db.insert(Book(id: nil, title: "Dune", year: 1900))
        try await db.update(Book(id: book.id, title: "ignored", year: 1965), columns: ["year"])
        #expect(try await db.find(Book.self, id: 1) == Book(id: 1, title: "Dune", year: 1965))
    }

    @Test func upsertInsertsThenUpdates() async throws {
        let db = try Database.inMemory()
        try await db.createTable(for: Book.self)
        let first = try await db.upsert(Book(id: 7, title: "A", year: 1))
        let second = try await db.upsert(Book(id: 7, title: "B", year: 2))
        #expect(first == Book(id: 7, title: "A", year: 1))
        #expect(second == Book(id: 7, title: "B", year: 2))
        #expect(try await db.fetchAll(Book.self) == [second])
    }

    @Test func deleteByRecordIdKeyConditionAndAll() async throws {
        let db = try Database.inMemory()
        try await db.createTable(for: Book.self)
        try await db.createTable(for: Shelf.self)
        try await db.insert(contentsOf: (1...6).map { Book(id: nil, title: "B\($0)", year: 2000 + $0) })
        try await db.insert(contentsOf: [
            Shelf(room: "a", position: 1, label: "x"), Shelf(room: "a", position: 2, label: "y"),
        ])

        #expect(try await db.delete(Book(id: 1, title: "B1", year: 2001)))
        #expect(try await db.delete(Book(id: 1, title: "B1", year: 2001)) == false)
        #expect(try await db.delete(Book.self, id: 2))
        #expect(try await db.delete(Book.self, id: 2) == false)
        #expect(try await db.delete(Book.self, where: "year >= \(2005)") == 2)
        #expect(try await db.fetchAll(Book.self, orderBy: "id").map(\.id) == [3, 4])
        #expect(try await db.deleteAll(Book.self) == 2)
        #expect(try await db.count(Book.self) == 0)

        #expect(try await db.delete(Shelf.self, key: ["room": "a", "position": 1]))
        #expect(try await db.delete(Shelf.self, key: ["room": "a", "position": 1]) == false)
        #expect(try await db.fetchAll(Shelf.self) == [Shelf(room: "a", position: 2, label: "y")])
    }

    @Test func findByIdAndByCompositeKey() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Book.self)
            try await db.createTable(for: Shelf.self)
            let book = try await db.insert(Book(id: nil, title: "Dune", year: 1965))
            let shelf = try await db.insert(Shelf(room: "hall", position: 3, label: "SF"))
            #expect(try await db.find(Book.self, id: book.id) == book)
            #expect(try await db.find(Book.self, id: 99) == nil)
            #expect(try await db.find(Shelf.self, key: ["room": "hall", "position": 3]) == shelf)
            #expect(try await db.find(Shelf.self, key: ["room": "hall", "position": 4]) == nil)
            await #expect(throws: RecordError.self) {
                try await db.find(Shelf.self, key: ["room": "hall"])
            }
        }
    }

    @Test func fetchAllFetchOneCountAndExists() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.createTable(for: Book.self)
            try await db.insert(contentsOf: (1...10).map { Book(id: nil, title: "B\($0)", year: 2000 + $0) })
            let all = try await db.fetchAll(Book.self)
            #expect(all.count == 10)
            let page = try await db.fetchAll(
                Book.self, where: "year > \(2002)", orderBy: "year DESC", limit: 3, offset: 2)
            #expect(page.map(\.year) == [2008, 2007, 2006])
            let skipped = try await db.fetchAll(Book.self, orderBy: "id", offset: 8)
            #expect(skipped.map(\.year) == [2009, 2010])
            #expect(try await db.fetchOne(Book.self, where: "year < \(2004)", orderBy: "year DESC")?.year == 2003)
            #expect(try await db.fetchOne(Book.self, where: "year > \(3000)") == nil)
            #expect(try await db.fetchOne(Book.self)?.id != nil)
            #expect(try await db.count(Book.self) == 10)
            #expect(try await db.count(Book.self, where: "year % 2 = \(0)") == 5)
            #expect(try await db.exists(Book.self))
            #expect(try await db.exists(Book.self, where: "title = \("B3")"))
            #expect(try await db.exists(Book.self, where: "title = \("nope")") == false)
        }
    }

    @Test func fetchBySQLAndExecute() async throws {
        try await DatabaseTestSupport.withDatabase { db in
            try await db.execute("CREATE TABLE counters(name TEXT PRIMARY KEY, n INTEGER NOT NULL)")
            let name = "visits"
            try await db.execute("INSERT INTO counters(name, n) VALUES (\(name), \(0))")
            for _ in 0..<3 {
                try await db.execute("UPDATE counters SET n = n + 1 WHERE name = \(name)")
            }
            #expect(try await db.fetchOne(Int.self, sql: "SELECT n FROM counters WHERE name = \(name)") == 3)
            #expect(try await db.fetchOne(Int.self, sql: "SELECT n FROM counters WHERE name = \("x")") == nil)
            #expect(try await db.fetchAll(String.self, sql: "SELECT name FROM counters") == ["visits"])
            struct Counter: Decodable, Sendable, Equatable {
                var name: String
                var n: Int
            }
            #expect(try await db.fetchAll(Counter.self, sql: "SELECT * FROM counters") == [Counter(name: name, n: 3)])
            // A failing statement rolls its own transaction back.
            await #expect(throws: SQLiteError.self) {
                try await db.execute("INSERT INTO counters(name, n) VALUES (\(name), \(1))")
            }
            #expect(try await db.fetchOne(Int.self, sql: "SELECT count(*) FROM counters") == 1)
        }
    }

    @Test func createTableIfNotExists() async throws {
        let db = try Database.inMemory()
        try await db.createTable(for: Book.self)
        await #expect(throws: SQLiteError.self) {
            try await db.createTable(for: Book.self)
        }
        try await db.createTable(for: Book.self, ifNotExists: true)
        #expect(try await db.count(Book.self) == 0)
    }

    // MARK: Templates

    /// Writes a database holding one book at `path`.
    private func makeTemplate(at path: String, journalMode: Database.JournalMode = .delete) async throws {
        let template = try Database(path: path, options: Database.Options(journalMode: journalMode))
        try await template.createTable(for: Book.self)
        try await template.insert(Book(id: nil, title: "From the template", year: 2000))
        try await template.close()
    }

    /// The names of the files in `directory`, sorted.
    private func files(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test(arguments: [Database.JournalMode.delete, .wal])
    func aTemplateIsCopiedWhenNoDatabaseExists(journalMode: Database.JournalMode) async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let template = directory.appendingPathComponent("template.sqlite").path
            try await makeTemplate(at: template, journalMode: journalMode)
            let path = directory.appendingPathComponent("app.sqlite").path
            let db = try Database(path: path, options: Database.Options(templatePath: template))
            #expect(try await db.fetchAll(Book.self).map(\.title) == ["From the template"])
            try await db.insert(Book(id: nil, title: "Mine", year: 2024))
            try await db.close()
            // The template itself is untouched, and no temporary file is left.
            let original = try Database(path: template)
            #expect(try await original.count(Book.self) == 1)
            try await original.close()
            let names = try files(in: directory)
            #expect(names == ["app.sqlite", "template.sqlite"])
        }
    }

    @Test func aTemplateIsIgnoredWhenTheDatabaseExists() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let template = directory.appendingPathComponent("template.sqlite").path
            try await makeTemplate(at: template)
            let path = directory.appendingPathComponent("app.sqlite").path
            let existing = try Database(path: path)
            try await existing.execute("CREATE TABLE mine(x)")
            try await existing.close()

            let db = try Database(path: path, options: Database.Options(templatePath: template))
            #expect(try await db.fetchAll(String.self, sql: "SELECT name FROM sqlite_schema") == ["mine"])
            try await db.close()
        }
    }

    @Test func aTemplateThatIsNotADatabaseThrowsAndLeavesNothing() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let template = directory.appendingPathComponent("template.sqlite")
            try Data(String(repeating: "plain text, no database ", count: 200).utf8).write(to: template)
            let path = directory.appendingPathComponent("app.sqlite").path
            #expect {
                _ = try Database(path: path, options: Database.Options(templatePath: template.path))
            } throws: { error in
                (error as? SQLiteError)?.code == .notADatabase
            }
            #expect(try files(in: directory) == ["template.sqlite"])
        }
    }

    @Test func aDamagedTemplateThrowsAndLeavesNothing() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let template = directory.appendingPathComponent("template.sqlite")
            try await makeTemplate(at: template.path)
            // A SQLite header followed by garbage: the schema cannot be read.
            var bytes = try Data(contentsOf: template)
            bytes.replaceSubrange(16..<bytes.count, with: Data(repeating: 0xA5, count: bytes.count - 16))
            try bytes.write(to: template)
            let path = directory.appendingPathComponent("app.sqlite").path
            #expect(throws: SQLiteError.self) {
                _ = try Database(path: path, options: Database.Options(templatePath: template.path))
            }
            #expect(try files(in: directory) == ["template.sqlite"])
        }
    }

    @Test func aMissingTemplateThrowsAndLeavesNothing() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("app.sqlite").path
            let template = directory.appendingPathComponent("missing.sqlite").path
            #expect(throws: (any Error).self) {
                _ = try Database(path: path, options: Database.Options(templatePath: template))
            }
            let left = try files(in: directory)
            #expect(left.isEmpty)
        }
    }

    // MARK: Closing

    @Test func everyCallAfterCloseThrowsClosed() async throws {
        for options in [Database.Options(), Database.Options(readerCount: 0)] {
            try await DatabaseTestSupport.withDirectory { directory in
                let db = try Database(path: directory.appendingPathComponent("db.sqlite").path, options: options)
                try await db.createTable(for: Book.self)
                try await db.close()
                try await db.close()  // a second close does nothing
                let isClosed: (any Error) -> Bool = { ($0 as? DatabaseError) == .closed }
                await #expect(performing: { try await db.write { _ in 1 } }, throws: isClosed)
                await #expect(performing: { try await db.writeWithoutTransaction { _ in 1 } }, throws: isClosed)
                await #expect(performing: { try await db.read { _ in 1 } }, throws: isClosed)
                await #expect(performing: { try await db.insert(Book(id: nil, title: "A", year: 1)) }, throws: isClosed)
                await #expect(performing: { try await db.count(Book.self) }, throws: isClosed)
                await #expect(performing: { try await db.fetchAll(Book.self) }, throws: isClosed)
            }
        }
        #expect(DatabaseError.closed.description.contains("closed"))
    }

    @Test func closeWaitsForTheReadsInFlight() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let db = try Database(path: directory.appendingPathComponent("db.sqlite").path)
            try await db.createTable(for: Book.self)
            let (started, startedSignal) = AsyncStream.makeStream(of: Void.self)
            let release = DispatchSemaphore(value: 0)
            let read = Task {
                try await db.read { conn in
                    startedSignal.yield()
                    // Held until the test has called close() (60 s at most: the test gets there through the
                    // cooperative pool, which the whole suite loads on 2 cores).
                    guard release.wait(timeout: .now() + 60) == .success else { throw CancellationError() }
                    return try conn.count(Book.self)
                }
            }
            for await _ in started { break }
            let closed = Task {
                try await db.close()
                return ContinuousClock.now
            }
            // close() is waiting for the read; the read finishes normally.
            try await Task.sleep(for: .milliseconds(50))
            let releasedAt = ContinuousClock.now
            release.signal()
            #expect(try await read.value == 0)
            let closedAt = try await closed.value
            #expect(closedAt > releasedAt)
            await #expect(throws: DatabaseError.self) { try await db.count(Book.self) }
        }
    }
}
