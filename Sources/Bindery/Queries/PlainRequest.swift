/// A plain request (no association, annotation, joined source, condition on aggregates, reversal or
/// key filter): SQL text around its fragments (selection, conditions, groupings, `HAVING`
/// conditions, orderings), whose values its statement binds in that order. Its parts are its conditions,
/// its orderings and its extras (``RequestExtras``), which hold the selection, groupings and `HAVING`
/// conditions.
///
/// Its parts are read where the request holds them, passed as they are to functions that are not
/// generic over the record type: a struct holding copies of them, made for each call, cost the
/// copies and their release (callgrind, the bench's `fetchOne(request)`, 100,000 calls: about 280
/// instructions a call), and code generic over the record type, reading the request through methods
/// that are not specialized, looked up the request type's metadata on each call.
enum PlainRequest {
    /// Whether a request with `extras` is plain, its other parts set aside.
    static func isPlain(_ extras: RequestExtras?) -> Bool {
        extras?.allowsPlainRequest ?? true
    }

    /// The shape of the text of a request of these parts, besides its fragments' texts.
    static func shape(
        _ conditions: ConditionList, _ extras: RequestExtras?, _ orderings: [SQL], isDistinct: Bool, limit: Int?,
        offset: Int?
    ) -> RequestMemo.Shape {
        // Each part read where the extras hold it, not the parts copied (each of their arrays retained).
        RequestMemo.Shape(
            isDistinct: isDistinct, hasSelection: extras?.parts.selection != nil,
            conditions: conditions.count, groupings: extras?.parts.groupings.count ?? 0,
            havingConditions: extras?.parts.havingConditions.count ?? 0, orderings: orderings.count, limit: limit,
            offset: offset)
    }

    /// Whether a fragment has a value that binds itself (``SQL/hasSpecialValues``).
    static func hasSpecialValues(
        _ conditions: ConditionList, _ extras: RequestExtras?, _ orderings: [SQL]
    ) -> Bool {
        var special = false
        forEachFragment(conditions, extras, orderings) { special = special || $0.hasSpecialValues }
        return special
    }

    /// Calls `body` with each fragment whose values the request's statement binds, in the order of
    /// their placeholders (see ``QueryRequest/statement(keys:)``): selection, conditions, groupings,
    /// `HAVING` conditions, orderings.
    static func forEachFragment(
        _ conditions: ConditionList, _ extras: RequestExtras?, _ orderings: [SQL], _ body: (SQL) throws -> Void
    ) rethrows {
        if let selection = extras?.parts.selection {
            try body(selection)
        }
        try conditions.forEach(body)
        if let extras {
            for fragment in extras.parts.groupings {
                try body(fragment)
            }
            for fragment in extras.parts.havingConditions {
                try body(fragment)
            }
        }
        for fragment in orderings {
            try body(fragment)
        }
    }

    /// Binds the fragments' values to `statement`, whose text is the request's, in order.
    static func bind(
        _ conditions: ConditionList, _ extras: RequestExtras?, _ orderings: [SQL], to statement: Statement,
        encoder: ValueEncoder
    ) throws {
        var count = 0
        forEachFragment(conditions, extras, orderings) { count += $0.valueCount }
        guard count == statement.parameterCount, statement.status.isClear else {
            // The statement's own error for a count that does not match (or a closed connection).
            return try statement.bind(
                arguments: arguments(conditions, extras, orderings, encoder: encoder))
        }
        var index: Int32 = 1
        try forEachFragment(conditions, extras, orderings) { fragment in
            try fragment.bindValues(to: statement, encoder: encoder, from: &index)
        }
    }

    /// The fragments' values, converted by `encoder`, in order.
    static func arguments(
        _ conditions: ConditionList, _ extras: RequestExtras?, _ orderings: [SQL], encoder: ValueEncoder
    ) throws -> [SQLiteValue] {
        var arguments: [SQLiteValue] = []
        try forEachFragment(conditions, extras, orderings) {
            arguments += try $0.arguments(encoder: encoder)
        }
        return arguments
    }
}
