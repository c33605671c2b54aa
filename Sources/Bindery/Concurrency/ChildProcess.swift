import Foundation

/// A child process (`litestream restore`) run to its end from a task: its standard output and error
/// go to one file, and cancelling the task terminates it.
final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable is safe: `process` is configured in `init`, before the object is shared;
    // afterwards only `run()` (once, by `run(_:_:output:)`), then `isRunning` and `processIdentifier`
    // (by `terminate()`, to signal the child) are read from other threads, which `Process` allows.
    private let process = Process()

    private init(executable: String, arguments: [String], output: FileHandle) {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
    }

    /// Runs `executable` with `arguments` until it exits, its output going to `output`; returns its
    /// exit status. Throws what `Process.run()` throws when it cannot start, and `CancellationError`
    /// when the task is cancelled (the child is killed).
    static func run(_ executable: String, _ arguments: [String], output: FileHandle) async throws -> Int32 {
        let child = ChildProcess(executable: executable, arguments: arguments, output: output)
        try Task.checkCancellation()
        let status = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
                child.process.terminationHandler = { finished in
                    continuation.resume(returning: finished.terminationStatus)
                }
                do {
                    try child.process.run()
                } catch {
                    child.process.terminationHandler = nil
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            child.terminate()
        }
        try Task.checkCancellation()
        return status
    }

    /// Kills the child when it runs, with `SIGKILL`: the child inherits the signal mask of the thread
    /// that started it, and the dispatch threads of Swift's cooperative pool block `SIGTERM` (what
    /// `Process.terminate()` sends) on Linux. What the child was writing is discarded by the caller.
    private func terminate() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
    }
}
