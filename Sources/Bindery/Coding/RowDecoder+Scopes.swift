import CSQLite

/// Nested values of a joined row: a property whose key names no column, of a type that decodes by
/// column name, reads its own part of the row (its scope) through a decoder of its own.
///
/// The scope of each property is found once per statement (given with the query, or by the automatic
/// rule) and its decoder kept; per row, a nested value costs a string comparison to find that decoder,
/// a NULL check of its first column, and the decoding of its fields, as a flat value's would.
extension RowDecoder {
    /// The columns of a nested value that a scope given with the query names: its whole span, the scopes
    /// nested in it and how many columns these take at the end of the span.
    struct ExplicitSpan {
        let span: Range<Int32>
        let nested: [RowScope]
        let nestedWidth: Int32
        let presence: Bool
    }

    /// The decoder of one nested value, or nil when the key is no scope (it is then missing).
    struct ScopedChild {
        let key: String
        let typeID: ObjectIdentifier
        let decoder: RowDecoder?
    }

    /// Decodes the non-optional nested value of `key`, whose look-up gave `column` (negative).
    @inline(never)
    func decodeScoped<T: Decodable, Key: CodingKey>(_ type: T.Type, key: Key, column: Int32) throws -> T {
        if column == Self.missingColumn, let source = prefetchedSource(key) {
            return try prefetched(T.self, from: source, key: key)
        }
        guard column == Self.missingColumn, let child = try scopedChild(key.stringValue, for: T.self) else {
            throw unresolved(key, column: column)
        }
        if isAbsent(child) {
            throw RowScopeError.allNull(property: key.stringValue, type: "\(T.self)")
        }
        return try decode(T.self, in: child, key: key)
    }

    /// Decodes the optional nested value of `key`, which names no column: nil when its columns are all
    /// NULL (a LEFT JOIN without a match), or when the key is no scope (a missing optional column).
    @inline(never)
    func decodeScopedIfPresent<T: Decodable, Key: CodingKey>(_ type: T.Type, key: Key) throws -> T? {
        if let source = prefetchedSource(key) {
            return try prefetched(T.self, from: source, key: key)
        }
        guard let child = try scopedChild(key.stringValue, for: T.self) else {
            // No column and no scope: a value read from one column (a `Date?`, a raw-value enum …) is
            // the record's own column, absent from the row. Nil would say NULL, which nothing read.
            if RowDecoder.readsOneColumn(T.self) { throw missingColumn(key) }
            return nil
        }
        guard !isAbsent(child) else { return nil }
        return try decode(T.self, in: child, key: key)
    }

    /// The values fetched before the row for `key` (a request's to-many association), or nil when the
    /// key has none. Not generic, and cheap when nothing was fetched: no `Optional<T>` to look up on
    /// the path of every nested value.
    @inline(__always)
    private func prefetchedSource<Key: CodingKey>(_ key: Key) -> (any PrefetchedValues)? {
        guard let scoping, !scoping.prefetched.isEmpty else { return nil }
        return scoping.prefetched[key.stringValue]
    }

    /// The value of `key` that `source` fetched for the current row; throws when it is not a `T`. An
    /// error decoding the fetched records (those of a to-many step decode when the first row asks for
    /// them) names `key` first in its path, as a nested value's does.
    @inline(never)
    private func prefetched<T, Key: CodingKey>(_ type: T.Type, from source: any PrefetchedValues, key: Key) throws -> T
    {
        let fetched: T?
        do {
            fetched = try source.value(T.self, row: handle)
        } catch {
            throw Self.nested(error, in: key)
        }
        guard let value = fetched else {
            throw DecodingError.typeMismatch(
                T.self,
                .init(
                    codingPath: [key],
                    debugDescription:
                        "the association \"\(key.stringValue)\" gives \(source), which a property of type \(T.self) cannot"
                        + " hold"))
        }
        return value
    }

    /// Whether the nested value `child` reads is missing from the current row: its presence column is
    /// NULL, or, without one, all its columns are.
    private func isAbsent(_ child: RowDecoder) -> Bool {
        guard let column = child.presenceColumn else { return isNull(scope: child.scope) }
        return isNull(scope: column..<column + 1)
    }

