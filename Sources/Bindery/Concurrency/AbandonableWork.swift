import Dispatch
import Foundation

/// Runs blocking work (an open that may wait on the network) on a dispatch queue, off Swift's
/// cooperative pool, for a task that may stop waiting for it: cancelling the task throws
/// `CancellationError` at once, and the work, which cannot be stopped, has its result discarded when
/// it ends.
enum AbandonableWork {
    /// Runs `work` and returns its result, or throws its error or, once the task is cancelled,
    /// `CancellationError`; a result that arrives after the cancel is passed to `discard`.
    static func run<T: Sendable>(
        _ work: @escaping @Sendable () throws -> T, discard: @escaping @Sendable (T) -> Void
    ) async throws -> T {
        try Task.checkCancellation()
        let waiter = Waiter<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.wait(continuation)
                DispatchQueue.global().async {
                    let result = Result { try work() }
                    if !waiter.resume(with: result), case .success(let value) = result {
                        discard(value)
                    }
                }
            }
        } onCancel: {
            waiter.cancel()
        }
    }

    /// The continuation of the waiting task, resumed once: by the work's result or by the cancel.
    private final class Waiter<T: Sendable>: @unchecked Sendable {
        // @unchecked Sendable is safe: `continuation` and `cancelled` are read and written only while
        // `lock` is held, and the continuation is resumed once, by whoever takes it out.
        private let lock = NSLock()
        private var continuation: CheckedContinuation<T, any Error>?
        private var cancelled = false

        /// Keeps `continuation` until the result or the cancel; resumes it at once when cancelled.
        func wait(_ continuation: CheckedContinuation<T, any Error>) {
            let cancelledAlready = lock.withLock {
                if cancelled { return true }
                self.continuation = continuation
                return false
            }
            if cancelledAlready {
                continuation.resume(throwing: CancellationError())
            }
        }

        /// Resumes the waiting task with `result`; false when it stopped waiting (cancelled).
        func resume(with result: Result<T, any Error>) -> Bool {
            let continuation = lock.withLock {
                defer { self.continuation = nil }
                return self.continuation
            }
            guard let continuation else { return false }
            continuation.resume(with: result)
            return true
        }

        /// Resumes the waiting task with `CancellationError`, unless the result came first.
        func cancel() {
            let continuation = lock.withLock {
                cancelled = true
                defer { self.continuation = nil }
                return self.continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }
}
