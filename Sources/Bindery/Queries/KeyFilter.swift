/// The primary-key values a request is filtered by (`QueryRequest.filter(key:)` and its
/// relatives), kept as given until a connection checks them against the record's key columns.
struct KeyFilter: Sendable {
    /// The keys: values of a single-column key, or dictionaries of a composite key's columns.
    enum Keys: Sendable {
        case single([any Encodable & Sendable])
        case composite([[String: any Encodable & Sendable]])
    }

    var keys: Keys

    /// The condition on the key columns of `table` (its primary key `primaryKey`), quoted as `alias`:
    /// `"t"."id" = ?`, `"t"."id" IN (?, ?)`, `("t"."a" = ? AND "t"."b" = ?) OR (…)`, or `0` (no row)
    /// for no key. `convert` gives the stored form of the value of each key column (by its index in
    /// the key), refusing a value whose type cannot match it.
    ///
    /// Composite keys past what one chain of ORs may hold (``longestChain``: SQLite refuses an expression
    /// tree more than 1,000 deep), or whose values pass a quarter of `parameterLimit` (the parameters of
    /// one statement, shared with the request's other values), go as one JSON array
    /// (``jsonCondition(_:columns:table:primaryKey:)``).
    ///
    /// Throws ``RecordError/compositeKey(table:key:)`` for single values of a composite key,
    /// ``RecordError/notKeyColumns(table:key:columns:)`` and ``RecordError/incompleteKey(table:key:missing:)``
    /// for dictionaries that do not name each key column once, as `find(_:key:)` does.
    func condition(
        table: String, primaryKey: [String], alias: String, parameterLimit: Int = .max,
        convert: (_ index: Int, _ value: any Encodable & Sendable) throws -> SQLiteValue
    ) throws -> SQL {
        let rows = try keyRows(table: table, primaryKey: primaryKey)
        let stored = try rows.map { row in try row.indices.map { try convert($0, row[$0]) } }
        guard !stored.isEmpty else { return SQL(text: "0") }
        let columns = primaryKey.map { alias + "." + SQL.quote(identifier: $0) }
        if columns.count == 1 {
            let values = stored.map { $0[0] }
            if values.count == 1 {
                return SQL(text: columns[0] + " = ?", values: [values[0]])
            }
            return "\(raw: columns[0]) IN \(list: values)"
        }
        if stored.count > Self.longestChain || stored.count * columns.count > parameterLimit / 4 {
            return try Self.jsonCondition(stored, columns: columns, table: table, primaryKey: primaryKey)
        }
        let test = columns.map { $0 + " = ?" }.joined(separator: " AND ")
        var sql = SQL(text: "")
        for (index, row) in stored.enumerated() {
            sql += SQL(text: (index == 0 ? "(" : " OR (") + test + ")", values: row)
        }
        return stored.count == 1 ? sql : SQL(text: "(") + sql + ")"
    }

    /// The most composite keys OR-ed as one chain: each OR is one level deeper in SQLite's expression
    /// tree, whose depth SQLite limits to 1,000 (the conditions around it count too). A tree of ORs
    /// balanced in halves would stay shallow, but SQLite plans thousands of OR terms in time that grows
    /// with the square of their number (minutes for 27,000 keys).
    static let longestChain = 400

    /// The condition for more composite keys than their values may take parameters (see
    /// ``condition(table:primaryKey:alias:parameterLimit:convert:)``). The keys go as one JSON array of
    /// arrays, as a long `\(list:)` is bound, read through `json_each`: `("t"."a", "t"."b") IN (SELECT
    /// +json_extract(value, '$[0]'), +json_extract(value, '$[1]') FROM json_each(?))`, which matches the
    /// rows the ORs match: each value keeps its storage class, and `+` leaves it without affinity, as a
    /// bound value is, so that `IN` compares it by the column's affinity and collation as `=` does.
    /// A BLOB, or text holding a NUL, which JSON cannot carry, throws `EncodingError.invalidValue`
    /// naming the key and the column.
    private static func jsonCondition(
        _ stored: [[SQLiteValue]], columns: [String], table: String, primaryKey: [String]
    ) throws -> SQL {
        var json = "["
        json.reserveCapacity(stored.count * (8 * columns.count + 3) + 2)
        for (index, row) in stored.enumerated() {
            json += index == 0 ? "[" : ",["
            for (position, value) in row.enumerated() {
                if position > 0 {
                    json += ","
                }
                if let unrepresentable = SQLJSONList.append(value, to: &json) {
                    let what =
                        unrepresentable == .blob ? "is stored as a BLOB" : "is text holding a NUL character"
                    throw EncodingError.invalidValue(
                        primaryKey[position],
                        .init(
                            codingPath: [IndexKey(String(index))],
                            debugDescription:
                                "the value of \(table).\(primaryKey[position]) in key \(index) of \(stored.count) "
                                + "\(what), which JSON cannot carry; so many keys are bound as one JSON array: "
                                + "filter by fewer keys at a time"))
                }
            }
            json += "]"
        }
        json += "]"
        let picks = columns.indices.map { "+json_extract(value, '$[\($0)]')" }.joined(separator: ", ")
        return SQL(
            text: "(" + columns.joined(separator: ", ") + ") IN (SELECT " + picks + " FROM json_each(?))",
            values: [json])
    }

    /// The value of each key column, in primary-key order, of each key.
    private func keyRows(table: String, primaryKey: [String]) throws -> [[any Encodable & Sendable]] {
        switch keys {
        case .single(let values):
            return try values.map { value in
                guard primaryKey.count == 1 else {
                    // A dictionary passed where the single form was chosen (a `[String: Int]` variable).
                    if let key = value as? [String: any Encodable & Sendable] {
                        return try Self.ordered(key, table: table, primaryKey: primaryKey)
                    }
                    throw RecordError.compositeKey(table: table, key: primaryKey)
                }
                return [value]
            }
        case .composite(let keys):
            return try keys.map { try Self.ordered($0, table: table, primaryKey: primaryKey) }
        }
    }

    /// The values of `key` in primary-key order, each key column named once and nothing else named.
    private static func ordered(_ key: [String: any Encodable & Sendable], table: String, primaryKey: [String])
        throws -> [any Encodable & Sendable]
    {
        let unknown = key.keys.filter { name in !primaryKey.contains { $0.equalsIdentifier(name) } }
        guard unknown.isEmpty else {
            throw RecordError.notKeyColumns(table: table, key: primaryKey, columns: unknown.sorted())
        }
        let missing = primaryKey.filter { column in !key.keys.contains { $0.equalsIdentifier(column) } }
        guard missing.isEmpty else {
            throw RecordError.incompleteKey(table: table, key: primaryKey, missing: missing)
        }
        guard key.count == primaryKey.count else {
            // A column named twice, in two spellings: the ones not spelt as the key are refused.
            let respelt = key.keys.filter { !primaryKey.contains($0) }
            throw RecordError.notKeyColumns(table: table, key: primaryKey, columns: respelt.sorted())
        }
        return try primaryKey.map { name in
            guard let value = key.first(where: { $0.key.equalsIdentifier(name) })?.value else {
                throw RecordError.incompleteKey(table: table, key: primaryKey, missing: [name])
            }
            return value
        }
    }
}
