import CSQLite
import Foundation

/// A child process (`litestream restore`, and the tools the tests run), started with `posix_spawn`.
///
/// Foundation's `Process` is not used: on Linux its `run()` crashes the whole process now and then
/// (swift-corelibs-foundation up to Swift 6.3 reads past a buffer while it lists the open descriptors,
/// swiftlang/swift-corelibs-foundation#5472). The child gets the descriptors it is given as its
/// standard input, output and error and no other, no blocked signal, and this process's environment.
///
/// Its id is never signalled after it is collected: ``waitForExit()`` waits for the end without
/// collecting the child, then collects it under the same lock that ``kill()`` takes, so `kill()` cannot
/// reach another process that was given the id since.
final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable is safe: `collected` is only read and written while `lock` is held, and
    // `identifier` never changes.
    private let lock = NSLock()
    private var collected = false
    /// The child's process id.
    let identifier: Int32

    /// A child that could not be started: `posix_spawn`'s errno value, and what was run.
    struct StartError: Error, CustomStringConvertible {
        /// The errno value.
        let code: Int32
        /// The program.
        let executable: String

        var description: String {
            "cannot start \(executable): \(String(cString: strerror(code)))"
        }
    }

    private init(identifier: Int32) {
        self.identifier = identifier
    }

    /// Starts `executable` (a path) with `arguments`, with the descriptors `input`, `output` and `error`
    /// as its standard input, output and error (the caller closes its own copies when it wants an end
    /// of file). Throws ``StartError`` when it cannot start (no such file, not executable, an argument
    /// holding a NUL byte: `EINVAL`).
    static func start(
        _ executable: String, _ arguments: [String], input: Int32, output: Int32, error: Int32
    ) throws -> ChildProcess {
        let argv = [executable] + arguments
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        guard !(argv + environment).contains(where: { $0.utf8.contains(0) }) else {
            throw StartError(code: EINVAL, executable: executable)
        }
        let args = argv.flatMap { Array($0.utf8CString) }
        let env = environment.flatMap { Array($0.utf8CString) }
        var identifier: Int32 = 0
        let code = bindery_spawn(
            executable, args, Int32(argv.count), env, Int32(environment.count), input, output, error, &identifier)
        guard code == 0 else {
            throw StartError(code: code, executable: executable)
        }
        return ChildProcess(identifier: identifier)
    }

    /// Blocks the calling thread until the child ends, and returns its exit status, or 128 + the
    /// number of the signal that ended it (-1 when it could not be collected). Call it once.
    func waitForExit() -> Int32 {
        _ = bindery_wait_for_end(identifier)
        return lock.withLock {
            collected = true
            return bindery_collect(identifier)
        }
    }

    /// Kills the child with `SIGKILL`, unless it was collected already.
    func kill() {
        lock.withLock {
            if !collected {
                _ = Foundation.kill(identifier, SIGKILL)
            }
        }
    }

    /// Waits for the end of the child on a thread of its own (not one of Swift's cooperative pool, which
    /// it would block), and returns its status as ``waitForExit()`` does.
    func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: self.waitForExit())
            }
        }
    }

    /// Runs `executable` with `arguments` until it exits, its standard output and error going to
    /// `output` and its input from `/dev/null`; returns its exit status. Throws ``StartError`` when it
    /// cannot start, and `CancellationError` when the task is cancelled (the child is killed).
    static func run(_ executable: String, _ arguments: [String], output: FileHandle) async throws -> Int32 {
        try Task.checkCancellation()
        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null"))
        defer { try? input.close() }
        let child = try start(
            executable, arguments, input: input.fileDescriptor, output: output.fileDescriptor,
            error: output.fileDescriptor)
        let status = await withTaskCancellationHandler {
            await child.exitStatus()
        } onCancel: {
            child.kill()
        }
        try Task.checkCancellation()
        return status
    }
}