    /// Whether every column of `scope` is NULL in the current row.
    private func isNull(scope: Range<Int32>) -> Bool {
        for column in scope {
            guard let value = values.value(column), sqlite3_value_type(value) == SQLITE_NULL else {
                return false
            }
        }
        return true
    }

    private func decode<T: Decodable, Key: CodingKey>(_ type: T.Type, in child: RowDecoder, key: Key) throws -> T {
        // The child starts with the row's values as this decoder knows them: no second look-up of the
        // first value (it was found by the NULL check).
        child.values.copy(from: values)
        guard child.scopeWidthChecked else {
            let value: T
            do {
                value = try child.decodeRow(T.self)
            } catch {
                throw Self.nested(error, in: key)
            }
            try checkScopeWidth(of: child, key: key.stringValue, type: T.self)
            return value
        }
        // Returned as decoded, not held in a local first (which costs a copy of a struct of records).
        do {
            return try child.decodeRow(T.self)
        } catch {
            throw Self.nested(error, in: key)
        }
    }

    /// `error`, thrown inside the nested value `key`, as its decoder throws it: a coding path or a
    /// property path that starts with `key` (an error about the nested value itself named as it is).
    private static func nested(_ error: any Error, in key: some CodingKey) -> any Error {
        switch error {
        case let error as DecodingError:
            return error.nested(in: key)
        case RowScopeError.notKeyed(let property, _) where property == key.stringValue:
            return error
        case let error as RowScopeError:
            return error.nested(in: key.stringValue)
        default:
            return error
        }
    }

    /// Checks, once, that a scope given with the query as ``RowScope/columns(_:into:)`` is as wide as
    /// the columns its value read on its first row: a scope one column short would leave its value's
    /// last column to the next scope, which would read it as its own or ignore it, and nothing would
    /// throw. Throws ``RowScopeError/invalidScope(property:reason:)`` naming the scope.
    private func checkScopeWidth<T>(of child: RowDecoder, key: String, type: T.Type) throws {
        child.scopeWidthChecked = true
        guard let scopes = scoping?.explicit,
            let scope = scopes.first(where: { $0.property == key }), case .columns(let count) = scope.extent
        else { return }
        let read = child.columnsRead
        // A presence column (an association's, added by Bindery) is read by no property, nor counted.
        let width = count - (scope.presence ? 1 : 0)
        guard read.count != width else { return }
        let names = read.sorted().map { "\"\(columnName($0))\"" }.joined(separator: ", ")
        throw RowScopeError.invalidScope(
            property: key,
            reason:
                "has \(width) column\(width == 1 ? "" : "s"), but \(T.self) reads \(read.count) "
                + "(\(names)): a .columns scope must hold exactly the columns its value reads")
    }

    /// The decoder of the nested value `key` of type `T`, found once and kept; nil when `key` is no scope.
    private func scopedChild<T>(_ key: String, for type: T.Type) throws -> RowDecoder? {
        let typeID = ObjectIdentifier(T.self)
        if scopedPosition >= scopedChildren.count {
            scopedPosition = 0
        }
        if scopedPosition < scopedChildren.count, scopedChildren[scopedPosition].key == key,
            scopedChildren[scopedPosition].typeID == typeID
        {
            scopedPosition += 1
            return scopedChildren[scopedPosition - 1].decoder
        }
        if let index = scopedChildren.firstIndex(where: { $0.key == key && $0.typeID == typeID }) {
            scopedPosition = index + 1
            return scopedChildren[index].decoder
        }
        let child = try makeScopedChild(key, for: T.self).map {
            let child = RowDecoder(
                scopeOf: self, name: key, type: T.self, scope: $0.span, prefixLength: $0.prefixLength,
                scoping: $0.scoping)
            child.presenceColumn = $0.presence
            return child
        }
        scopedChildren.append(ScopedChild(key: key, typeID: typeID, decoder: child))
        scopedPosition = scopedChildren.count
        return child
    }

