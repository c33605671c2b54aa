/// A statement made of fixed text around a condition the caller wrote (`SELECT … WHERE ` condition),
/// which keeps the whole text it built last.
///
/// An app asks the same question many times with new values (`exists(Student.self, where: "email =
/// \(email)")` in a loop): the condition's text is then the same each time, and the statement's text
/// built for it last is used again instead of being built anew. That saves the copy of the three
/// texts (about 1,400 instructions a call, measured with callgrind), and the statement cache then
/// finds the statement by the identity of its text's storage, without comparing the text byte by
/// byte. The whole text depends on nothing but the prefix, the condition's text and the suffix, and
/// the memo compares the condition's text in full, by its bytes (a condition respelt in another
/// Unicode normalization is another statement to SQLite), so it never gives another statement's text.
struct WrappingMemo {
    /// The text before the condition.
    let prefix: String
    /// The text after the condition.
    let suffix: String
    /// The condition's text of the last call; nil before the first.
    private var lastCondition: SQLText?
    /// Whether ``lastCondition``'s text is ASCII.
    private var lastIsASCII = true
    /// The whole text built for ``lastCondition``.
    private var lastWhole = ""

    init(prefix: String, suffix: String = "") {
        self.prefix = prefix
        self.suffix = suffix
    }

    /// The text of `condition` with the prefix before it and the suffix after it: the statement to
    /// run, with `condition`'s values bound in order (the prefix and suffix have none).
    mutating func text(around condition: SQL) -> String {
        if let lastCondition, SQLText.same(lastCondition, knownIsASCII: lastIsASCII, condition.storage) {
            return lastWhole
        }
        let text = condition.text
        let whole = prefix + text + suffix
        lastCondition = condition.storage
        lastIsASCII = ExactText.isASCII(text)
        lastWhole = whole
        return whole
    }
}
