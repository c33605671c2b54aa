/// A write transaction of the workload: copy, run (process launch) and number within the run.
struct TransactionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    var copy: Int
    var run: Int
    var txn: Int

    static func < (lhs: TransactionID, rhs: TransactionID) -> Bool {
        (lhs.copy, lhs.run, lhs.txn) < (rhs.copy, rhs.run, rhs.txn)
    }

    var description: String { "copy \(copy) run \(run) transaction \(txn)" }
}
