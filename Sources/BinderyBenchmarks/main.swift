import Bindery
import Foundation
import NorthwindFixture

// bindery-bench: Bindery beside hand-written C API loops doing the same work, in the same run.
// Build and run in release mode:  swift run -c release bindery-bench [--runs N] [--northwind PATH]
// Without --northwind it reads the Northwind fixture the repository carries (Tests/Fixtures).

var runs = 9
var northwind: String?
var only: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--runs": runs = arguments.popFirst().flatMap { Int($0) } ?? runs
    case "--northwind": northwind = arguments.popFirst()
    case "--only": only = arguments.popFirst()
    default:
        print("usage: bindery-bench [--runs N] [--northwind PATH] [--only TEXT]")
        exit(2)
    }
}

#if DEBUG
    print("warning: a debug build; build with -c release for meaningful figures")
#endif

let benchmark = Benchmark(runs: runs, only: only)
print("bindery-bench: median of \(runs) runs each; ratio = Bindery time / C API time (lower is better)")
do {
    let path = try northwind ?? NorthwindFixture.databasePath()
    guard FileManager.default.fileExists(atPath: path) else {
        print("bindery-bench: no database at \(path)")
        exit(2)
    }
    try NorthwindOrders.run(benchmark, path: path)
    try IntegerRecords.run(benchmark)
    try RecordCalls.run(benchmark)
    try runAndWait { try await ConcurrentReads.run(benchmark) }
} catch {
    print("bindery-bench failed: \(error)")
    exit(1)
}

/// Runs `body` on the concurrency runtime's threads and waits for it. The program itself stays
/// synchronous: a top-level `await` would make it an asynchronous main, which valgrind cannot run.
func runAndWait(_ body: @escaping @Sendable () async throws -> Void) throws {
    final class Outcome: @unchecked Sendable {
        // Safe: `failure` is only read and written while `lock` is held.
        private let lock = NSLock()
        private var failure: (any Error)?
        let done = DispatchSemaphore(value: 0)

        func record(_ error: any Error) {
            lock.lock()
            defer { lock.unlock() }
            failure = error
        }

        var error: (any Error)? {
            lock.lock()
            defer { lock.unlock() }
            return failure
        }
    }
    let outcome = Outcome()
    Task.detached {
        do {
            try await body()
        } catch {
            outcome.record(error)
        }
        outcome.done.signal()
    }
    outcome.done.wait()
    if let failure = outcome.error {
        throw failure
    }
}
