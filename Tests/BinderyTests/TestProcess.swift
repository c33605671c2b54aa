import Foundation

@testable import Bindery

/// A program a test runs (the `sqlite3` shell, Python, Litestream, the helpers of this package), started
/// with Bindery's `ChildProcess`: Foundation's `Process.run()` crashes the test process now and then on
/// Linux (swiftlang/swift-corelibs-foundation#5472).
final class TestProcess: @unchecked Sendable {
    // @unchecked Sendable is safe: every property is a constant; the pipes' handles are thread-safe.
    let child: ChildProcess
    /// The child's standard input, when it was asked for (otherwise it reads `/dev/null`).
    let input: Pipe?
    /// The child's standard output and error (nil when discarded).
    let output: Pipe?
    let errors: Pipe?

    /// Starts `executable` with `arguments`; `input` gives it a pipe to read, `capture` pipes for its
    /// standard output and error (otherwise they go to `/dev/null`).
    init(_ executable: String, _ arguments: [String], input wantsInput: Bool = false, capture: Bool = true) throws {
        let null = try FileHandle(forUpdating: URL(fileURLWithPath: "/dev/null"))
        defer { try? null.close() }
        input = wantsInput ? Pipe() : nil
        output = capture ? Pipe() : nil
        errors = capture ? Pipe() : nil
        child = try ChildProcess.start(
            executable, arguments,
            input: input?.fileHandleForReading.fileDescriptor ?? null.fileDescriptor,
            output: output?.fileHandleForWriting.fileDescriptor ?? null.fileDescriptor,
            error: errors?.fileHandleForWriting.fileDescriptor ?? null.fileDescriptor)
        // The child has its own copies: the reader of each pipe sees its end once the child is gone.
        try? input?.fileHandleForReading.close()
        try? output?.fileHandleForWriting.close()
        try? errors?.fileHandleForWriting.close()
    }

    /// Reads the child's standard output and error to their ends (the error on another thread, so
    /// that neither pipe fills up), then waits for the child; returns its status and both texts.
    func finish() -> (status: Int32, output: Data, errors: Data) {
        let errorText = Locked(Data())
        let readErrors = DispatchGroup()
        if let errors {
            DispatchQueue.global().async(group: readErrors) {
                errorText.value = errors.fileHandleForReading.readDataToEndOfFile()
            }
        }
        let text = output?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        readErrors.wait()
        return (child.waitForExit(), text, errorText.value)
    }

    /// Kills the child and collects it.
    func stop() {
        child.kill()
        _ = child.waitForExit()
    }

    /// Runs `executable` with `arguments` to its end: its status, standard output and error.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data, errors: Data) {
        try TestProcess(executable, arguments).finish()
    }
}
