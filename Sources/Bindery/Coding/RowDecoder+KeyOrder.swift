import CSQLite
import Foundation

/// Which column each coding key reads: learned on the first row in the order the keys are asked for,
/// then confirmed with one string comparison a key; the errors of missing and ambiguous columns.
extension RowDecoder {
    // MARK: Column look-up

    /// The column that the coding key `key` reads: ``missingColumn`` when the row has none,
    /// ``ambiguousColumn`` when several columns have its name (both negative).
    @inline(__always)
    func column(for key: String) -> Int32 {
        let position = order.value.position
        if position < order.value.keys.count && order.value.keys[position] == key
            && (!order.value.hasEquivalentKeys || order.value.keys[position].utf8.elementsEqual(key.utf8))
        {
            order.value.position = position + 1
            return order.value.columns[position]
        }
        return slowColumn(for: key)
    }

    /// Keys are told apart by their bytes, as SQLite tells column names apart: ``lookup`` holds the
    /// first of two keys that `String` equality calls equal, and the other is found among ``KeyOrder/keys``.
    private func slowColumn(for key: String) -> Int32 {
        if let known = lookup[key] {
            if order.value.keys[known.position].utf8.elementsEqual(key.utf8) {
                order.value.position = known.position + 1
                return known.column
            }
            if let position = order.value.keys.firstIndex(where: { $0.utf8.elementsEqual(key.utf8) }) {
                order.value.position = position + 1
                return order.value.columns[position]
            }
            order.value.hasEquivalentKeys = true
        }
        let column = columnIndex(forKey: key)
        order.value.keys.append(key)
        order.value.columns.append(column)
        let position = order.value.keys.count - 1
        if lookup[key] == nil {
            lookup[key] = (column, position)
        }
        order.value.position = position + 1
        return column
    }

    /// The columns that the keys looked up so far read (each once, whatever the number of keys).
    var columnsRead: Set<Int32> {
        Set(order.value.columns.lazy.filter { $0 >= 0 })
    }

    /// What ``column(for:)`` returns for a key that matches no column.
    static let missingColumn: Int32 = -1
    /// The largest value ``column(for:)`` returns for a key that matches several columns: the first
    /// such key of the statement gets -3, the next -4, and so on, so that the value alone names the
    /// key (see ``ambiguity(_:)``). Reading such a key throws.
    static let ambiguousColumn: Int32 = -3

    /// Whether a look-up result says that several columns match the key.
    @inline(__always)
    static func isAmbiguous(_ column: Int32) -> Bool { column <= ambiguousColumn }

    /// The statement's column names, read once (on the first key that is not yet known).
    var rowColumns: RowColumns {
        if let columns = columnTable { return columns }
        let columns = RowColumns(names: columnNames)
        columnTable = columns
        return columns
    }

    /// The index of the column that `key` names, ignoring ASCII case as SQLite does;
    /// ``missingColumn`` if none; if several, a value at most ``ambiguousColumn`` that names the key.
    private func columnIndex(forKey key: String) -> Int32 {
        let name = options.columnName(forKey: key)
        switch rowColumns.match(name) {
        case .column(let index):
            return Int32(index) + scope.lowerBound
        case .missing:
            return Self.missingColumn
        case .ambiguous(let positions):
            ambiguousKeys.append((key, name, positions.map { $0 + Int(scope.lowerBound) }))
            return Self.ambiguousColumn - Int32(ambiguousKeys.count - 1)
        }
    }

    /// The error for reading a key whose look-up gave `column`, a value at most ``ambiguousColumn``:
    /// `column "id" appears 2 times in the row (positions 0 and 3); alias the columns or select only one`.
    @inline(never)
    func ambiguity(_ column: Int32) -> DecodingError {
        let index = Int(Self.ambiguousColumn - column)
        guard ambiguousKeys.indices.contains(index) else {
            return .dataCorrupted(
                .init(codingPath: [], debugDescription: "a column name appears several times in the row"))
        }
        let (key, name, positions) = ambiguousKeys[index]
        return .dataCorrupted(
            .init(codingPath: [IndexKey(key)], debugDescription: RowColumns.ambiguity(name, positions: positions)))
    }

    /// The name of column `index`.
    func columnName(_ index: Int32) -> String {
        guard let name = sqlite3_column_name(handle, index) else { return "" }
        return String(cString: name)
    }

    /// Every column name of the part of the row the decoder reads, without the scope's prefix, for
    /// error messages and look-ups.
    var columnNames: [String] {
        prefixLength == 0 ? scope.map(columnName) : scope.map { String(columnName($0).dropFirst(prefixLength)) }
    }
}
