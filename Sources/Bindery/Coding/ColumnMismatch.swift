/// The first difference between the columns a hand-written encoding or decoding produces and the
/// columns its Codable counterpart produces (see ``ColumnEncodable`` and ``ColumnDecodable``).
struct ColumnMismatch {
    /// The column that differs.
    let column: String
    /// What differs, from the hand-written side: "column "b" is left out".
    let description: String

    /// The first difference between `expected` (from Codable) and `written` (by hand), both in slot
    /// order; nil when they agree. Columns are matched by their names' bytes, as the row encoder tells
    /// them apart (two names differing only by Unicode normalization are two columns).
    init?(expected: [(column: String, value: SQLiteValue)], written: [(column: String, value: SQLiteValue)]) {
        let writtenColumns = Set(written.map { ExactText($0.column) })
        if let missing = expected.first(where: { !writtenColumns.contains(ExactText($0.column)) }) {
            column = missing.column
            description = "column \"\(missing.column)\" is left out"
            return
        }
        let expectedValues = Dictionary(expected.map { (ExactText($0.column), $0.value) }, uniquingKeysWith: { $1 })
        for (name, value) in written {
            guard let wanted = expectedValues[ExactText(name)] else {
                column = name
                description = "column \"\(name)\" is extra"
                return
            }
            if wanted != value {
                column = name
                // Types only: the values are user data.
                description =
                    value.typeName == wanted.typeName
                    ? "column \"\(name)\" holds a different \(value.typeName)"
                    : "column \"\(name)\" holds \(value.typeName) instead of \(wanted.typeName)"
                return
            }
        }
        return nil
    }
}
