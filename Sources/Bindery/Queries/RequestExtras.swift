/// The parts of a ``QueryRequest`` that only conditions on aggregates, ``QueryRequest/reversed()`` and
/// key filters set, behind one reference that is nil without them.
///
/// Stored in the request as four fields (and tested through computed properties in `fetchOne`), they
/// made each `fetchOne` of a request built in a loop some 250 instructions dearer (callgrind, the
/// bench's `fetchOne(request)`, 100,000 calls: 968.7M instructions before them, 993.8M); one optional
/// reference, tested for nil where ``PlainRequest`` reads the request's other fields, costs about 47
/// (973.4M). Immutable; a modifier makes a new one.
final class RequestExtras: Sendable {
    /// The conditions on aggregates of associations given to `filter(_:)`: tested on each row.
    let aggregateFilters: [AggregateFormula]
    /// The conditions on aggregates given to `having(_:)`: tested on each group of a request that
    /// groups its rows, on each row of any other.
    let aggregateHavings: [AggregateFormula]
    /// Whether the request's ordering is reversed.
    let isReversed: Bool
    /// The primary-key values given to `filter(key:)` and `filter(keys:)`, checked against the key
    /// columns on a connection.
    let keyFilters: [KeyFilter]

    init(
        aggregateFilters: [AggregateFormula], aggregateHavings: [AggregateFormula], isReversed: Bool,
        keyFilters: [KeyFilter]
    ) {
        self.aggregateFilters = aggregateFilters
        self.aggregateHavings = aggregateHavings
        self.isReversed = isReversed
        self.keyFilters = keyFilters
    }

    /// The extras given, or nil when there are none.
    static func make(
        aggregateFilters: [AggregateFormula], aggregateHavings: [AggregateFormula], isReversed: Bool,
        keyFilters: [KeyFilter]
    ) -> RequestExtras? {
        guard !aggregateFilters.isEmpty || !aggregateHavings.isEmpty || isReversed || !keyFilters.isEmpty else {
            return nil
        }
        return RequestExtras(
            aggregateFilters: aggregateFilters, aggregateHavings: aggregateHavings, isReversed: isReversed,
            keyFilters: keyFilters)
    }
}

extension QueryRequest {
    /// The conditions on aggregates given to `filter(_:)`.
    var aggregateFilters: [AggregateFormula] {
        get { extras?.aggregateFilters ?? [] }
        set {
            extras = .make(
                aggregateFilters: newValue, aggregateHavings: aggregateHavings, isReversed: isReversed,
                keyFilters: keyFilters)
        }
    }

    /// The conditions on aggregates given to `having(_:)`.
    var aggregateHavings: [AggregateFormula] {
        get { extras?.aggregateHavings ?? [] }
        set {
            extras = .make(
                aggregateFilters: aggregateFilters, aggregateHavings: newValue, isReversed: isReversed,
                keyFilters: keyFilters)
        }
    }

    /// Whether the request's ordering is reversed (``reversed()``).
    var isReversed: Bool {
        get { extras?.isReversed ?? false }
        set {
            extras = .make(
                aggregateFilters: aggregateFilters, aggregateHavings: aggregateHavings, isReversed: newValue,
                keyFilters: keyFilters)
        }
    }

    /// The primary-key values given to `filter(key:)` and `filter(keys:)`.
    var keyFilters: [KeyFilter] {
        get { extras?.keyFilters ?? [] }
        set {
            extras = .make(
                aggregateFilters: aggregateFilters, aggregateHavings: aggregateHavings, isReversed: isReversed,
                keyFilters: newValue)
        }
    }

    /// Whether the request has key filters, which a connection checks before it runs the request.
    var hasKeyFilters: Bool {
        extras.map { !$0.keyFilters.isEmpty } ?? false
    }
}
