/// What ``Connection/create(searchTable:on:columns:unindexed:tokenizer:content:weights:prefixes:columnSize:detail:keptInStep:ifNotExists:)``
/// is asked for: checked before anything is created, and written out as FTS5's statements.
struct SearchTableDeclaration {
    var name: String
    var table: String
    /// The indexed columns, then the unindexed ones: the search table's columns, in order.
    var columns: [String]
    var unindexed: [String]
    var tokenizer: SearchTokenizer
    var content: SearchContent
    var weights: [String: Double]
    var prefixes: [Int]
    var columnSize: Bool
    var detail: SearchDetail

    /// The search table's columns, in order: the indexed ones, then the unindexed ones.
    var allColumns: [String] { columns + unindexed }

    /// The longest prefix FTS5 indexes.
    static let maximumPrefixLength = 999

    /// Throws ``SearchTableError`` for a declaration FTS5 would refuse, read otherwise than given, or
    /// answer wrongly: no column, a column named twice, a weight for a column not indexed or not
    /// finite, a prefix length out of range, tokenizer characters FTS5 would not read as given, and
    /// a contentless table without column sizes or full detail (FTS5's `bm25` then ranks every row 0,
    /// or by wrong lengths).
    func check() throws {
        guard !columns.isEmpty else { throw SearchTableError.noColumns(searchTable: name) }
        var seen: Set<FoldedIdentifier> = []
        for column in allColumns where !seen.insert(FoldedIdentifier(column)).inserted {
            throw SearchTableError.duplicateColumn(searchTable: name, column: column)
        }
        for (column, weight) in weights.sorted(by: { $0.key < $1.key }) {
            guard columns.contains(where: { ExactText.same($0, column) }) else {
                throw SearchTableError.weightForUnindexedColumn(searchTable: name, column: column)
            }
            guard weight.isFinite else {
                throw SearchTableError.invalidWeight(searchTable: name, column: column, weight: weight)
            }
        }
        if let length = prefixes.first(where: { !(1...Self.maximumPrefixLength).contains($0) }) {
            throw SearchTableError.invalidOption(
                searchTable: name, option: "prefix",
                reason: "a prefix length is 1 to \(Self.maximumPrefixLength) characters, not \(length)")
        }
        try tokenizer.check(searchTable: name)
        if content == .contentless, !columnSize {
            throw SearchTableError.invalidOption(
                searchTable: name, option: "columnsize",
                reason: "a contentless search table without column sizes has no text to count words in, so FTS5 "
                    + "would rank its matches by wrong lengths; keep columnSize, or use external content")
        }
        if content == .contentless, detail != .full {
            throw SearchTableError.invalidOption(
                searchTable: name, option: "detail",
                reason: "a contentless search table with detail \(detail.rawValue) has no text to read positions "
                    + "from, so FTS5 would rank every match 0; keep detail .full, or use external content")
        }
    }

    /// The column of the content view of a keyed search table (``SearchRowKey``) that holds the
    /// rowid: `bindery_rowid`, with underscores added while it names a column of the search table.
    var contentRowidColumn: String {
        var column = "bindery_rowid"
        let taken = Set(allColumns.map(FoldedIdentifier.init))
        while taken.contains(FoldedIdentifier(column)) { column += "_" }
        return column
    }

    /// `CREATE VIRTUAL TABLE … USING fts5(…)`, with only the options that differ from FTS5's defaults
    /// besides `content` and `tokenize`; `keyed`, for a search table over a mapping of keys
    /// (``SearchRowKey``), whose external content is its view.
    func createStatement(keyed: Bool = false) throws -> String {
        let columnList =
            (columns.map(SQL.quote(identifier:)) + unindexed.map { SQL.quote(identifier: $0) + " UNINDEXED" })
            .joined(separator: ", ")
        var options: [String] = []
        switch content {
        case .external where keyed:
            options.append("content = \(try SQL.literal(.text(SearchRowKey.contentViewName(name))))")
            options.append("content_rowid = \(try SQL.literal(.text(contentRowidColumn)))")
        case .external: options.append("content = \(try SQL.literal(.text(table)))")
        case .contentless: options.append("content = ''")
        }
        options.append("tokenize = \(try SQL.literal(.text(tokenizer.option)))")
        if !prefixes.isEmpty {
            let lengths = Set(prefixes).sorted().map(String.init).joined(separator: " ")
            options.append("prefix = \(try SQL.literal(.text(lengths)))")
        }
        if !columnSize { options.append("columnsize = 0") }
        if detail != .full { options.append("detail = \(detail.rawValue)") }
        return "CREATE VIRTUAL TABLE \(SQL.quote(identifier: name)) USING fts5(\(columnList), "
            + options.joined(separator: ", ") + ")"
    }

    /// The `rank` the search table stores: `bm25` with a weight per column (1 when none is given);
    /// nil without weights.
    var rank: String? {
        guard !weights.isEmpty else { return nil }
        // By the column's bytes: `weights[column]` would give a column the weight of another whose name
        // differs from it only by Unicode normalization (two columns to SQLite).
        let weight = { (column: String) in weights.first { ExactText.same($0.key, column) }?.value ?? 1 }
        return "bm25(" + allColumns.map { String(weight($0)) }.joined(separator: ", ") + ")"
    }
}
