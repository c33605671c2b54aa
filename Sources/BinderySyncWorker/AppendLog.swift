import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file of lines, appended to with one `write` per call, optionally flushed to disk (`fsync`).
///
/// Opening it cuts a last line that a kill left half-written, so that the next line starts clean.
final class AppendLog: Sendable {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        if let data = FileManager.default.contents(atPath: path), let last = data.last, last != UInt8(ascii: "\n") {
            let keep = data.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            guard truncate(path, off_t(keep)) == 0 else {
                throw WorkerFailure("cannot cut the half-written last line of \(path): errno \(errno)")
            }
        }
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else {
            throw WorkerFailure("cannot open \(path): errno \(errno)")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Appends `lines` (each without its newline) in one write; with `durable`, waits for `fsync`.
    func append(_ lines: [String], durable: Bool) throws {
        guard !lines.isEmpty else { return }
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return write(descriptor, base + written, bytes.count - written)
            }
            guard result > 0 else {
                throw WorkerFailure("cannot append to \(path): errno \(errno)")
            }
            written += result
        }
        if durable, fsync(descriptor) != 0 {
            throw WorkerFailure("cannot fsync \(path): errno \(errno)")
        }
    }

    /// The lines of the file at `path` (none when it is missing).
    static func lines(of path: String) -> [Substring] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
    }
}
