import Foundation

/// Counters that live as long as the process, lent to one ``RowDecoder`` (or ``RowEncoderCore``) at a
/// time: what a container kept past its row checks before it reads (or writes) anything.
///
/// The `Decoder` protocol lets `init(from:)` keep its container, and the `Encoder` protocol lets
/// `encode(to:)` keep its own. Used later, it must not read the
/// row: the statement has stepped, been reset or finalized, and the decoder may be freed. A strong
/// reference from the container to its decoder would make that safe, but the standard library's
/// container box copies the container on every call, and counting that reference cost 16
/// instructions a field. So a keyed container holds the address of one of its decoder's counters and
/// the value that counter had when the container was made. The counters are never freed, only
/// handed to the next decoder, and they only ever count up: a container whose counter moved on is
/// refused before it touches its decoder, whether the decoder is alive or not.
///
/// Each decoder gets two counters: ``row`` counts row starts and ends (odd while a row is decoded),
/// ``kept`` moves on when the keyed container reused row after row was kept by a decoded value. An
/// encoder's count the values it encodes and the keyed container it reuses in the same way.
final class RowGenerations: @unchecked Sendable {
    // Safe: `free` is only read and written while `lock` is held.
    private static let shared = RowGenerations()
    private let lock = NSLock()
    private var free: [UnsafeMutablePointer<UInt64>] = []

    /// Index of the counter of row starts and ends.
    static let row = 0
    /// Index of the counter of the reused keyed container.
    static let kept = 1

    /// A pair of counters for a new decoder.
    static func take() -> UnsafeMutablePointer<UInt64> {
        shared.lock.lock()
        let reused = shared.free.popLast()
        shared.lock.unlock()
        if let reused {
            return reused
        }
        let counters = UnsafeMutablePointer<UInt64>.allocate(capacity: 2)
        counters.initialize(repeating: 0, count: 2)
        return counters
    }

    /// Takes back the counters of a decoder that goes away, moving both on first so that no container
    /// made by that decoder is valid any more. The row counter stays even: no row is being decoded.
    static func giveBack(_ counters: UnsafeMutablePointer<UInt64>) {
        counters[row] = (counters[row] | 1) &+ 1
        counters[kept] &+= 1
        shared.lock.lock()
        shared.free.append(counters)
        shared.lock.unlock()
    }
}