    /// The columns of the nested value `key` of type `T`, the length of the prefix of their names
    /// (`manager.`), and the scoping of the values nested in it when its scope says (nil: the automatic
    /// rule); nil when `key` is no scope.
    private func makeScopedChild<T>(_ key: String, for type: T.Type) throws -> (
        span: Range<Int32>, prefixLength: Int, scoping: RowScoping?, presence: Int32?
    )? {
        guard let scoping else { return nil }
        // A struct decoding by column name: by init(from:) or by init(columns:).
        let isKeyed: Bool
        switch Self.topLevelKind(of: T.self) {
        case .record, .columns: isKeyed = true
        default: isKeyed = false
        }
        if let scopes = scoping.explicit {
            let spans = try explicitSpans ?? resolve(scopes, scoping)
            explicitSpans = spans
            if scoping.trailing != nil, spans[key] == nil {
                // A request's row: the other nested values read the columns before its scopes.
                return try unscopedSpan(key, for: T.self, isKeyed: isKeyed, scoping).map {
                    ($0.span, $0.prefixLength, nil, nil)
                }
            }
            guard let given = spans[key] else {
                // Given scopes describe the whole split: a nested value they leave out (a misspelt
                // scope, say) is an error, never a nil taken for a LEFT JOIN miss.
                if isKeyed { throw RowScopeError.missingColumns(property: key, type: "\(T.self)", table: nil) }
                return nil
            }
            guard isKeyed else { throw RowScopeError.notKeyed(property: key, type: "\(T.self)") }
            // Its own columns come first (the last of them its presence column, if it has one), then
            // those of the values nested in it.
            var own = given.span.lowerBound..<given.span.upperBound - given.nestedWidth
            var presence: Int32?
            if given.presence, !own.isEmpty {
                presence = own.upperBound - 1
                own = own.lowerBound..<own.upperBound - 1
            }
            let nested = scoping.nested(key, given.nested, width: given.nestedWidth, end: given.span.upperBound)
            return (own, 0, nested, presence)
        }
        return try unscopedSpan(key, for: T.self, isKeyed: isKeyed, scoping).map {
            ($0.span, $0.prefixLength, nil, nil)
        }
    }

    /// The columns of the nested value `key` that no given scope names: by its prefix, or by the
    /// automatic rule.
    private func unscopedSpan<T>(_ key: String, for type: T.Type, isKeyed: Bool, _ scoping: RowScoping) throws -> (
        span: Range<Int32>, prefixLength: Int
    )? {
        guard isKeyed else { return nil }
        if let prefixed = try prefixedSpan(key) {
            return prefixed
        }
        guard let table = scoping.tableName(T.self) else { return nil }
        return (try automaticSpan(key, table: table, type: T.self), 0)
    }

    /// The columns whose names start with the key's column name and a dot (`manager.FirstName`), which
    /// must be side by side; nil when there are none.
    private func prefixedSpan(_ key: String) throws -> (span: Range<Int32>, prefixLength: Int)? {
        let prefix = options.columnName(forKey: key) + "."
        let folded = FoldedIdentifier(prefix).bytes
        let matching = scope.filter { FoldedIdentifier(columnName($0)).bytes.starts(with: folded) }
        guard let first = matching.first, let last = matching.last else { return nil }
        guard matching.count == Int(last - first) + 1 else {
            throw RowScopeError.invalidScope(
                property: key, reason: "has columns named \"\(prefix)…\" that are not side by side in the row")
        }
        return (first..<last + 1, prefix.count)
    }

    /// The automatic rule: the one run of consecutive columns whose origin table is `table`, which no
    /// other nested value reads and in which no column name appears twice.
    private func automaticSpan<T>(_ key: String, table: String, type: T.Type) throws -> Range<Int32> {
        let folded = FoldedIdentifier(table)
        var runs: [Range<Int32>] = []
        var column = scope.lowerBound
        while column < scope.upperBound {
            guard originTable(column).map(FoldedIdentifier.init) == folded else {
                column += 1
                continue
            }
            let start = column
            while column < scope.upperBound && originTable(column).map(FoldedIdentifier.init) == folded {
                column += 1
            }
            runs.append(start..<column)
        }
        guard let run = runs.first else {
            throw RowScopeError.missingColumns(property: key, type: "\(T.self)", table: table)
        }
        guard runs.count == 1, Set(run.map { FoldedIdentifier(columnName($0)) }).count == run.count else {
            throw RowScopeError.ambiguousTable(property: key, table: table, other: nil)
        }
        if let other = scopedChildren.first(where: { $0.decoder?.scope.overlaps(run) == true }) {
            throw RowScopeError.ambiguousTable(property: key, table: table, other: other.key)
        }
        return run
    }

