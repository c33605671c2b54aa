// bindery-lock-helper: holds the write lock of a SQLite database from a second process, for the
// busy-handling tests of `Database`.
//
//     bindery-lock-helper <database path> [seconds]
//
// Opens the database, runs `BEGIN EXCLUSIVE`, prints "locked", and holds the lock until its standard
// input closes or `seconds` (default 30) pass; then commits, prints "released" and exits 0. Any
// failure is printed to standard error with exit status 1.

import Bindery
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waits until standard input reaches end of file, or until `seconds` pass.
func waitForEndOfInput(seconds: Double) {
    let deadline = Date().addingTimeInterval(seconds)
    var buffer = [UInt8](repeating: 0, count: 256)
    while true {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { return }
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(min(remaining * 1000, 1000)))
        if ready < 0 && errno != EINTR {
            return
        }
        if ready > 0 {
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count <= 0 {
                return
            }
        }
    }
}

/// Writes `line` to standard output at once, unbuffered, for the test that waits for it.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func main() -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count == 2 || arguments.count == 3 else {
        FileHandle.standardError.write(Data("usage: bindery-lock-helper <database path> [seconds]\n".utf8))
        return 1
    }
    let seconds = arguments.count == 3 ? Double(arguments[2]) ?? 30 : 30
    do {
        let connection = try Connection(path: arguments[1], options: Connection.Options(busyTimeout: 0))
        try connection.execute(script: "BEGIN EXCLUSIVE")
        say("locked")
        waitForEndOfInput(seconds: seconds)
        try connection.execute(script: "COMMIT")
        connection.close()
        say("released")
        return 0
    } catch {
        FileHandle.standardError.write(Data("bindery-lock-helper: \(error)\n".utf8))
        return 1
    }
}

exit(main())
