/// How much an FTS5 search table records of where each word appears (FTS5's `detail` option): less
/// makes a smaller index, and fewer kinds of query.
public enum SearchDetail: String, Sendable, Hashable {
    /// Every position of every word: all queries work (the default).
    case full
    /// The columns a word is in, not its positions: phrases (``SearchPattern/phrase(_:)``,
    /// ``SearchPattern/phraseAtStart(_:completingLastTerm:)``, a term the tokenizer cuts in several
    /// words), `NEAR` and `^` throw ``SQLiteError`` when the query runs.
    case column
    /// Only the rows a word is in: as ``column``, and column filters (`title: swift`) throw too.
    case none
}
