/// The text of the last plain request a record type's `fetchOne` ran on a connection, with what it was
/// built from, so that the same request made again (in a loop, with new values) runs without building
/// its SQL again.
///
/// A plain request (no association, annotation or joined source) is SQL text around its fragments
/// (selection, conditions, groupings, `HAVING` conditions, orderings) with its limit and offset
/// written out: see ``QueryRequest/statement(keys:)``. Its text therefore depends on nothing but the
/// texts of those fragments, how many of each there are, whether it is distinct, and its limit and
/// offset; the table is the record type's own, whose state holds the memo. The memo compares all of
/// them in full, by their bytes (as SQLite reads them), so it never gives another request's text; the
/// values are bound from the request's own fragments (``PlainRequest``), in the order of their
/// placeholders.
/// Kept on the record type's state (``RecordTypeState/attachment(_:)``), used on the connection's
/// thread only. Measured with callgrind (`fetchOne(request)`, 100,000 calls): building the text costs about 6,000
/// instructions a call, the comparison under 200.
final class RequestMemo {
    /// What a request's text is built from, besides its fragments' texts.
    struct Shape: Equatable {
        var isDistinct: Bool
        var hasSelection: Bool
        var conditions: Int
        var groupings: Int
        var havingConditions: Int
        var orderings: Int
        var limit: Int?
        var offset: Int?
    }

    private var shape: Shape?
    /// The fragments' texts, in the order of ``PlainRequest/forEachFragment(_:_:_:_:)``.
    private var fragments: [SQLText] = []
    /// Whether every fragment's text is ASCII (see ``ExactText/same(_:knownIsASCII:_:)``).
    private var fragmentsAreASCII = true
    private var text = ""

    /// The text kept for a plain request of these parts (see ``PlainRequest``) and `shape`, when it
    /// was built from the same parts; nil otherwise.
    func text(_ conditions: ConditionList, _ extras: RequestExtras?, _ orderings: [SQL], shape: Shape) -> String? {
        guard let kept = self.shape, kept == shape else { return nil }
        var index = 0
        var same = true
        PlainRequest.forEachFragment(conditions, extras, orderings) { fragment in
            same = same && SQLText.same(fragments[index], knownIsASCII: fragmentsAreASCII, fragment.storage)
            index += 1
        }
        return same ? text : nil
    }

    /// Keeps `text`, built for a plain request of these parts and `shape`.
    func keep(
        _ text: String, _ conditions: ConditionList, _ extras: RequestExtras?, _ orderings: [SQL], shape: Shape
    ) {
        var texts: [SQLText] = []
        PlainRequest.forEachFragment(conditions, extras, orderings) { texts.append($0.storage) }
        self.shape = shape
        self.fragments = texts
        self.fragmentsAreASCII = texts.allSatisfy { ExactText.isASCII($0.string) }
        self.text = text
    }
}
