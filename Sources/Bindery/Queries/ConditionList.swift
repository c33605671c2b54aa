/// A request's `WHERE` conditions, in the order given, the first kept in place rather than in an
/// array: a request with one condition (`Order.filter("id = \(id)")`, the common case) allocates no
/// array when it is made, and frees none when it goes.
///
/// A request made in a loop and run once (`fetchOne(Record.filter(…))`) paid for that array on every
/// call: its allocation when the condition was added, its release when the request went (callgrind,
/// the bench's `fetchOne(request)`: some 450 instructions a call).
struct ConditionList: Sendable {
    /// The first condition; nil when there is none (and then ``rest`` is empty).
    private(set) var first: SQL?
    /// The conditions after the first, in order.
    private(set) var rest: [SQL] = []

    /// Adds `condition` after the others.
    mutating func append(_ condition: consuming SQL) {
        if first == nil {
            first = condition
        } else {
            rest.append(condition)
        }
    }

    /// How many conditions there are.
    var count: Int { first == nil ? 0 : 1 + rest.count }

    /// The conditions, in order, in an array (for building a statement's text).
    var array: [SQL] {
        guard let first else { return [] }
        return [first] + rest
    }

    /// Calls `body` with each condition, in order.
    func forEach(_ body: (SQL) throws -> Void) rethrows {
        guard let first else { return }
        try body(first)
        for condition in rest {
            try body(condition)
        }
    }
}
