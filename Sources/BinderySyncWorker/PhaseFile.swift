import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The copy's current step, written over the same 8 bytes of a small file before each step, so
/// that the driver can aim a kill at a write, a push or a pull and count where each kill fell.
final class PhaseFile: Sendable {
    private let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_CREAT, 0o644)
        guard descriptor >= 0 else {
            throw WorkerFailure("cannot open the phase file \(path): errno \(errno)")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Writes `phase` (at most 8 bytes), padded with spaces, in one `pwrite`.
    func set(_ phase: String) {
        var bytes = Array(phase.utf8.prefix(8))
        bytes += Array(repeating: UInt8(ascii: " "), count: 8 - bytes.count)
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, 8, 0) }
    }
}
