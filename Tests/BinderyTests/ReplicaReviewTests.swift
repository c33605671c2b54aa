import Foundation
import Testing

@testable import Bindery

/// A review of read replicas (issue 37): each test reproduces one way a replica could give a wrong
/// answer, hang, leak or break its contract, with the real extension and the real `litestream` (see
/// ``ReadReplicaTests``).
@Suite struct ReplicaReviewTests {
    typealias Primary = ReadReplicaTests.Primary
    typealias Book = ReadReplicaTests.Book
    typealias Author = ReadReplicaTests.Author

    /// Waits until `condition` holds, up to `seconds`; returns whether it did.
    static func eventually(
        within seconds: Double = 10, _ condition: () async throws -> Bool
    ) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    // MARK: Copies

    @Test(ReadReplicaTests.needsLitestream, arguments: [2, 0])
    func vacuumIntoOnAReplicaCopiesWhatItsReadsSee(readerCount: Int) async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory)
            defer { Task { try? await primary.database.close() } }
            let replica = try await primary.openReplica(readerCount: readerCount)
            try await primary.database.insert(Book(id: nil, title: "Neuromancer", authorId: 2))
            try primary.replicateOnce()
            #expect(try await Self.eventually { try await replica.count(Book.self) == 6 })
            let copy = directory.appendingPathComponent("copy #1?%20.sqlite").path
            try await replica.vacuum(into: copy)
            let local = try Database(path: copy)
            #expect(try await local.count(Book.self) == 6)
            try await local.close()
            try await replica.close()
        }
    }

    // MARK: Opens that wait

    /// An open that waits for a backup (inside `sqlite3_open_v2`, in the VFS), then is cancelled.
    @Test(ReadReplicaTests.needsLitestream) func aCancelledOpenThatWaitsLeavesOtherOpensFree() async {
        // In a process of its own: the waiting open never returns.
        await #expect(processExitsWith: .success) {
            let extensionPath = try #require(ReadReplicaTests.extensionPath)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("waiting-\(UUID().uuidString)")
            let level0 = folder.appendingPathComponent("ltx/0", isDirectory: true)
            try FileManager.default.createDirectory(at: level0, withIntermediateDirectories: true)
            // An LTX file the VFS cannot use (as an object store without a backup yet): it waits for one.
            try Data().write(to: level0.appendingPathComponent("unfinished.ltx"))
            let url = "file://\(folder.path)"
            let opening = Task { try await Database.replica(of: url, extensionPath: extensionPath) }
            try await Task.sleep(for: .seconds(1))
            opening.cancel()
            _ = await opening.result
            // Every other open of the process must still work.
            DispatchQueue.global().asyncAfter(deadline: .now() + 5) { exit(3) }
            let other = try Database.inMemory()
            try await other.write { conn in try conn.execute(script: "CREATE TABLE t(x)") }
            exit(0)
        }
    }

    @Test(ReadReplicaTests.needsLitestream) func anUppercaseFileURLWithNoBackupThrowsInsteadOfWaiting() async {
        await #expect(processExitsWith: .success) { try await Self.openOrThrowWithin10Seconds("uppercase") }
    }

    @Test(ReadReplicaTests.needsLitestream) func aLocalhostFileURLThrowsOrReadsInsteadOfWaiting() async {
        await #expect(processExitsWith: .success) { try await Self.openOrThrowWithin10Seconds("localhost") }
    }

    @Test(ReadReplicaTests.needsLitestream) func aFileURLWithASpaceThrowsOrReadsInsteadOfWaiting() async {
        await #expect(processExitsWith: .success) { try await Self.openOrThrowWithin10Seconds("space") }
    }

    /// Opens a replica of a primary through a `file://` URL of the `form` given, in an exit test: exits 0
    /// when the open throws or reads the primary's books, 3 when it is still waiting after 10 seconds.
    static func openOrThrowWithin10Seconds(_ form: String) async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let folder = directory.appendingPathComponent("with space", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let primary = try await Primary.make(in: form == "space" ? folder : directory)
            let path = String(primary.replicaURL.dropFirst("file://".count))
            let url =
                switch form {
                case "uppercase": "FILE://\(directory.path)/none"
                case "localhost": "file://localhost\(path)"
                default: primary.replicaURL
                }
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { exit(3) }
            let extensionPath = try #require(ReadReplicaTests.extensionPath)
            do {
                let replica = try await Database.replica(of: url, extensionPath: extensionPath)
                // Opened: it must read the primary's books.
                guard try await replica.count(Book.self) == 5 else { exit(4) }
            } catch {
                // Thrown at once: what the test asks.
                FileHandle.standardError.write(Data("\(form): \(error)\n".utf8))
            }
            exit(0)
        }
    }

    @Test func theFolderCheckedForABackupIsTheOneLitestreamReads() {
        // As `strace` shows `litestream restore` 0.5.17 reading them.
        #expect(Database.litestreamFolder(of: "file:///tmp/r") == "/tmp/r/ltx")
        #expect(Database.litestreamFolder(of: "file:///tmp/r/") == "/tmp/r/ltx")
        #expect(Database.litestreamFolder(of: "FILE:///tmp/r") == "/tmp/r/ltx")
        #expect(Database.litestreamFolder(of: "File:///tmp/r") == "/tmp/r/ltx")
        #expect(Database.litestreamFolder(of: "file://localhost/tmp/r") == "/localhost/tmp/r/ltx")
        #expect(Database.litestreamFolder(of: "file:///tmp/a b/r") == "/tmp/a%20b/r/ltx")
        #expect(Database.litestreamFolder(of: "file:///tmp/a%20b/r") == "/tmp/a%20b/r/ltx")
        #expect(Database.litestreamFolder(of: "file:///tmp/r?x=1") == "/tmp/r/ltx")
        #expect(Database.litestreamFolder(of: "s3://bucket/app") == nil)
        #expect(Database.litestreamFolder(of: "/tmp/r") == nil)
    }

    // MARK: What the primary does

    @Test(ReadReplicaTests.needsLitestream) func aReplicaSeesTheSchemaChangesOfThePrimary() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory)
            defer { Task { try? await primary.database.close() } }
            let replica = try await primary.openReplica(readerCount: 3)
            // Every reader prepares and caches the statements.
            for _ in 0..<12 {
                let columns = try await replica.read { conn in
                    try conn.rows("SELECT * FROM books ORDER BY id", arguments: []).first?.columnNames
                }
                #expect(columns == ["id", "title", "authorId"])
                #expect(try await replica.fetchAll(Book.self).count == 5)
            }
            try await primary.database.writeWithoutTransaction { conn in
                try conn.execute(
                    script: """
                        ALTER TABLE books ADD COLUMN year INTEGER;
                        UPDATE books SET year = 1970;
                        CREATE TABLE labels(name TEXT);
                        INSERT INTO labels VALUES ('new');
                        """)
            }
            try primary.replicateOnce()
            let seen = try await Self.eventually {
                let counts = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<6 {
                        group.addTask {
                            try await replica.read { conn in
                                (try? conn.fetchOne(Int.self, sql: "SELECT count(*) FROM labels")) == 1
                            }
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                return counts.allSatisfy { $0 }
            }
            #expect(seen)
            for _ in 0..<12 {
                let result = try await replica.read { conn in
                    (
                        try conn.rows("SELECT * FROM books ORDER BY id", arguments: []).first?.columnNames,
                        try conn.fetchAll(Int.self, sql: "SELECT year FROM books")
                    )
                }
                #expect(result.0 == ["id", "title", "authorId", "year"])
                #expect(result.1 == Array(repeating: 1970, count: 5))
            }
            try await replica.close()
        }
    }

    @Test(ReadReplicaTests.needsLitestream) func aReplicaFollowsAPrimaryThatShrinks() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory)
            defer { Task { try? await primary.database.close() } }
            try await primary.database.write { conn in
                try conn.execute(script: "CREATE TABLE filler(x BLOB)")
                for _ in 0..<400 {
                    try conn.execute("INSERT INTO filler VALUES (randomblob(4000))", arguments: [])
                }
            }
            try primary.replicateOnce()
            let replica = try await primary.openReplica(readerCount: 2)
            #expect(try await Self.eventually { try await replica.count(Book.self) >= 5 })
            #expect(
                try await replica.read { conn in try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM filler") }
                    == 400)
            let bigPages = try await replica.read { conn in try conn.fetchOne(Int.self, sql: "PRAGMA page_count") } ?? 0
            try await primary.database.write { conn in try conn.execute(script: "DELETE FROM filler WHERE rowid > 10") }
            try await primary.database.writeWithoutTransaction { conn in try conn.execute(script: "VACUUM") }
            try await primary.database.insert(Book(id: nil, title: "After the vacuum", authorId: 1))
            try primary.replicateOnce()
            #expect(try await Self.eventually { try await replica.count(Book.self) == 6 })
            let primaryPages =
                try await primary.database.read { conn in try conn.fetchOne(Int.self, sql: "PRAGMA page_count") } ?? 0
            for _ in 0..<6 {
                let (filler, pages, check) = try await replica.read { conn in
                    (
                        try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM filler"),
                        try conn.fetchOne(Int.self, sql: "PRAGMA page_count"),
                        try conn.fetchAll(String.self, sql: "PRAGMA integrity_check(5)")
                    )
                }
                #expect(filler == 10)
                // Litestream's VFS 0.5.17 keeps the pages past the new end of a database that shrank (a
                // fresh connection too, while `litestream restore` gives the right size): the replica
                // has the old page count, and integrity_check says its pages are never used.
                withKnownIssue("Litestream's VFS 0.5.17 does not shrink a replica whose primary shrank") {
                    #expect(pages == primaryPages)
                    #expect(pages ?? 0 < bigPages)
                    #expect(check == ["ok"])
                }
            }
            let copy = directory.appendingPathComponent("copy.sqlite").path
            try await replica.backup(to: copy)
            let local = try Database(path: copy)
            let copyCheck = try await local.integrityCheck()
            withKnownIssue("a backup of the replica copies the pages past the end") {
                #expect(copyCheck.isEmpty)
            }
            #expect(
                try await local.read { conn in try conn.fetchOne(Int.self, sql: "SELECT count(*) FROM filler") } == 10)
            try await local.close()
            try await replica.close()
        }
    }

    // MARK: Cursors

    @Test(ReadReplicaTests.needsLitestream, arguments: [1, 0])
    func aCursorReadsOneSnapshotWhileTheReplicaMovesOn(readerCount: Int) async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory)
            defer { Task { try? await primary.database.close() } }
            try await primary.database.write { conn in
                for index in 0..<500 {
                    try conn.insert(Book(id: nil, title: "Book \(index)", authorId: 1))
                }
            }
            try primary.replicateOnce()
            let replica = try await primary.openReplica(pollInterval: 0.1, readerCount: readerCount)
            #expect(try await Self.eventually { try await replica.count(Book.self) == 505 })
            var ids: [Int64] = []
            var iterator = replica.fetchCursor(Book.self, sql: "SELECT * FROM books ORDER BY id").makeAsyncIterator()
            for _ in 0..<10 {
                if let book = try await iterator.next() { ids.append(book.id ?? -1) }
            }
            // Transactions arrive, and the watcher runs many times, while the cursor is held.
            for round in 0..<5 {
                try await primary.database.write { conn in
                    try conn.execute("DELETE FROM books WHERE id = \(Int64(100 + round))")
                    try conn.insert(Book(id: nil, title: "Late \(round)", authorId: 2))
                }
                try primary.replicateOnce()
                try await Task.sleep(for: .milliseconds(300))
            }
            while let book = try await iterator.next() {
                ids.append(book.id ?? -1)
            }
            #expect(ids == Array(1...505))
            // Once the cursor is done, the reader moves on.
            #expect(try await Self.eventually { try await replica.count(Book.self) == 505 })
            #expect(try await Self.eventually { try await replica.exists(Book.self, where: "title = 'Late 4'") })
            try await replica.close()
        }
    }

    @Test(ReadReplicaTests.needsLitestream, arguments: [2, 0])
    func aWritingStatementInACursorThrowsWriteRefused(readerCount: Int) async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory)
            defer { Task { try? await primary.database.close() } }
            let replica = try await primary.openReplica(readerCount: readerCount)
            await #expect(throws: Database.ReplicaError.writeRefused(replica: primary.replicaURL)) {
                for try await _ in replica.fetchCursor(Int64.self, sql: "DELETE FROM books RETURNING id") {}
            }
            #expect(try await replica.count(Book.self) == 5)
            try await replica.close()
        }
    }

    // MARK: Several replicas

    @Test(ReadReplicaTests.needsLitestream) func severalReplicasInOneProcessReadTheirOwn() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let first = directory.appendingPathComponent("first", isDirectory: true)
            let second = directory.appendingPathComponent("second", isDirectory: true)
            try FileManager.default.createDirectory(at: first, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
            let one = try await Primary.make(in: first)
            let two = try await Primary.make(in: second)
            try await two.database.insert(Author(id: nil, name: "Iain"))
            try two.replicateOnce()
            let a = try await one.openReplica()
            let b = try await two.openReplica()
            let again = try await one.openReplica()
            #expect(try await a.count(Author.self) == 2)
            #expect(try await b.count(Author.self) == 3)
            #expect(try await again.count(Author.self) == 2)
            try await one.database.insert(Author(id: nil, name: "Octavia"))
            try one.replicateOnce()
            #expect(try await Self.eventually { try await a.count(Author.self) == 3 })
            #expect(try await Self.eventually { try await again.count(Author.self) == 3 })
            #expect(try await b.count(Author.self) == 3)
            try await a.close()
            #expect(try await again.count(Author.self) == 3)
            try await again.close()
            try await b.close()
            try await one.database.close()
            try await two.database.close()
        }
    }

    // MARK: Closing

    @Test(ReadReplicaTests.needsLitestream) func closingWhileTheWatcherTicksEndsCleanly() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let primary = try await Primary.make(in: directory)
            defer { Task { try? await primary.database.close() } }
            for round in 0..<20 {
                let replica = try await primary.openReplica(pollInterval: 0.004, readerCount: round % 3)
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...30)))
                async let status = try? replica.replicaStatus()
                async let count = try? replica.count(Book.self)
                try await replica.close()
                _ = await (status, count)
                await #expect(throws: DatabaseError.closed) { try await replica.count(Book.self) }
                await #expect(throws: DatabaseError.closed) { try await replica.replicaStatus() }
            }
        }
    }

    // MARK: Memory

    /// The resident set size of the process, in bytes.
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }

    @Test(ReadReplicaTests.needsLitestream) func manyRebuildsDoNotGrowMemory() async {
        // In a process of its own: the resident size of the test process moves with every other test
        // that runs beside this one.
        await #expect(processExitsWith: .success) {
            try await DatabaseTestSupport.withDirectory { directory in
                let primary = try await Primary.make(in: directory)
                for index in 0..<20 {
                    try await primary.database.insert(Book(id: nil, title: "Book \(index)", authorId: 1))
                    try primary.replicateOnce()
                }
                // No polling while the rebuilds are counted (the lookout's polls, every 0.2 s by default,
                // allocate as they go: on a loaded machine, where the 3,300 rebuilds took 24 s instead of
                // 4, their memory crossed the limit), so that what is measured is the rebuilds' alone.
                let replica = try await primary.openReplica(pollInterval: 60, readerCount: 1)
                func rebuild(_ times: Int) async -> Int {
                    let done = await replica.onServingConnections { _, conn -> Int in
                        var rebuilt = 0
                        for _ in 0..<times where ReplicaWatcher.rebuildView(of: conn) {
                            _ = try? conn.fetchOne(Int.self, sql: "SELECT count(*) FROM books")
                            rebuilt += 1
                        }
                        return rebuilt
                    }
                    return done.compactMap { $0 }.reduce(0, +)
                }
                guard await rebuild(300) == 300 else { exit(1) }
                let before = Self.residentBytes()
                guard await rebuild(3000) == 3000 else { exit(2) }
                let after = Self.residentBytes()
                guard after - before < 20 * 1024 * 1024 else { exit(3) }
                guard try await replica.count(Book.self) == 25 else { exit(4) }
                try await replica.close()
                try await primary.database.close()
            }
        }
    }
}
