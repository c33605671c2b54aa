/// The parts of a ``QueryRequest`` that most requests leave empty (the selection, groupings, `HAVING`
/// conditions, associations, annotations, joined subqueries, conditions on aggregates,
/// ``QueryRequest/reversed()`` and key filters), behind one reference that is nil without them.
///
/// Stored in the request as fields of their own, each is retained when a request is copied and
/// released when one goes, empty or not: for a request built in a loop (`Record.filter(…)` then
/// `fetchOne`, callgrind, the bench's `fetchOne(request)`, 100,000 calls) the four fields of conditions on
/// aggregates, reversal and key filters cost some 250 instructions a call (968.7M instructions before
/// them, 993.8M; 973.4M behind the reference), the five others about 500 (see the commit that moved
/// them). One optional reference costs next to nothing when nil. The selection joined them later
/// (2026-12-07 night): stored in the request, it was 56 more bytes to write and move for each request
/// made. The orderings and the conditions after the first stay in the request: common enough that
/// extras made for them cost more than they spare (see ``QueryRequest/orderings``). Immutable; a
/// modifier makes a new one.
final class RequestExtras: Sendable {
    /// The parts, each empty (or false) unless a modifier set it.
    struct Parts: Sendable {
        /// What the request selects; nil for every column of the table.
        var selection: SQL?
        /// The groupings (`GROUP BY`) given to `group(_:)`.
        var groupings: [SQL] = []
        /// The conditions (`HAVING`) given to `having(_:)`.
        var havingConditions: [SQL] = []
        /// The associations joined or included, in the order given.
        var associations: [AssociationPart] = []
        /// The aggregates of associated rows selected after the selection, in the order given.
        var annotations: [AnnotationPart] = []
        /// The filtered subqueries joined to the table (a search table's matches), in the order given.
        var sourceJoins: [SourceJoin] = []
        /// The conditions on aggregates of associations given to `filter(_:)`: tested on each row.
        var aggregateFilters: [AggregateFormula] = []
        /// The conditions on aggregates given to `having(_:)`: tested on each group of a request that
        /// groups its rows, on each row of any other.
        var aggregateHavings: [AggregateFormula] = []
        /// Whether the request's ordering is reversed.
        var isReversed = false
        /// The primary-key values given to `filter(key:)` and `filter(keys:)`, checked against the key
        /// columns on a connection.
        var keyFilters: [KeyFilter] = []

        /// Whether every part is empty: a request without extras. (Every part is in one of the two lists
        /// below, so that a part added later cannot be missed by ``RequestExtras/allowsPlainRequest``.)
        var isEmpty: Bool { fragmentsAreEmpty && othersAreEmpty }

        /// Whether the parts a plain request binds as fragments of its text are empty.
        var fragmentsAreEmpty: Bool {
            selection == nil && groupings.isEmpty && havingConditions.isEmpty
        }

        /// Whether the parts that make a request more than a plain one are empty.
        var othersAreEmpty: Bool {
            associations.isEmpty && annotations.isEmpty && sourceJoins.isEmpty && aggregateFilters.isEmpty
                && aggregateHavings.isEmpty && !isReversed && keyFilters.isEmpty
        }
    }

    let parts: Parts

    /// Whether a request with these extras can still be a ``PlainRequest``: it has no association,
    /// annotation, joined subquery, condition on aggregates, reversal or key filter (the selection,
    /// groupings and `HAVING` conditions are fragments it binds).
    var allowsPlainRequest: Bool { parts.othersAreEmpty }

    private init(_ parts: Parts) {
        self.parts = parts
    }

    /// The extras given, or nil when there are none.
    static func make(_ parts: Parts) -> RequestExtras? {
        parts.isEmpty ? nil : RequestExtras(parts)
    }

    /// The conditions on aggregates of associations given to `filter(_:)`.
    var aggregateFilters: [AggregateFormula] { parts.aggregateFilters }
    /// The conditions on aggregates given to `having(_:)`.
    var aggregateHavings: [AggregateFormula] { parts.aggregateHavings }
    /// Whether the request's ordering is reversed.
    var isReversed: Bool { parts.isReversed }
    /// The primary-key values given to `filter(key:)` and `filter(keys:)`.
    var keyFilters: [KeyFilter] { parts.keyFilters }
}

extension QueryRequest {
    /// Replaces the extras with those `change` makes of them.
    private mutating func changeExtras(_ change: (inout RequestExtras.Parts) -> Void) {
        var parts = extras?.parts ?? RequestExtras.Parts()
        change(&parts)
        extras = .make(parts)
    }

    /// What the request selects; nil for every column of the table.
    var selection: SQL? {
        get { extras?.parts.selection }
        set { changeExtras { $0.selection = newValue } }
    }

    /// The groupings (`GROUP BY`), in order.
    var groupings: [SQL] {
        get { extras?.parts.groupings ?? [] }
        set { changeExtras { $0.groupings = newValue } }
    }

    /// The `HAVING` conditions written as SQL, in order.
    var havingConditions: [SQL] {
        get { extras?.parts.havingConditions ?? [] }
        set { changeExtras { $0.havingConditions = newValue } }
    }

    /// The associations joined or included, in the order given.
    var associations: [AssociationPart] {
        get { extras?.parts.associations ?? [] }
        set { changeExtras { $0.associations = newValue } }
    }

    /// The aggregates of associated rows selected after the selection, in the order given.
    var annotations: [AnnotationPart] {
        get { extras?.parts.annotations ?? [] }
        set { changeExtras { $0.annotations = newValue } }
    }

    /// The filtered subqueries joined to the table (a search table's matches), in the order given.
    var sourceJoins: [SourceJoin] {
        get { extras?.parts.sourceJoins ?? [] }
        set { changeExtras { $0.sourceJoins = newValue } }
    }

    /// The conditions on aggregates given to `filter(_:)`.
    var aggregateFilters: [AggregateFormula] {
        get { extras?.parts.aggregateFilters ?? [] }
        set { changeExtras { $0.aggregateFilters = newValue } }
    }

    /// The conditions on aggregates given to `having(_:)`.
    var aggregateHavings: [AggregateFormula] {
        get { extras?.parts.aggregateHavings ?? [] }
        set { changeExtras { $0.aggregateHavings = newValue } }
    }

    /// Whether the request's ordering is reversed (``reversed()``).
    var isReversed: Bool {
        get { extras?.parts.isReversed ?? false }
        set { changeExtras { $0.isReversed = newValue } }
    }

    /// The primary-key values given to `filter(key:)` and `filter(keys:)`.
    var keyFilters: [KeyFilter] {
        get { extras?.parts.keyFilters ?? [] }
        set { changeExtras { $0.keyFilters = newValue } }
    }

    /// Whether the request has key filters, which a connection checks before it runs the request.
    var hasKeyFilters: Bool {
        extras.map { !$0.parts.keyFilters.isEmpty } ?? false
    }
}
