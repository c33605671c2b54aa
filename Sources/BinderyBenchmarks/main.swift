import Bindery
import Foundation
import NorthwindFixture

// bindery-bench: Bindery beside hand-written C API loops doing the same work, in the same run.
// Build and run in release mode:  swift run -c release bindery-bench [--runs N] [--northwind PATH]
// Without --northwind it reads the Northwind fixture the repository carries (Tests/Fixtures).
// --scale runs only the scale table instead (see Scale): 1, 4 and 16 million rows in temporary database
// files, or the sizes of --scale-rows (millions of rows, e.g. `--scale-rows 1,4`). It is not run in CI.

var runs = 9
var northwind: String?
var only: String?
var scale: [Double]?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--runs": runs = arguments.popFirst().flatMap { Int($0) } ?? runs
    case "--northwind": northwind = arguments.popFirst()
    case "--only": only = arguments.popFirst()
    case "--scale": scale = scale ?? Scale.defaultMillions
    case "--scale-rows":
        guard let sizes = arguments.popFirst().flatMap(Scale.millions(from:)) else {
            print("bindery-bench: --scale-rows takes sizes in millions of rows separated by commas, e.g. 1,4,16")
            exit(2)
        }
        scale = sizes
    default:
        print("usage: bindery-bench [--runs N] [--northwind PATH] [--only TEXT] | --scale [--scale-rows M,M,...]")
        exit(2)
    }
}

#if DEBUG
    print("warning: a debug build; build with -c release for meaningful figures")
#endif

if let sizes = scale {
    do {
        try runAndWait { try await Scale.run(millions: sizes) }
        exit(0)
    } catch {
        print("bindery-bench --scale failed: \(error)")
        exit(1)
    }
}

let benchmark = Benchmark(runs: runs, only: only)
print("bindery-bench: median of \(runs) runs each; ratio = Bindery time / C API time (lower is better)")
do {
    let path = try northwind ?? NorthwindFixture.databasePath()
    guard FileManager.default.fileExists(atPath: path) else {
        print("bindery-bench: no database at \(path)")
        exit(2)
    }
    try NorthwindOrders.run(benchmark, path: path)
    try NorthwindJoins.run(benchmark, path: path)
    try NorthwindJoins.runFloor(benchmark, path: path)
    try NorthwindRequests.run(benchmark, path: path)
    try NorthwindChains.run(benchmark, path: path)
    try NorthwindRebuild.run(benchmark, path: path)
    try IntegerRecords.run(benchmark)
    try RecordCalls.run(benchmark)
    try FullTextSearch.run(benchmark)
    try runAndWait { try await ConcurrentReads.run(benchmark) }
    try runAndWait { try await ReplicaReads.run(benchmark, path: path) }
    try runAndWait { try await SyncBench.run(benchmark) }
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
