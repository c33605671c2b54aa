import Foundation
import Testing

@testable import Bindery

/// Read replicas: a `Database` reading a Litestream replica through Litestream's VFS, with the real
/// extension and the real `litestream` (the ones `scripts/replica-test` installs into
/// `.build/litestream-venv`, which `.ci/run` runs before the tests; `BINDERY_LITESTREAM_VFS` names
/// another extension, and once set, the tests that need it fail rather than skip when it is missing).
/// The tests at the end need neither.
@Suite struct ReadReplicaTests {
    // MARK: The real extension and litestream

    /// The VFS extension: `BINDERY_LITESTREAM_VFS` (even when missing there), or the one in the package's
    /// `.build/litestream-venv`; nil when neither is set or there.
    static let extensionPath: String? = {
        if let path = ProcessInfo.processInfo.environment["BINDERY_LITESTREAM_VFS"], !path.isEmpty {
            return path
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let lib = package.appendingPathComponent(".build/litestream-venv/lib").path
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []
        for python in pythons.sorted() where python.hasPrefix("python3") {
            let path = "\(lib)/\(python)/site-packages/litestream_vfs/litestream-vfs.so"
            if FileManager.default.fileExists(atPath: path) {
                return path
            }
        }
        return nil
    }()

    static let available = extensionPath != nil && DatabaseRestoreTests.litestream != nil

    struct Author: Record, Equatable {
        static let tableName = "authors"
        var id: Int64?
        var name: String

        static let books = hasMany(Book.self)
    }

    struct Book: Record, Equatable {
        static let tableName = "books"
        var id: Int64?
        var title: String
        var authorId: Int64

        static let author = belongsTo(Author.self)
    }

    /// A primary database beside a `file://` replica, and the Litestream configuration that streams one
    /// to the other.
    struct Primary {
        let database: Database
        let path: String
        let replicaURL: String
        let configuration: String
        let litestream: String

        /// A primary with authors, books and a search table over the books, replicated once.
        /// `level1` sets Litestream's interval of compactions into level 1 (30 s by default).
        static func make(
            in directory: URL, monitor: String = "1s", sync: String = "1s", level1: String? = nil
        ) async throws -> Primary {
            let litestream = try #require(DatabaseRestoreTests.litestream)
            let path = directory.appendingPathComponent("primary.sqlite").path
            let replica = directory.appendingPathComponent("replica", isDirectory: true).path
            let configuration = directory.appendingPathComponent("litestream.yml").path
            let levels = level1.map { "levels:\n  - interval: \($0)\n" } ?? ""
            try Data(
                """
                \(levels)dbs:
                  - path: \(path)
                    monitor-interval: \(monitor)
                    replicas:
                      - url: file://\(replica)
                        sync-interval: \(sync)

                """.utf8
            ).write(to: URL(fileURLWithPath: configuration))
            let database = try Database(
                path: path, options: Database.Options(checkpointing: .leftToReplicator, schemaTrust: .trustedSchema))
            try await database.write { conn in
                try conn.execute(
                    script: """
                        CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                        CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                            authorId INTEGER NOT NULL REFERENCES authors(id));
                        """)
                try conn.create(searchTable: "books_fts", on: "books", columns: ["title"])
                let ursula = try conn.insert(Author(id: nil, name: "Ursula"))
                let frank = try conn.insert(Author(id: nil, name: "Frank"))
                for (title, author) in [
                    ("The Dispossessed", ursula), ("The Lathe of Heaven", ursula), ("Dune", frank),
                    ("Dune Messiah", frank), ("A Wizard of Earthsea", ursula),
                ] {
                    try conn.insert(Book(id: nil, title: title, authorId: try #require(author.id)))
                }
            }
            let primary = Primary(
                database: database, path: path, replicaURL: "file://\(replica)", configuration: configuration,
                litestream: litestream)
            try primary.replicateOnce()
            return primary
        }

        /// One sync of the primary to its replica (`litestream replicate -once`).
        func replicateOnce() throws {
            try DatabaseRestoreTests.replicateOnce(litestream, configuration: configuration)
        }

        /// `litestream replicate`, running until it is stopped.
        func startReplicating() throws -> TestProcess {
            try TestProcess(litestream, ["replicate", "-config", configuration], capture: false)
        }

        /// Opens the replica through the VFS.
        func openReplica(pollInterval: Double = 0.2, readerCount: Int = 4) async throws -> Database {
            let extensionPath: String = try #require(ReadReplicaTests.extensionPath)
            return try await Database.replica(
                of: replicaURL, extensionPath: extensionPath, pollInterval: pollInterval,
                options: Database.Options(readerCount: readerCount, schemaTrust: .trustedSchema))
        }
    }

    static let needsLitestream = Testing.ConditionTrait.enabled(
        if: available, "no litestream-vfs: run scripts/replica-test, or set BINDERY_LITESTREAM_VFS")

    @Test(needsLitestream) func everyReadWorksOnAReplica() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory)
            defer { Task { try? await primary.database.close() } }
            let replica = try await primary.openReplica()
            #expect(replica.replicaURL == primary.replicaURL)
            #expect(replica.path == primary.replicaURL)

            // Records.
            let authors = try await replica.fetchAll(Author.self, orderBy: "name")
            #expect(authors.map(\.name) == ["Frank", "Ursula"])
            #expect(try await replica.count(Book.self) == 5)
            #expect(try await replica.find(Book.self, id: 3)?.title == "Dune")
            #expect(try await replica.exists(Book.self, where: "title LIKE \("%Earthsea")"))
            // Requests and associations, to-one and to-many.
            let dunes = try await replica.fetchAll(Book.all().filter("title LIKE \("Dune%")").order("title DESC"))
            #expect(dunes.map(\.title) == ["Dune Messiah", "Dune"])
            struct BookWithAuthor: Decodable {
                var book: Book
                var author: Author
            }
            let joined = try await replica.fetchAll(
                BookWithAuthor.self, Book.all().including(required: Book.author).order("\"books\".id"))
            #expect(joined.map(\.author.name) == ["Ursula", "Ursula", "Frank", "Frank", "Ursula"])
            struct AuthorWithBooks: Decodable {
                var author: Author
                var books: [Book]
            }
            let shelves = try await replica.fetchAll(
                AuthorWithBooks.self, Author.all().including(all: Author.books).order("name"))
            #expect(shelves.map(\.books.count) == [2, 3])
            // Search.
            let pattern = try #require(SearchPattern.all("dune"))
            let found = try await replica.fetchAll(Book.all().matching(pattern, in: "books_fts"))
            #expect(Set(found.map(\.title)) == ["Dune", "Dune Messiah"])
            // A cursor.
            var titles: [String] = []
            for try await book in replica.fetchCursor(Book.self, sql: "SELECT * FROM books ORDER BY id") {
                titles.append(book.title)
            }
            #expect(titles.count == 5)
            // Concurrent readers: every read gets the same answer.
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        try await replica.read { conn in
                            try conn.fetchOne(
                                Int.self, sql: "SELECT count(*) FROM books b JOIN authors a ON a.id = b.authorId")
                                ?? -1
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts == Array(repeating: 5, count: 24))
            // A local copy of what the replica holds.
            let copy = directory.appendingPathComponent("copy.sqlite").path
            try await replica.backup(to: copy)
            let local = try Database(path: copy)
            #expect(try await local.count(Book.self) == 5)
            #expect(try await local.integrityCheck().isEmpty)
            try await local.close()
            try await replica.close()
        }
    }

