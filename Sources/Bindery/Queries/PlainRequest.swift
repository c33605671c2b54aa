/// The parts of a plain request (no association, annotation or joined source, and no value that binds
/// itself), taken out of its generic type once: what ``RequestMemo`` compares and what the request's
/// statement binds, read by non-generic code.
///
/// Read through the generic ``QueryRequest`` in code that is not specialized for the record type,
/// every pass over the fragments looked up the request type's metadata and copied each fragment
/// (callgrind, a request's `fetchOne` 100,000 times: about 2,400 instructions a call for four passes).
struct PlainRequest {
    let selection: SQL?
    let conditions: [SQL]
    let groupings: [SQL]
    let havingConditions: [SQL]
    let orderings: [SQL]
    /// What the request's text is built from besides its fragments' texts.
    let shape: RequestMemo.Shape
    /// How many values the fragments bind.
    let valueCount: Int

    /// The parts of `request`, run with `limit` and `offset`; nil when it is not plain.
    init?(_ request: borrowing QueryRequest<some Record>, limit: Int?, offset: Int?) {
        // The extras read once, from the stored field: a computed property of the generic request
        // would cost a look-up of its metadata here (see the private initializer).
        let extras = request.extras
        guard extras?.allowsPlainRequest ?? true else {
            return nil
        }
        self.init(
            selection: request.selection, conditions: request.conditions,
            groupings: extras?.parts.groupings ?? [], havingConditions: extras?.parts.havingConditions ?? [],
            orderings: request.orderings,
            isDistinct: request.isDistinct, limit: limit, offset: offset)
        guard valueCount >= 0 else { return nil }
    }

    /// The parts given; ``valueCount`` is -1 when a fragment has a value that binds itself.
    ///
    /// The shape is made here, from the parts, rather than by a method of the generic request: calling
    /// one from code not specialized for the record type looks up the request type's metadata
    /// (callgrind, a request's `fetchOne` 100,000 times: about 330 instructions a call).
    private init(
        selection: SQL?, conditions: [SQL], groupings: [SQL], havingConditions: [SQL], orderings: [SQL],
        isDistinct: Bool, limit: Int?, offset: Int?
    ) {
        self.selection = selection
        self.conditions = conditions
        self.groupings = groupings
        self.havingConditions = havingConditions
        self.orderings = orderings
        self.shape = RequestMemo.Shape(
            isDistinct: isDistinct, hasSelection: selection != nil, conditions: conditions.count,
            groupings: groupings.count, havingConditions: havingConditions.count, orderings: orderings.count,
            limit: limit, offset: offset)
        var count = 0
        var special = false
        Self.forEachFragment(selection, conditions, groupings, havingConditions, orderings) { fragment in
            count += fragment.valueCount
            special = special || fragment.hasSpecialValues
        }
        valueCount = special ? -1 : count
    }

    /// Calls `body` with each fragment whose values the request's statement binds, in the order of
    /// their placeholders (see ``QueryRequest/statement(keys:)``): selection, conditions, groupings,
    /// `HAVING` conditions, orderings.
    func forEachFragment(_ body: (SQL) throws -> Void) rethrows {
        try Self.forEachFragment(selection, conditions, groupings, havingConditions, orderings, body)
    }

    private static func forEachFragment(
        _ selection: SQL?, _ conditions: [SQL], _ groupings: [SQL], _ havingConditions: [SQL], _ orderings: [SQL],
        _ body: (SQL) throws -> Void
    ) rethrows {
        if let selection {
            try body(selection)
        }
        // Four loops rather than one over an array of the four, which would be allocated for each call.
        for fragment in conditions {
            try body(fragment)
        }
        for fragment in groupings {
            try body(fragment)
        }
        for fragment in havingConditions {
            try body(fragment)
        }
        for fragment in orderings {
            try body(fragment)
        }
    }

    /// Binds the fragments' values to `statement`, whose text is the request's, in order.
    func bind(to statement: Statement, encoder: ValueEncoder) throws {
        guard valueCount == statement.parameterCount, statement.status.isClear else {
            // The statement's own error for a count that does not match (or a closed connection).
            return try statement.bind(arguments: arguments(encoder: encoder))
        }
        var index: Int32 = 1
        try forEachFragment { fragment in try fragment.bindValues(to: statement, encoder: encoder, from: &index) }
    }

    /// The fragments' values, converted by `encoder`, in order.
    func arguments(encoder: ValueEncoder) throws -> [SQLiteValue] {
        var arguments: [SQLiteValue] = []
        try forEachFragment { fragment in arguments += try fragment.arguments(encoder: encoder) }
        return arguments
    }
}
