import Bindery
import Foundation
import Synchronization

// bindery-bench: Bindery beside hand-written C API loops doing the same work, in the same run.
// Build and run in release mode:  swift run -c release bindery-bench [--runs N] [--northwind PATH]

var runs = 9
var northwind = "../shared/northwind.db"
var only: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--runs": runs = arguments.popFirst().flatMap { Int($0) } ?? runs
    case "--northwind": northwind = arguments.popFirst() ?? northwind
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
    if FileManager.default.fileExists(atPath: northwind) {
        try NorthwindOrders.run(benchmark, path: northwind)
    } else {
        print("skipping Northwind: no database at \(northwind) (pass --northwind PATH)")
    }
    try IntegerRecords.run(benchmark)
    try runAndWait { try await ConcurrentReads.run(benchmark) }
} catch {
    print("bindery-bench failed: \(error)")
    exit(1)
}

/// Runs `body` on the concurrency runtime's threads and waits for it. The program itself stays
/// synchronous: a top-level `await` would make it an asynchronous main, which valgrind cannot run.
func runAndWait(_ body: @escaping @Sendable () async throws -> Void) throws {
    final class Outcome: Sendable {
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
    }
    let outcome = Outcome()
    Task.detached {
        do {
            try await body()
        } catch {
            outcome.failure.withLock { $0 = error }
        }
        outcome.done.signal()
    }
    outcome.done.wait()
    if let failure = outcome.failure.withLock({ $0 }) {
        throw failure
    }
}