    @Test(needsLitestream) func aWriteOnAReplicaThrowsWriteRefusedAndWritesNothing() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory)
            defer { Task { try? await primary.database.close() } }
            for readerCount in [4, 0] {
                let replica = try await primary.openReplica(readerCount: readerCount)
                let refused = Database.ReplicaError.writeRefused(replica: primary.replicaURL)
                await #expect(throws: refused) {
                    try await replica.insert(Author(id: nil, name: "Iain"))
                }
                await #expect(throws: refused) {
                    try await replica.write { conn in try conn.execute("DELETE FROM books", arguments: []) }
                }
                await #expect(throws: refused) {
                    try await replica.writeWithoutTransaction { conn in try conn.execute(script: "DELETE FROM books") }
                }
                var migrator = Migrator()
                migrator.register("labels") { conn in try conn.execute(script: "CREATE TABLE labels(name TEXT)") }
                await #expect(throws: refused) {
                    try await migrator.migrate(replica)
                }
                // A statement that would write, inside a read.
                await #expect(throws: refused) {
                    try await replica.read { conn in try conn.execute("DELETE FROM books", arguments: []) }
                }
                await #expect(throws: refused) {
                    try await replica.read { conn in try conn.execute(script: "CREATE TABLE labels(name TEXT)") }
                }
                #expect(try await replica.count(Book.self) == 5)
                #expect(try await replica.count(Author.self) == 2)
                try await replica.close()
            }
            #expect(try await primary.database.count(Book.self) == 5)
        }
    }

    @Test(needsLitestream) func observationOnAReplicaDeliversWhatThePrimaryCommits() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory, monitor: "100ms", sync: "200ms")
            defer { Task { try? await primary.database.close() } }
            let replicator = try primary.startReplicating()
            defer { replicator.stop() }
            let replica = try await primary.openReplica(pollInterval: 0.2)
            var counts = replica.observe { conn in try conn.count(Book.self) }.removeDuplicates().makeAsyncIterator()
            #expect(try await counts.next() == 5)
            let before = try #require(try await replica.replicaStatus())
            try await primary.database.insert(Book(id: nil, title: "Neuromancer", authorId: 2))
            let started = Date()
            #expect(try await counts.next() == 6)
            #expect(Date().timeIntervalSince(started) < 10)
            try await primary.database.insert(
                contentsOf: [
                    Book(id: nil, title: "Count Zero", authorId: 2), Book(id: nil, title: "Mona Lisa", authorId: 2),
                ])
            #expect(try await counts.next() == 8)
            // The status moved on with the transactions.
            let after = try #require(try await replica.replicaStatus())
            #expect(after.transactionID > before.transactionID)
            #expect(after.transactionTime != nil)
            try await replica.close()
        }
    }

    @Test(needsLitestream) func theStatusTellsThePositionAndALocalDatabaseHasNone() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory)
            defer { Task { try? await primary.database.close() } }
            #expect(try await primary.database.replicaStatus() == nil)
            let replica = try await primary.openReplica(readerCount: 0)
            let first = try #require(try await replica.replicaStatus())
            #expect(first.transactionID >= 1)
            try await primary.database.insert(Author(id: nil, name: "Iain"))
            try primary.replicateOnce()
            // Polled every 0.2 s: the connection reaches the new transaction.
            var status = first
            let deadline = Date().addingTimeInterval(10)
            while status.transactionID == first.transactionID, Date() < deadline {
                try await Task.sleep(for: .milliseconds(50))
                status = try #require(try await replica.replicaStatus())
            }
            #expect(status.transactionID > first.transactionID)
            #expect(try await replica.count(Author.self) == 3)
            #expect(status.latestTransactionID >= status.transactionID)
            // The time of the transaction, as the VFS prints it (nanoseconds, `Z`): recorded moments ago.
            let time = try #require(status.transactionTime)
            #expect(abs(time.timeIntervalSinceNow) < 120)
            try await replica.close()
        }
    }

    @Test(needsLitestream) func otherDatabasesOpenAndWriteAfterTheExtensionLoads() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory)
            let replica = try await primary.openReplica()
            // The extension's automatic extension would make every open on another VFS fail.
            let memory = try Database.inMemory()
            try await memory.write { conn in try conn.execute(script: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            #expect(try await memory.read { conn in try conn.fetchOne(Int.self, sql: "SELECT x FROM t") } == 1)
            let file = try Database(path: directory.appendingPathComponent("other.sqlite").path)
            try await file.write { conn in try conn.execute(script: "CREATE TABLE t(x)") }
            let plain = try Connection.inMemory()
            try plain.execute(script: "SELECT 1")
            // Extension loading stays off on every other connection.
            #expect(throws: SQLiteError.self) {
                try plain.execute(script: "SELECT load_extension('\(ReadReplicaTests.extensionPath ?? "")')")
            }
            try await file.close()
            try await memory.close()
            try await replica.close()
            try await primary.database.close()
        }
    }

    @Test(needsLitestream) func aReplicaKeepsFollowingThroughCompactionsIntoLevelOne() async throws {
        // Litestream's VFS 0.5.17, following the replica by itself, stops for good when it opened before
        // the first compaction into level 1 after a snapshot (here: `replicate -once`, then compactions
        // every second), and mixes pages of two transactions when a poll brings a level-1 file.
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory, monitor: "100ms", sync: "200ms", level1: "1s")
            defer { Task { try? await primary.database.close() } }
            let replicator = try primary.startReplicating()
            defer { replicator.stop() }
            let replica = try await primary.openReplica(pollInterval: 0.2)
            let started = Date()
            var written = 5
            while Date().timeIntervalSince(started) < 6 {
                try await primary.database.insert(Book(id: nil, title: "Book \(written)", authorId: 1))
                written += 1
                // Every read sees whole transactions: the books numbered 5… without a hole.
                let titles = try await replica.read { conn in
                    try conn.fetchAll(String.self, sql: "SELECT title FROM books WHERE title LIKE 'Book %' ORDER BY id")
                }
                #expect(titles == (5..<(5 + titles.count)).map { "Book \($0)" })
                try await Task.sleep(for: .milliseconds(50))
            }
            let deadline = Date().addingTimeInterval(10)
            var seen = 0
            while seen < written, Date() < deadline {
                try await Task.sleep(for: .milliseconds(100))
                seen = try await replica.count(Book.self)
            }
            #expect(seen == written)
            // Caught up: the replica reaches the latest transaction it knows of. Polled too: Litestream can
            // publish a transaction that adds no book (a checkpoint) after the last one was seen, which a
            // loaded machine (the thread sanitizer in CI) showed as 8 against 9 when read only once.
            var status = try #require(try await replica.replicaStatus())
            while status.transactionID != status.latestTransactionID, Date() < deadline.addingTimeInterval(10) {
                try await Task.sleep(for: .milliseconds(100))
                status = try #require(try await replica.replicaStatus())
            }
            #expect(status.transactionID == status.latestTransactionID)
            try await replica.close()
        }
    }

    // MARK: Without the extension

    @Test func anEmptyFileReplicaThrowsNoBackup() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let empty = "file://\(directory.path)/replica"
            await #expect(throws: Database.ReplicaError.noBackup(empty)) {
                try await Database.replica(of: empty, extensionPath: "/nonexistent/litestream-vfs.so")
            }
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("replica/ltx/0"), withIntermediateDirectories: true)
            await #expect(throws: Database.ReplicaError.noBackup(empty)) {
                try await Database.replica(of: empty, extensionPath: "/nonexistent/litestream-vfs.so")
            }
        }
    }

    @Test func theVFSTimesAreRead() throws {
        // `PRAGMA litestream_time` prints milliseconds, or nanoseconds once a view was rebuilt.
        let milliseconds = try #require(SQLiteDate.date(from: "2026-12-05T12:57:02.453Z"))
        #expect(abs(milliseconds.timeIntervalSince1970 - 1_796_475_422.453) < 0.001)
        let nanoseconds = try #require(SQLiteDate.date(from: "2026-12-05T12:57:06.959182898Z"))
        #expect(abs(nanoseconds.timeIntervalSince1970 - 1_796_475_426.959) < 0.001)
    }

    @Test func aPollIntervalThatIsNotAPositiveNumberIsRefused() async throws {
        for interval in [0, -1, Double.infinity] {
            await #expect(throws: Database.ReplicaError.invalidPollInterval(interval)) {
                try await Database.replica(of: "s3://bucket/app", pollInterval: interval)
            }
        }
        let error = await #expect(throws: Database.ReplicaError.self) {
            try await Database.replica(of: "s3://bucket/app", pollInterval: .nan)
        }
        guard case .invalidPollInterval(let value) = error else {
            Issue.record("expected invalidPollInterval, got \(String(describing: error))")
            return
        }
        #expect(value.isNaN)
    }

    @Test func aMissingExtensionThrowsExtensionNotFound() async throws {
        let path = "/nonexistent/litestream-vfs.so"
        await #expect(throws: Database.ReplicaError.extensionNotFound(searched: [path])) {
            try await Database.replica(of: "s3://bucket/app", extensionPath: path)
        }
    }

    @Test func aFileThatIsNotTheExtensionThrowsExtensionFailed() async {
        // In a process of its own: a process that loaded the real extension already would not load another.
        await #expect(processExitsWith: .success) {
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("not-an-extension-\(UUID().uuidString).so").path
            try Data("not a library".utf8).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            do {
                _ = try await Database.replica(of: "s3://bucket/app", extensionPath: path)
                exit(1)
            } catch Database.ReplicaError.extensionFailed(let failed, let message) {
                guard failed == path, !message.isEmpty else { exit(2) }
            }
            // Nothing else changed: databases open and write as before.
            let db = try Database.inMemory()
            try await db.write { conn in try conn.execute(script: "CREATE TABLE t(x)") }
        }
    }
}
