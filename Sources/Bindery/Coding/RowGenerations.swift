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
/// Each decoder gets two counters (``Counters``): the row counter counts row starts and ends (odd while
/// a row is decoded), the kept counter moves on when the keyed container reused row after row was kept
/// by a decoded value. An encoder's count the values it encodes and the keyed container it reuses in
/// the same way. A container holds a ``Stamp``: one counter and the value it had.
///
/// Safety: this file is the only one that names the counters' memory. It is allocated once per pair
/// and never freed (a pair given back goes to the pool, moved on), so a ``Stamp`` reads valid memory
/// however long it is kept; the counters are only written by their decoder's (or encoder's) thread
/// while it holds them, and a stamp kept on another thread past its row reads a value that moved on.
final class RowGenerations: @unchecked Sendable {
    // Safe: `free` is only read and written while `lock` is held.
    private static let shared = RowGenerations()
    private let lock = NSLock()
    private var free: [UnsafeMutablePointer<UInt64>] = []

    /// Index of the counter of row starts and ends.
    private static let row = 0
    /// Index of the counter of the reused keyed container.
    private static let kept = 1

    /// The two counters of one decoder (or encoder): taken when it is made, given back when it goes.
    struct Counters {
        private let base: UnsafeMutablePointer<UInt64>

        private init(base: UnsafeMutablePointer<UInt64>) {
            self.base = base
        }

        /// A pair of counters for a new decoder.
        static func take() -> Counters {
            shared.lock.lock()
            let reused = shared.free.popLast()
            shared.lock.unlock()
            if let reused {
                return Counters(base: reused)
            }
            let counters = UnsafeMutablePointer<UInt64>.allocate(capacity: 2)
            counters.initialize(repeating: 0, count: 2)
            return Counters(base: counters)
        }

        /// Takes back the counters of a decoder that goes away, moving both on first so that no
        /// container made by that decoder is valid any more. The row counter stays even: no row is
        /// being decoded. The counters must not be used afterwards.
        func giveBack() {
            base[RowGenerations.row] = (base[RowGenerations.row] | 1) &+ 1
            base[RowGenerations.kept] &+= 1
            shared.lock.lock()
            shared.free.append(base)
            shared.lock.unlock()
        }

        /// The row counter's value: odd while a row is decoded (or a value encoded).
        @inline(__always)
        var row: UInt64 { base[RowGenerations.row] }

        /// Whether a row is being decoded (or a value encoded).
        @inline(__always)
        var isInRow: Bool { base[RowGenerations.row] & 1 == 1 }

        /// Moves the row counter on: a row starts or ends.
        @inline(__always)
        func advanceRow() {
            base[RowGenerations.row] &+= 1
        }

        /// Moves the kept counter on: the reused keyed container was kept, and every copy is refused.
        @inline(__always)
        func advanceKept() {
            base[RowGenerations.kept] &+= 1
        }

        /// A stamp of the row counter as it is now: current until the row ends.
        @inline(__always)
        var rowStamp: Stamp { Stamp(counter: base + RowGenerations.row) }

        /// A stamp of the kept counter as it is now: current until the reused container is kept.
        @inline(__always)
        var keptStamp: Stamp { Stamp(counter: base + RowGenerations.kept) }

        /// ``keptStamp`` when `reused`, else ``rowStamp``.
        @inline(__always)
        func stamp(reused: Bool) -> Stamp {
            reused ? keptStamp : rowStamp
        }
    }

    /// The decoder (or encoder) that a container or handle reads from, lent without counting a
    /// reference (see ``Lent``), and reachable only while the stamp it was made with is current.
    ///
    /// Safety: a `Held` is made from an object and a stamp of that object's own counters (a caller
    /// passes `generations.rowStamp` or `generations.stamp(reused:)` of the decoder it holds). Every
    /// object that makes one gives its counters back in its `deinit`, which moves them on: once the
    /// object is freed, the stamp is never current again, and ``object`` is nil. So ``object`` only
    /// ever returns a live object, however long the container is kept, on whichever thread. Counting
    /// the reference instead would cost the standard library's container box a retain and a release
    /// per field (it copies the container on every call), and the handle of `encode(to:)` one pair per
    /// record (callgrind, issue 38: `insert()` one by one, +40 instructions a record).
    struct Held<Object: AnyObject> {
        private let lent: Lent<Object>
        /// The counter that says whether the object may be used, and the value it must hold.
        let stamp: Stamp

        /// Holds `object`, whose own counters `stamp` was taken from (see the type's comment).
        @inline(__always)
        init(_ object: Object, stamp: Stamp) {
            self.lent = Lent(object)
            self.stamp = stamp
        }

        /// Whether the stamp is still current: the object is alive and on the same row (or value).
        @inline(__always)
        var isCurrent: Bool { stamp.isCurrent }

        /// The object while the stamp is current; nil once the row (or value) has ended.
        @inline(__always)
        var object: Object? {
            stamp.isCurrent ? lent.object : nil
        }

        /// Runs `body` with the object, without counting a reference for the call, while the stamp is
        /// current; `expired` once the row (or value) has ended. (Not an optional result: in generic
        /// code, `R?` costs a look-up of its metadata on every call.)
        @inline(__always)
        func with<R>(_ body: (Object) throws -> R, expired: () throws -> R) rethrows -> R {
            guard stamp.isCurrent else { return try expired() }
            return try lent.with(body)
        }
    }

    /// One counter and the value it held when a container (or handle) was made: what the container
    /// checks before it reads or writes anything. Valid to keep for any time (the counter is never freed).
    struct Stamp {
        private let counter: UnsafePointer<UInt64>
        private let expected: UInt64

        @inline(__always)
        fileprivate init(counter: UnsafeMutablePointer<UInt64>) {
            self.counter = UnsafePointer(counter)
            self.expected = counter.pointee
        }

        private init(counter: UnsafePointer<UInt64>, expected: UInt64) {
            self.counter = counter
            self.expected = expected
        }

        /// A stamp of the same counter that is not current, now or later: the counter only counts up,
        /// so a value it held before never comes back. For a container refused from the start.
        var refused: Stamp { Stamp(counter: counter, expected: expected &- 1) }

        /// Whether the counter still holds the stamped value: the container may read.
        @inline(__always)
        var isCurrent: Bool { counter.pointee == expected }
    }
}
