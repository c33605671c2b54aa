/// A failure of the worker or of a check, with the message it prints.
struct WorkerFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Thrown by a transaction the workload rolls back on purpose: none of its writes may ever appear.
struct DeliberateRollback: Error {}
