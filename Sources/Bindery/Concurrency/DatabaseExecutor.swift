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

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async {
            job.runSynchronously(on: executor)
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` and the runtime's isolation checks recognise the queue as the actor's.
    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
