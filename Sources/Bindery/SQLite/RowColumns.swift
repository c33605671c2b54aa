/// The column names of a result, shared by all its rows, with a look-up that ignores ASCII case as
/// SQLite does (see ``FoldedIdentifier``) and knows which names appear more than once.
///
/// Built once per statement, never per row. A name that several columns share (`id` in
/// `SELECT loans.*, books.*`) is ``Match/ambiguous(_:)``: readers refuse it rather than pick one.
/// A nested value of a joined row looks its names up among the columns of its own scope, with a table
/// of those columns only (see `RowDecoder+Scopes.swift`).
final class RowColumns: Sendable, Hashable {
    /// What a name matches among the columns.
    enum Match: Equatable {
        /// Exactly one column, at this 0-based index.
        case column(Int)
        /// No column.
        case missing
        /// Several columns, at these 0-based indexes, in order.
        case ambiguous([Int])
    }

    let names: [String]
    /// The first column of each folded name.
    private let first: [FoldedIdentifier: Int]
    /// Every column of each folded name that several columns share.
    private let repeated: [FoldedIdentifier: [Int]]

    init(names: [String]) {
        self.names = names
        var first: [FoldedIdentifier: Int] = [:]
        var repeated: [FoldedIdentifier: [Int]] = [:]
        for (index, name) in names.enumerated() {
            let folded = FoldedIdentifier(name)
            if let earlier = first[folded] {
                repeated[folded, default: [earlier]].append(index)
            } else {
                first[folded] = index
            }
        }
        self.first = first
        self.repeated = repeated
    }

    /// The column or columns called `name`, ignoring ASCII case.
    func match(_ name: String) -> Match {
        let folded = FoldedIdentifier(name)
        guard let index = first[folded] else { return .missing }
        if let all = repeated[folded] { return .ambiguous(all) }
        return .column(index)
    }

    /// The first column called `name`, ignoring ASCII case, or nil.
    func index(of name: String) -> Int? {
        first[FoldedIdentifier(name)]
    }

    /// `column "id" appears 2 times in the row (positions 0 and 3); alias the columns or select only one`.
    static func ambiguity(_ name: String, positions: [Int]) -> String {
        let listed = positions.map(String.init)
        let joined =
            listed.count > 1
            ? listed.dropLast().joined(separator: ", ") + " and " + (listed.last ?? "") : listed.joined()
        return "column \"\(name)\" appears \(positions.count) times in the row (positions \(joined)); "
            + "alias the columns or select only one"
    }

    /// The same names, by their bytes (two columns whose names differ only by Unicode normalization
    /// are two columns to SQLite).
    static func == (lhs: RowColumns, rhs: RowColumns) -> Bool {
        lhs === rhs || lhs.names.elementsEqual(rhs.names, by: ExactText.same)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(names)
    }
}
