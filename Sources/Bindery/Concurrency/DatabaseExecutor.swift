import Dispatch

/// The serial executor of a ``Database`` actor: every job of the actor runs on one dispatch queue of
/// its own, never on Swift's cooperative thread pool, so that a slow SQLite call blocks that queue's
/// thread and nothing else.
final class DatabaseExecutor: SerialExecutor {
    /// The queue every job of the actor runs on, one at a time.
    let queue: DispatchQueue

    /// Creates an executor over a new serial queue named `label`.
    init(label: String) {
        self.queue = DatabaseExecutor.makeQueue(label: label)
    }

    /// A serial queue named `label` that ``currentQueueLabel`` recognises.
    static func makeQueue(label: String) -> DispatchQueue {
        let queue = DispatchQueue(label: label)
        queue.setSpecific(key: labelKey, value: label)
        return queue
    }

    /// The label of the database queue the caller runs on, or nil outside every database queue; for
    /// tests and diagnostics.
    static var currentQueueLabel: String? {
        DispatchQueue.getSpecific(key: labelKey)
    }

    private static let labelKey = DispatchSpecificKey<String>()

    /// Runs `job` on the queue. The `UnownedJob` form of the requirement, not `consuming ExecutorJob`,
    /// because `ExecutorJob` needs macOS 14 / iOS 17 and Bindery supports macOS 13 / iOS 16.
    func enqueue(_ job: UnownedJob) {
        let executor = asUnownedSerialExecutor()
        queue.async {
            job.runSynchronously(on: executor)
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` and the runtime's isolation checks recognise the queue as the actor's
    /// (the runtime calls it from macOS 15 / iOS 18 on, and on Linux).
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, *)
    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