    /// The scopes given with the query, laid end to end from the first column, as column ranges by
    /// property; throws when they do not add up to the row.
    private func resolve(_ scopes: [RowScope], _ scoping: RowScoping) throws -> [String: ExplicitSpan] {
        var spans: [String: ExplicitSpan] = [:]
        // A request's scopes take the last columns of the row (or of the nested value's scope); a
        // query's, the whole row.
        let trailingEnd = scoping.trailingEnd ?? columnCount
        var start = scoping.trailing.map { trailingEnd - $0.scoped } ?? scope.lowerBound
        let end = scoping.trailing == nil ? scope.upperBound : trailingEnd
        for given in scopes {
            guard spans[given.property] == nil else {
                throw RowScopeError.invalidScope(property: given.property, reason: "is given twice")
            }
            let available = Int(end - start)
            let count: Int
            var tableColumns: [String] = []
            switch given.extent {
            case .columns(let wanted):
                guard wanted > 0 else {
                    throw RowScopeError.invalidScope(property: given.property, reason: "takes \(wanted) columns")
                }
                count = wanted
            case .table(let table):
                tableColumns = try scoping.tableColumns(table)
                guard !tableColumns.isEmpty else {
                    throw RowScopeError.unknownTable(property: given.property, table: table)
                }
                count = tableColumns.count
            }
            let nestedWidth = try given.nested.reduce(0) { $0 + (try Self.width(of: $1, scoping)) }
            guard count + nestedWidth <= available else {
                throw RowScopeError.scopeOverrunsRow(
                    property: given.property, wanted: count + nestedWidth, available: available)
            }
            if case .table(let table) = given.extent {
                try check(start, tableColumns, of: table, for: given.property)
            }
            let span = start..<start + Int32(count + nestedWidth)
            spans[given.property] = ExplicitSpan(
                span: span, nested: given.nested, nestedWidth: Int32(nestedWidth), presence: given.presence)
            start = span.upperBound
        }
        guard start == end else {
            throw RowScopeError.columnsLeftOver(columns: (start..<end).map(columnName))
        }
        return spans
    }

    /// How many columns `scope` takes with the scopes nested in it.
    private static func width(of scope: RowScope, _ scoping: RowScoping) throws -> Int {
        let own: Int
        switch scope.extent {
        case .columns(let count): own = count
        case .table(let table):
            own = try scoping.tableColumns(table).count
            guard own > 0 else { throw RowScopeError.unknownTable(property: scope.property, table: table) }
        }
        return try scope.nested.reduce(own) { $0 + (try width(of: $1, scoping)) }
    }

    /// Checks that the columns from `start` are `names`, in order, and come from `table` where SQLite
    /// can tell.
    private func check(_ start: Int32, _ names: [String], of table: String, for property: String) throws {
        let folded = FoldedIdentifier(table)
        for (offset, expected) in names.enumerated() {
            let column = start + Int32(offset)
            let found = columnName(column)
            let origin = originTable(column).map(FoldedIdentifier.init)
            guard FoldedIdentifier(found) == FoldedIdentifier(expected), origin == nil || origin == folded else {
                throw RowScopeError.tableMismatch(
                    property: property, table: table, position: Int(column), found: found, expected: expected)
            }
        }
    }

    /// The table column `column` comes from, when SQLite can tell (not for an expression).
    private func originTable(_ column: Int32) -> String? {
        sqlite3_column_table_name(handle, column).map { String(cString: $0) }
    }
}

extension DecodingError {
    /// The same error, its coding path starting with `key`: an error inside a nested value says which.
    func nested(in key: some CodingKey) -> DecodingError {
        switch self {
        case .typeMismatch(let type, let context):
            return .typeMismatch(type, context.nested(in: key))
        case .valueNotFound(let type, let context):
            return .valueNotFound(type, context.nested(in: key))
        case .keyNotFound(let missing, let context):
            return .keyNotFound(missing, context.nested(in: key))
        case .dataCorrupted(let context):
            return .dataCorrupted(context.nested(in: key))
        @unknown default:
            return self
        }
    }
}

extension DecodingError.Context {
    fileprivate func nested(in key: some CodingKey) -> DecodingError.Context {
        DecodingError.Context(
            codingPath: [key] + codingPath, debugDescription: debugDescription, underlyingError: underlyingError)
    }
}
