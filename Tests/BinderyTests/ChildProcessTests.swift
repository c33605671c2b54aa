import Foundation
import Testing

@testable import Bindery

/// Bindery starts child processes (`litestream restore`, and the tools the tests run) with
/// `posix_spawn` through `ChildProcess`, never with Foundation's `Process`, whose `run()` crashes the
/// process now and then on Linux (swiftlang/swift-corelibs-foundation#5472: seen in this suite as a
/// SIGSEGV in `findMaximumOpenFromProcSelfFD`, about one full run in ten).
@Suite struct ChildProcessTests {
    @Test func theExitStatusAndTheSignalThatEndedAChildAreReported() throws {
        #expect(try TestProcess.run("/bin/sh", ["-c", "exit 0"]).status == 0)
        #expect(try TestProcess.run("/bin/sh", ["-c", "exit 7"]).status == 7)
        #expect(try TestProcess.run("/bin/sh", ["-c", "kill -9 $$"]).status == 128 + 9)
        let (status, output, errors) = try TestProcess.run("/bin/sh", ["-c", "printf out; printf err >&2"])
        #expect(status == 0)
        #expect(String(decoding: output, as: UTF8.self) == "out")
        #expect(String(decoding: errors, as: UTF8.self) == "err")
    }

    @Test func aProgramThatCannotStartThrowsAndRunsNothing() throws {
        #expect(throws: ChildProcess.StartError.self) {
            try TestProcess.run("/nonexistent/bindery-no-such-tool", [])
        }
        // An argument SQLite's shell could never receive whole: refused before anything starts.
        #expect(throws: ChildProcess.StartError.self) {
            try TestProcess.run("/bin/echo", ["a\0b"])
        }
    }

    /// The child gets its standard input, output and error and nothing else: no other descriptor of
    /// this process (a database file, a pipe's end, which would keep its reader waiting), no blocked
    /// signal (Swift's cooperative threads block SIGTERM, which a child would inherit), and this
    /// process's environment.
    @Test func theChildInheritsNoDescriptorNoBlockedSignalAndTheEnvironment() throws {
        let held = try (0..<20).map { _ in try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/null")) }
        defer { held.forEach { try? $0.close() } }
        let listing = try TestProcess.run("/bin/ls", ["/proc/self/fd"])
        #expect(listing.status == 0)
        let descriptors = String(decoding: listing.output, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        // 0, 1 and 2, and the one `ls` itself opens on the listing.
        #expect(descriptors.count == 4 && Array(descriptors.prefix(3)) == [0, 1, 2], "\(descriptors)")
        let signals = try TestProcess.run("/bin/grep", ["^SigBlk", "/proc/self/status"])
        #expect(String(decoding: signals.output, as: UTF8.self) == "SigBlk:\t0000000000000000\n")
        let environment = try TestProcess.run("/usr/bin/env", [])
        let path = "PATH=\(ProcessInfo.processInfo.environment["PATH"] ?? "")"
        #expect(String(decoding: environment.output, as: UTF8.self).split(separator: "\n").contains { $0 == path })
    }

    /// A child that would sleep ten minutes ends at once when killed, and a cancelled run kills its
    /// child: each wait below would last the ten minutes otherwise (the bound leaves a loaded machine,
    /// whose cooperative pool delays this test's own wake-ups by seconds, all the room it needs).
    @Test func killEndsARunningChildAndTheRunIsCancellable() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let sleeper = try TestProcess("/bin/sleep", ["600"], capture: false)
        sleeper.child.kill()
        #expect(await sleeper.child.exitStatus() == 128 + 9)
        sleeper.child.kill()  // after it was collected: does nothing
        #expect(clock.now - start < .seconds(300))

        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/null"))
        defer { try? log.close() }
        let run = Task { try await ChildProcess.run("/bin/sleep", ["600"], output: log) }
        try await Task.sleep(nanoseconds: 100_000_000)
        run.cancel()
        await #expect(throws: CancellationError.self) { try await run.value }
        #expect(clock.now - start < .seconds(300))
    }

    /// Every process the package starts goes through `ChildProcess` or the fixture's `Tool`: a
    /// Foundation `Process` anywhere in its sources would bring the crash back.
    @Test func noSourceOfThePackageStartsAFoundationProcess() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // The word `Process` alone (not `ChildProcess`, `TestProcess`, `ProcessInfo`) on a line of code.
        // (The pattern is cut in two, so that this line does not match it.)
        let foundationProcess = try NSRegularExpression(pattern: "(?<![A-Za-z_])Pro" + "cess(?![A-Za-z_])")
        var offenders: [String] = []
        for folder in ["Sources", "Tests", "Examples"] {
            let url = root.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.pathExtension == "swift" {
                let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                    .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                for line in code.map(String.init)
                where foundationProcess.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    offenders.append("\(file.lastPathComponent): \(line)")
                }
            }
        }
        #expect(offenders == [], "\(offenders)")
    }
}
