import CSQLite
import Foundation

/// Runs a command-line tool to its end, for the fixture (`gzip`) and the benchmark (`litestream`),
/// through the C shim's `posix_spawn` (Foundation's `Process.run()` crashes now and then on Linux:
/// swiftlang/swift-corelibs-foundation#5472; the library's own `ChildProcess` does the same).
public enum Tool {
    /// What a tool printed and how it ended.
    public struct Outcome: Sendable {
        /// Its exit status, or 128 + the signal that ended it.
        public let status: Int32
        /// What it wrote to its standard output.
        public let output: Data
    }

    /// Runs `executable` (a path) with `arguments`, its input from `/dev/null` and its standard error
    /// discarded, and returns its status and output. Throws ``NorthwindFixture/Failure`` when it cannot
    /// start.
    public static func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        let argv = [executable] + arguments
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let output = Pipe()
        let null = FileHandle(forUpdatingAtPath: "/dev/null")
        defer { try? null?.close() }
        let nullDescriptor = null?.fileDescriptor ?? -1
        var identifier: Int32 = 0
        let code = bindery_spawn(
            executable, argv.flatMap { Array($0.utf8CString) }, Int32(argv.count),
            environment.flatMap { Array($0.utf8CString) }, Int32(environment.count), nullDescriptor,
            output.fileHandleForWriting.fileDescriptor, nullDescriptor, &identifier)
        try? output.fileHandleForWriting.close()
        guard code == 0 else {
            throw NorthwindFixture.Failure(
                description: "cannot start \(executable): \(String(cString: strerror(code)))")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        _ = bindery_wait_for_end(identifier)
        return Outcome(status: bindery_collect(identifier), output: data)
    }
}
