import Dispatch
import Foundation
import Testing

@testable import Bindery

/// Another process holding the write lock: a write waits up to the busy timeout, fails with `.busy`
/// having written nothing, and succeeds once the lock is released.
@Suite(.serialized) struct DatabaseBusyTests {
    private struct Note: Record, Equatable {
        static let tableName = "notes"
        var id: Int64?
        var body: String
    }

    private struct HelperError: Error, CustomStringConvertible {
        var description: String
    }

    /// The `bindery-lock-helper` executable, built by SwiftPM beside the test bundle (the test target
    /// depends on it).
    private static func helperURL() throws -> URL {
        var directories: [URL] = []
        if let first = CommandLine.arguments.first {
            directories.append(URL(fileURLWithPath: first).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        directories.append(Bundle.main.bundleURL)
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        for directory in directories {
            let candidate = directory.appendingPathComponent("bindery-lock-helper")
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw HelperError(
            description: "bindery-lock-helper is not built: run `swift build --build-tests` first (looked in "
                + directories.map(\.path).joined(separator: ", ") + ")")
    }

    /// A running `bindery-lock-helper` that holds `BEGIN EXCLUSIVE` on a database until released.
    private final class LockHolder: Sendable {
        let process: TestProcess

        /// Starts the helper on `path` and waits until it reports that it holds the lock.
        init(path: String) async throws {
            process = try TestProcess(try DatabaseBusyTests.helperURL().path, [path, "30"], input: true)
            guard let reader = process.output?.fileHandleForReading else {
                throw HelperError(description: "bindery-lock-helper has no output")
            }
            let line: String = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var text = ""
                    while !text.contains("\n") {
                        let chunk = reader.availableData
                        if chunk.isEmpty { break }
                        text += String(decoding: chunk, as: UTF8.self)
                    }
                    continuation.resume(returning: text)
                }
            }
            guard line.hasPrefix("locked") else {
                process.stop()
                throw HelperError(description: "bindery-lock-helper did not take the lock: \(line)")
            }
        }

        /// Closes the helper's input, so that it commits and exits; returns its exit status.
        func release() async -> Int32 {
            try? process.input?.fileHandleForWriting.close()
            return await process.child.exitStatus()
        }
    }

    @Test func aWriteFailsWithBusyAfterTheTimeoutAndSucceedsOnceTheLockIsReleased() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("db.sqlite").path
            let db = try Database(path: path, options: Database.Options(busyTimeout: 0.5))
            try await db.createTable(for: Note.self)
            try await db.insert(Note(id: nil, body: "before"))

            let holder = try await LockHolder(path: path)
            let clock = ContinuousClock()
            let start = clock.now
            await #expect {
                try await db.write { conn in
                    try conn.insert(Note(id: nil, body: "first"))
                    try conn.insert(Note(id: nil, body: "second"))
                }
            } throws: { error in
                (error as? SQLiteError)?.code == .busy
            }
            let waited = clock.now - start
            #expect(waited >= .milliseconds(500), "the write gave up after \(waited)")
            #expect(waited < .seconds(5), "the write gave up after \(waited)")
            // Reads go on in WAL mode while the other process holds the write lock; nothing was written.
            #expect(try await db.fetchAll(Note.self).map(\.body) == ["before"])

            #expect(await holder.release() == 0)
            try await db.insert(Note(id: nil, body: "after"))
            #expect(try await db.fetchAll(Note.self, orderBy: "id").map(\.body) == ["before", "after"])
            try await db.close()
        }
    }

    @Test func aWriteWaitsForALockReleasedWithinTheTimeout() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("db.sqlite").path
            let db = try Database(path: path, options: Database.Options(busyTimeout: 10))
            try await db.createTable(for: Note.self)
            let holder = try await LockHolder(path: path)
            let write = Task {
                try await db.insert(Note(id: nil, body: "waited"))
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(await holder.release() == 0)
            _ = try await write.value
            #expect(try await db.fetchAll(Note.self).map(\.body) == ["waited"])
            try await db.close()
        }
    }

    @Test func withoutWALReadsAreBusyToo() async throws {
        try await DatabaseTestSupport.withDirectory { directory in
            let path = directory.appendingPathComponent("db.sqlite").path
            let options = Database.Options(busyTimeout: 0.3, journalMode: .delete)
            let db = try Database(path: path, options: options)
            try await db.createTable(for: Note.self)
            let holder = try await LockHolder(path: path)
            await #expect {
                try await db.count(Note.self)
            } throws: { error in
                (error as? SQLiteError)?.code == .busy
            }
            #expect(await holder.release() == 0)
            #expect(try await db.count(Note.self) == 0)
            try await db.close()
        }
    }
}
