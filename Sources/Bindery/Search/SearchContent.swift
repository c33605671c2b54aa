/// Where a search table finds the text it returns.
public enum SearchContent: Sendable, Hashable {
    /// The search table reads its columns from the indexed table (FTS5 external content): the text
    /// is stored once, `snippet` and `highlight` work, and ``Connection/rebuild(searchTable:)`` can
    /// re-index from the table.
    case external
    /// The search table keeps only its index (FTS5 contentless): the smallest file, but its columns
    /// read as NULL, so `snippet` and `highlight` return NULL and a rebuild is impossible.
    case contentless
}
