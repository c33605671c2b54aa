import Foundation

/// A value shared between a test and the threads its work runs on (a database closure, a reader's
/// queue, a Dispatch thread), read and written under a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable is safe: `stored` is only read and written while `lock` is held.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    /// The value now.
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Changes the value in place, under the lock.
    func update(_ change: (inout Value) -> Void) {
        lock.withLock { change(&stored) }
    }
}
