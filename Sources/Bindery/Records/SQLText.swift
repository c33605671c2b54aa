/// The text of an ``SQL`` value, left where the compiler put it while it is one string literal.
///
/// Most conditions an app writes are one literal with at most one value after it (`"id = \(id)"`,
/// `"email = \(email)"`, `"active = 1"`). Such a text stays a `StaticString`, the `?` of its value
/// not written: a condition call whose statement text is kept for the same condition
/// (``WrappingMemo``, ``RequestMemo``) then builds no `String` for it, compares the literal's bytes
/// and releases nothing. Anything written after that makes the text a `String` (``append(_:reserving:)``),
/// as does reading it whole (``string``).
///
/// Safety: this is the one place of ``SQL`` that touches a literal's bytes through pointers, and it
/// only reads them. `withUTF8Buffer` lends them for the closure it runs, which keeps no pointer; the
/// bytes of a `StaticString` with a pointer representation (the only kind `.literal` holds, see
/// ``init(literal:)``) are static, so they neither move nor change while the process runs.
/// `utf8Start` is compared, never read through: the same start and the same count are the same
/// bytes. Measured on `fetchOne(_:where:)` (callgrind, 595.26M): reading the literal through
/// `description` instead, a `String`, costs +17.3% (697.96M); the bytes compared without the
/// address first, +3.4% (615.56M).
///
/// A built text holds the placeholders that pad its lists (``SQL/ListPad``, offsets into it), which only
/// a built text can have: kept beside the `String` rather than in an array of ``SQL`` itself, they cost
/// a literal condition nothing, where an empty array of its own was one more reference to retain and
/// release with each copy of an ``SQL`` (callgrind, issue 39: some 18 instructions a condition call).
enum SQLText: Sendable {
    /// A `String`: the text once it is more than one literal and a placeholder, with the placeholders
    /// that pad its lists, in the order they were written.
    case built(String, pads: [SQL.ListPad])
    /// One literal with a pointer representation, then a `?` when `placeholder`.
    case literal(StaticString, placeholder: Bool)

    /// `literal` as the text, kept as it is (a literal made of one Unicode scalar, which has no UTF-8
    /// bytes in memory, is copied into a `String`).
    init(literal: StaticString) {
        self =
            literal.hasPointerRepresentation
            ? .literal(literal, placeholder: false) : .built(literal.description, pads: [])
    }

    /// The whole text.
    var string: String {
        switch self {
        case .built(let string, _): return string
        case .literal(let literal, let placeholder): return Self.string(literal, placeholder: placeholder, capacity: 0)
        }
    }

    /// The bytes of `literal`, then a `?` when `placeholder`, in one `String` with room for `capacity`
    /// bytes.
    private static func string(_ literal: StaticString, placeholder: Bool, capacity: Int) -> String {
        var string = ""
        if capacity > 15 {
            string.reserveCapacity(capacity)
        }
        string += literal.description
        if placeholder {
            string += "?"
        }
        return string
    }

    /// The number of UTF-8 bytes of the text.
    var utf8Count: Int {
        switch self {
        case .built(let string, _): return string.utf8.count
        case .literal(let literal, let placeholder): return literal.utf8CodeUnitCount + (placeholder ? 1 : 0)
        }
    }

    /// Whether the text is empty.
    var isEmpty: Bool { utf8Count == 0 }

    /// What `body` says of the literal's bytes when the text is one literal and nothing after it (what
    /// a value interpolated now would follow); nil otherwise.
    func withLoneLiteral<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard case .literal(let literal, placeholder: false) = self else { return nil }
        return literal.withUTF8Buffer(body)
    }

    /// Writes the `?` of a value after the text, in place when it is a lone literal
    /// (``withLoneLiteral(_:)`` not nil).
    mutating func appendPlaceholder(reserving capacity: Int) {
        if case .literal(let literal, placeholder: false) = self {
            self = .literal(literal, placeholder: true)
        } else {
            append("?", reserving: capacity)
        }
    }

    /// Appends `piece`, making the text a `String` with room for `capacity` bytes first when it is
    /// still a literal.
    mutating func append(_ piece: String, reserving capacity: Int) {
        var string: String
        var pads: [SQL.ListPad] = []
        switch self {
        case .built(let built, let builtPads):
            string = built
            pads = builtPads
            // Not held twice while appended to, so that its storage is unique.
            self = .built("", pads: [])
        case .literal(let literal, let placeholder):
            string = Self.string(literal, placeholder: placeholder, capacity: capacity)
        }
        string += piece
        self = .built(string, pads: pads)
    }

    /// Makes the text a `String` with room for `capacity` bytes, if it is a literal: before it is read
    /// and written to more than once.
    mutating func build(reserving capacity: Int) {
        if case .literal(let literal, let placeholder) = self {
            self = .built(Self.string(literal, placeholder: placeholder, capacity: capacity), pads: [])
        }
    }

    /// The placeholders that pad the text's lists; none for a literal.
    var listPads: [SQL.ListPad] {
        guard case .built(_, let pads) = self else { return [] }
        return pads
    }

    /// Adds `pads` to the text's list pads, making it a `String` first when it is a literal.
    mutating func appendListPads(_ pads: [SQL.ListPad]) {
        guard !pads.isEmpty else { return }
        build(reserving: 0)
        guard case .built(let string, var kept) = self else { return }
        // Not held twice while appended to.
        self = .built("", pads: [])
        kept += pads
        self = .built(string, pads: kept)
    }

    /// Appends the bytes of `piece`, as ``append(_:reserving:)`` appends a `String`; the first piece
    /// after the empty literal is kept as a literal.
    mutating func append(_ piece: StaticString, reserving capacity: Int) {
        guard piece.utf8CodeUnitCount > 0 else { return }
        if case .literal(let literal, placeholder: false) = self, literal.utf8CodeUnitCount == 0 {
            // The first piece of an interpolation, which starts from the empty literal.
            self = SQLText(literal: piece)
            return
        }
        append(piece.description, reserving: capacity)
    }

    /// Whether `other` holds the bytes of `known`, whose text's being ASCII is known
    /// (``ExactText/isASCII(_:)``): two literals are compared by their bytes, without a `String`.
    static func same(_ known: SQLText, knownIsASCII: Bool, _ other: SQLText) -> Bool {
        if case .literal(let knownLiteral, let knownPlaceholder) = known,
            case .literal(let otherLiteral, let otherPlaceholder) = other
        {
            guard knownPlaceholder == otherPlaceholder,
                knownLiteral.utf8CodeUnitCount == otherLiteral.utf8CodeUnitCount
            else { return false }
            // The same literal (the same bytes in the same place, which never change) or equal bytes.
            // (`.literal` holds pointer representations only, whose `utf8Start` is the bytes.)
            return knownLiteral.utf8Start == otherLiteral.utf8Start
                || knownLiteral.withUTF8Buffer { knownBytes in
                    otherLiteral.withUTF8Buffer { knownBytes.elementsEqual($0) }
                }
        }
        if case .built(let knownString, _) = known, case .built(let otherString, _) = other {
            return ExactText.same(knownString, knownIsASCII: knownIsASCII, otherString)
        }
        return ExactText.same(known.string, knownIsASCII: knownIsASCII, other.string)
    }
}
