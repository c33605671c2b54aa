import CSQLite
import Foundation

/// Decodes `Decodable` values from the current row of a statement, row after row.
///
/// One decoder serves a whole query: it learns on the first row which column each coding key reads
/// (in the order the keys are asked for) and afterwards confirms each key with one string comparison.
/// A struct decodes by column name (after ``CodingOptions/keyStrategy``); a single-value type
/// (`String`, `Int`, `Date`, a raw-value enum …) from the first column; an array, set or dictionary
/// from the JSON text of the statement's only column, as a property of its type is (a statement with
/// several columns throws); any other type that asks for a top-level unkeyed container reads the
/// columns in order. Nested values are read from JSON text, or, when no column has their name, from
/// their own part of a joined row (see `RowDecoder+Scopes.swift`).
///
/// Not supported, with a `DecodingError` that says so: `nestedContainer(keyedBy:forKey:)` and
/// `nestedUnkeyedContainer(forKey:)` (a row is flat; decode the property as a `Decodable` type of its
/// own, which is read from JSON), and keyed or unkeyed containers of `superDecoder(forKey:)`.
///
/// The decoder and its containers read one row, during the `init(from:)` call that decodes it: a
/// container (or the decoder) kept and used afterwards throws `DecodingError.dataCorrupted` saying so,
/// and reads nothing (see ``RowGenerations``).
final class RowDecoder: Decoder {
    /// The statement whose current row is decoded; the decoder never outlives its use of it.
    let handle: OpaquePointer
    let options: CodingOptions
    let columnCount: Int32
    /// The statement's re-prepare count when the column look-up was built.
    let reprepareCount: Int32
    /// The type the decoder was made for; a cached decoder is reused only for the same type.
    let typeID: ObjectIdentifier
    var codingPath: [any CodingKey] { [] }
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether dates are not decoded by a custom closure, so that TEXT is parsed directly.
    let usesTextDates: Bool

    /// The keys in the order they were asked for on the first row, and their columns, behind a pointer:
    /// read for every field, they must not pay for the exclusivity checks of a class's stored `var`s.
    private struct KeyOrder {
        var position = 0
        /// Whether the reused keyed container was handed out since the last row ended.
        var handedOut = false
        /// The reused keyed container's counted reference (see ``ContainerBox/reference``); nil when
        /// there is none or it cannot be checked.
        var containerReference: UnsafeMutablePointer<AnyObject>?
        var keys: [String] = []
        var columns: [Int32] = []
    }
    private let order: UnsafeMutablePointer<KeyOrder>
    /// The decoder's counters (see ``RowGenerations``): ``RowGenerations/row`` is odd while a row is
    /// decoded and moves on when it starts and ends; ``RowGenerations/kept`` moves on when the reused
    /// keyed container was kept past its row.
    let generations: UnsafeMutablePointer<UInt64>
    /// The current row's values, behind a pointer for the same reason.
    let values: UnsafeMutablePointer<ColumnValues>
    private var lookup: [String: (column: Int32, position: Int)] = [:]
    /// The keyed container of the first key type asked for, reused row after row while no decoded value
    /// keeps it.
    private var containerCache: AnyObject?
    private var cachedKeyType: ObjectIdentifier?
    /// The tag table of that key type's container, when its keys are plain enum cases.
    private var keyTags: KeyTagTable?
    private var columnTable: RowColumns?
    /// The keys that matched several columns, in the order met (see ``ambiguousColumn``).
    private var ambiguousKeys: [(key: String, name: String, positions: [Int])] = []
    private var jsonTypes: Set<ObjectIdentifier> = []
    /// The part of the row this decoder reads: the whole row, or one nested value's scope of a joined
    /// row (see ``RowScoping``). Its keys are looked up among these columns only.
    let scope: Range<Int32>
    /// The coding key of the nested value this decoder reads, nil for the row itself.
    let scopeName: String?
    /// The type of that nested value, for errors.
    let scopeType: Any.Type
    /// How many characters of each column name in the scope are its prefix (`manager.`), not looked up.
    let prefixLength: Int
    /// How nested values find their part of the row; nil: they do not (a missing key is missing).
    let scoping: RowScoping?
    /// The decoders of the nested values met so far, in the order asked for (see ``scopedChild(_:for:)``).
    var scopedChildren: [ScopedChild] = []
    /// Where the next nested value is expected in ``scopedChildren``.
    var scopedPosition = 0
    /// The scopes given with the query, resolved to column ranges on first use.
    var explicitSpans: [String: Range<Int32>]?
    /// Whether this decoder, a nested value's, had its scope's width checked against the columns its
    /// value read (see `checkScopeWidth(of:key:type:)`), after its first row.
    var scopeWidthChecked = false
    private lazy var json: JSONDecoder = {
        let decoder = JSONDecoder()
        let strategy = options.dateStrategy
        decoder.dateDecodingStrategy = .custom { decoder in
            try JSONDates.decode(from: decoder, strategy: strategy)
        }
        decoder.userInfo = options.userInfo
        return decoder
    }()

    convenience init(statement: Statement, options: CodingOptions, type: Any.Type, scoping: RowScoping? = nil) {
        self.init(
            handle: statement.handle, options: options, columnCount: statement.columnCount,
            reprepareCount: statement.reprepareCount, type: type, scoping: scoping,
            scope: 0..<Swift.max(0, statement.columnCount - (scoping?.trailing.map { $0.keys + $0.scoped } ?? 0)),
            scopeName: nil, prefixLength: 0)
    }

    /// A decoder for the nested value `name` of type `type`, reading the columns `scope` of the row that
    /// `parent` reads, whose names start with a prefix of `prefixLength` characters that is not looked up.
    convenience init(scopeOf parent: RowDecoder, name: String, type: Any.Type, scope: Range<Int32>, prefixLength: Int) {
        self.init(
            handle: parent.handle, options: parent.options, columnCount: parent.columnCount,
            reprepareCount: parent.reprepareCount, type: type, scoping: parent.scoping?.automatic,
            scope: scope, scopeName: name, prefixLength: prefixLength)
    }

    private init(
        handle: OpaquePointer, options: CodingOptions, columnCount: Int32, reprepareCount: Int32, type: Any.Type,
        scoping: RowScoping?, scope: Range<Int32>, scopeName: String?, prefixLength: Int
    ) {
        self.handle = handle
        self.options = options
        self.columnCount = columnCount
        self.reprepareCount = reprepareCount
        self.typeID = ObjectIdentifier(type)
        self.scoping = scoping
        self.scope = scope
        self.scopeName = scopeName
        self.scopeType = type
        self.prefixLength = prefixLength
        self.userInfo = options.codingUserInfo
        if case .custom = options.dateStrategy {
            self.usesTextDates = false
        } else {
            self.usesTextDates = true
        }
        self.order = .allocate(capacity: 1)
        self.order.initialize(to: KeyOrder())
        self.values = .allocate(capacity: 1)
        self.values.initialize(to: ColumnValues(handle: handle, count: columnCount))
        self.generations = RowGenerations.take()
    }

    deinit {
        RowGenerations.giveBack(generations)
        order.deinitialize(count: 1)
        order.deallocate()
        values.deinitialize(count: 1)
        values.deallocate()
    }

    /// The decoder attached to `statement` for `T`, or a new one attached in its place; `scoping` says
    /// how nested values find their part of a joined row (nil: any decoder for `T` will do).
    ///
    /// The decoder already attached is checked inline, in the caller; a new one is made out of line.
    @inline(__always)
    static func attached<T>(
        to statement: Statement, options: CodingOptions, for type: T.Type, scoping: RowScoping? = nil
    ) -> RowDecoder {
        if let decoder = statement.attachment(as: RowDecoder.self), decoder.typeID == ObjectIdentifier(T.self),
            decoder.reprepareCount == statement.reprepareCount, decoder.columnCount == statement.columnCount,
            scoping == nil || decoder.scoping === scoping || decoder.scoping?.sameScopes(as: scoping) == true
        {
            return decoder
        }
        return attachNew(to: statement, options: options, for: T.self, scoping: scoping)
    }

    /// A new decoder for `T`, attached to `statement` in place of any other.
    @inline(never)
    private static func attachNew<T>(
        to statement: Statement, options: CodingOptions, for type: T.Type, scoping: RowScoping?
    ) -> RowDecoder {
        let decoder = RowDecoder(statement: statement, options: options, type: T.self, scoping: scoping)
        statement.attachment = decoder
        return decoder
    }

    /// Decodes a `T` from the statement's current row.
    @inline(__always)
    func decodeRow<T: Decodable>(_ type: T.Type) throws -> T {
        generations[RowGenerations.row] &+= 1
        defer { endRow() }
        let kind = topLevelKind ?? RowDecoder.topLevelKind(of: T.self)
        topLevelKind = kind
        return try decodeRow(T.self, kind: kind)
    }

    /// Ends the row: its values are forgotten before the statement steps or resets, and its containers
    /// refuse to read from now on. The reused keyed container is dropped if a decoded value kept it.
    @inline(__always)
    private func endRow() {
        generations[RowGenerations.row] &+= 1
        values.pointee.endRow()
        if order.pointee.handedOut {
            order.pointee.handedOut = false
            if !ContainerBox<Void>.isUnshared(order.pointee.containerReference) {
                dropKeptContainer()
            }
        }
    }

    /// Forgets the reused keyed container, which a decoded value kept: the copy it holds refuses to
    /// read, and the next row gets a new one.
    @inline(never)
    private func dropKeptContainer() {
        generations[RowGenerations.kept] &+= 1
        order.pointee.containerReference = nil
        containerCache = nil
        cachedKeyType = nil
        keyTags = nil
    }

    /// Whether a row is being decoded.
    @inline(__always)
    var isInRow: Bool { generations[RowGenerations.row] & 1 == 1 }

    /// The error for a container, or the decoder, used after the row it was made for.
    @inline(never)
    static func expired(_ what: String, codingPath: [any CodingKey] = []) -> DecodingError {
        .dataCorrupted(
            .init(
                codingPath: codingPath,
                debugDescription:
                    "\(what) was used after its row: a decoder and its containers read one row, during the "
                    + "init(from:) call that decodes it; decode the values there instead of keeping the container"))
    }

    /// Decodes a `T` from the current row, as a type of the given kind.
    func decodeRow<T: Decodable>(_ type: T.Type, kind: TopLevelKind) throws -> T {
        order.pointee.position = 0
        switch kind {
        case .record:
            values.pointee.loadRow()
            return try T(from: self)
        case .rawValue:
            do {
                return try T(from: self)
            } catch {
                // Say which value no case matches.
                throw columnCount > 0 ? explained(error, decoding: T.self, column: 0) : error
            }
        case .columns(let columnDecodable):
            if verifiedRows < RowEncoderCore.rowsToVerify {
                return try decodeVerified(T.self, columnDecodable)
            }
            return try decodeColumns(T.self, columnDecodable)
        case .scalar:
            guard columnCount > 0 else {
                throw DecodingError.valueNotFound(
                    T.self, .init(codingPath: [], debugDescription: "the statement returns no column"))
            }
            return try decodeValue(T.self, column: 0)
        case .optional(let optional):
            return try decodeOptionalRow(T.self, optional)
        case .json:
            return try decodeJSONRow(T.self)
        }
    }

    /// Decodes an array, set or dictionary from the statement's only column, as a property of its type
    /// is decoded; out of line, as it is no common path.
    @inline(never)
    private func decodeJSONRow<T: Decodable>(_ type: T.Type) throws -> T {
        guard columnCount == 1 else {
            let names = columnNames.map { "\"\($0)\"" }.joined(separator: ", ")
            throw DecodingError.typeMismatch(
                T.self,
                .init(
                    codingPath: [],
                    debugDescription:
                        "\(T.self) is read from one column holding its JSON text, but the statement returns "
                        + (columnCount == 0 ? "no column" : "\(columnCount) columns (\(names))")
                        + "; select only that column, or decode a struct of the columns"))
        }
        return try decodeJSON(T.self, column: 0)
    }

    /// Kept out of ``decodeRow(_:kind:)``: the cast needs `Optional<T>`'s metadata, which would
    /// otherwise be looked up for every row of every type.
    @inline(never)
    private func decodeOptionalRow<T>(_ type: T.Type, _ optional: any DecodableOptional.Type) throws -> T {
        guard let value = try optional.decodeTopLevel(from: self) as? T else {
            throw DecodingError.typeMismatch(
                T.self, .init(codingPath: [], debugDescription: "cannot decode \(T.self) from a row"))
        }
        return value
    }

    /// How a type decodes from a whole row.
    enum TopLevelKind {
        /// By `init(from:)` on the row: structs by column name.
        case record
        /// A raw-value type, by `init(from:)` from the first column; a raw value no case matches is
        /// named in the error.
        case rawValue
        /// A type with its own column conversion (`Date`, `UUID`, `String` …), from the first column.
        case scalar
        /// An `Optional`: nil from a NULL first column, else its wrapped type from the row.
        case optional(any DecodableOptional.Type)
        /// A ``ColumnDecodable`` type, by `init(columns:)`.
        case columns(any ColumnDecodable.Type)
        /// An array, set or dictionary (a ``JSONCollection``): from the JSON text of the statement's
        /// only column, never from the row's columns in order, which would decode `[String]` from
        /// `SELECT tags` as the one-element list of the column's raw text.
        case json
    }

    private var topLevelKind: TopLevelKind?
    /// How many rows of a ``ColumnDecodable`` type were checked to decode the same both ways.
    private var verifiedRows = 0

    /// Whether a property of type `T` is read from one column of its own, never from a nested
    /// value's columns: the types with a conversion of their own, and raw-value types.
    static func readsOneColumn<T>(_ type: T.Type) -> Bool {
        ValueEncoder.isScalar(T.self) || T.self == SQLiteValue.self || T.self is any RawRepresentable.Type
    }

    static func topLevelKind<T>(of type: T.Type) -> TopLevelKind {
        if ValueEncoder.isScalar(T.self) || T.self == SQLiteValue.self || T.self == Double.self || T.self == Int.self
            || T.self == Int64.self
            || T.self == Bool.self || T.self == Float.self
        {
            return .scalar
        }
        if let optional = T.self as? any DecodableOptional.Type {
            return .optional(optional)
        }
        if let columnDecodable = T.self as? any ColumnDecodable.Type {
            return .columns(columnDecodable)
        }
        if T.self is any RawRepresentable.Type {
            return .rawValue
        }
        if T.self is any JSONCollection.Type {
            return .json
        }
        return .record
    }

    /// Decodes the current row with `init(columns:)`.
    @inline(__always)
    private func decodeColumns<T: Decodable>(_ type: T.Type, _ columnDecodable: any ColumnDecodable.Type) throws -> T {
        // A reader kept past its row refuses to read (see ColumnReader).
        try columnDecodable.decode(columns: ColumnReader(decoder: self), as: T.self)
    }

    /// The current row's generation: a ``ColumnReader``, a column decoder or an unkeyed container holds
    /// the one it was made in, and refuses to read once it has changed.
    @inline(__always)
    var rowGeneration: UInt64 { generations[RowGenerations.row] }

    /// Decodes the current row with `init(columns:)` and, when `T` is also `Encodable`, with
    /// `init(from:)` too, and checks that the two values encode to the same columns; returns the
    /// `init(columns:)` value. A row that `init(from:)` cannot decode, or whose values cannot be
    /// encoded again, is not compared (and not counted as checked): the hand-written value stands.
    @inline(never)
    private func decodeVerified<T: Decodable>(_ type: T.Type, _ columnDecodable: any ColumnDecodable.Type) throws -> T {
        let byHand = try decodeColumns(T.self, columnDecodable)
        guard T.self is any Encodable.Type else {
            verifiedRows = RowEncoderCore.rowsToVerify  // nothing to compare with
            return byHand
        }
        order.pointee.position = 0
        guard let byCodable = try? T(from: self), let handEncodable = byHand as? any Encodable,
            let codableEncodable = byCodable as? any Encodable
        else {
            return byHand
        }
        let encoder = RowEncoder(options: options)
        guard let written = try? encoder.encode(handEncodable), let expected = try? encoder.encode(codableEncodable)
        else {
            return byHand
        }
        if let mismatch = ColumnMismatch(expected: expected, written: written) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [IndexKey(mismatch.column)],
                    debugDescription: "init(columns:) of \(T.self) does not read what init(from:) reads: "
                        + "encoded again, \(mismatch.description)"))
        }
        verifiedRows += 1
        return byHand
    }

    // MARK: Column look-up

    /// The column that the coding key `key` reads: ``missingColumn`` when the row has none,
    /// ``ambiguousColumn`` when several columns have its name (both negative).
    @inline(__always)
    func column(for key: String) -> Int32 {
        let position = order.pointee.position
        if position < order.pointee.keys.count && order.pointee.keys[position] == key {
            order.pointee.position = position + 1
            return order.pointee.columns[position]
        }
        return slowColumn(for: key)
    }

    private func slowColumn(for key: String) -> Int32 {
        if let known = lookup[key] {
            order.pointee.position = known.position + 1
            return known.column
        }
        let column = columnIndex(forKey: key)
        order.pointee.keys.append(key)
        order.pointee.columns.append(column)
        let position = order.pointee.keys.count - 1
        lookup[key] = (column, position)
        order.pointee.position = position + 1
        return column
    }

    /// The columns that the keys looked up so far read (each once, whatever the number of keys).
    var columnsRead: Set<Int32> {
        Set(lookup.values.lazy.map(\.column).filter { $0 >= 0 })
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

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard isInRow else { throw Self.expired("the row decoder") }
        // The container holds no state of its own (it reads the decoder's), so the one made for the
        // first row serves every row while no decoded value keeps it: no allocation and no generic
        // metadata look-up per row.
        if let cached = containerCache, cachedKeyType == ObjectIdentifier(Key.self) {
            order.pointee.handedOut = true
            return unsafeDowncast(cached, to: ContainerBox<KeyedDecodingContainer<Key>>.self).value()
        }
        return makeContainer(keyedBy: Key.self)
    }

    /// A new keyed container, kept for the next rows when it is the first one. Out of line: the code
    /// that makes a container needs its type's metadata, which would otherwise be looked up on every call.
    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        // Only the container that is kept gets a tag table, which is kept with it: the container holds
        // nothing but a pointer into the table, so a table made for a container that is not kept would
        // be freed while the container still writes to it.
        let reused = containerCache == nil
        let tags = KeyTagTable.isTaggable(Key.self) && reused ? KeyTagTable() : nil
        // The reused container is valid until a decoded value keeps it; any other one, until its row ends.
        let counter = generations + (reused ? RowGenerations.kept : RowGenerations.row)
        let container = KeyedDecodingContainer(
            RowKeyedDecodingContainer<Key>(decoder: self, tags: tags, generation: counter))
        if reused {
            let box = ContainerBox(container)
            containerCache = box
            order.pointee.containerReference = box.reference
            order.pointee.handedOut = true
            cachedKeyType = ObjectIdentifier(Key.self)
            keyTags = tags
        }
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard isInRow else { throw Self.expired("the row decoder") }
        if let scopeName { throw RowScopeError.notKeyed(property: scopeName, type: "\(scopeType)") }
        return RowUnkeyedDecodingContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard isInRow else { throw Self.expired("the row decoder") }
        if let scopeName { throw RowScopeError.notKeyed(property: scopeName, type: "\(scopeType)") }
        guard columnCount > 0 else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: [], debugDescription: "the statement returns no column"))
        }
        return ColumnDecoder(row: self, column: 0)
    }

    // MARK: Values of any type

    /// Decodes a value of any type from `column`: the special types directly, nested values from
    /// JSON, and everything else (raw-value enums, wrappers, optionals) through a single-value decoder.
    func decodeValue<T: Decodable>(_ type: T.Type, column: Int32) throws -> T {
        // Each unsafeBitCast below reinterprets a value as its own type: T was just compared equal.
        if T.self == Date.self { return unsafeBitCast(try date(column), to: T.self) }
        if T.self == String.self { return unsafeBitCast(try string(column), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try integer(Int.self, column), to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try int64(column, as: Int64.self), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try double(column, as: Double.self), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(column), to: T.self) }
        if T.self == UUID.self { return unsafeBitCast(try uuid(column), to: T.self) }
        if T.self == Data.self { return unsafeBitCast(try data(column), to: T.self) }
        if T.self == URL.self { return unsafeBitCast(try url(column), to: T.self) }
        if T.self == Decimal.self { return unsafeBitCast(try decimal(column), to: T.self) }
        if T.self == SQLiteValue.self { return unsafeBitCast(try checkedColumnValue(column), to: T.self) }
        return try decodeOtherValue(T.self, column: column)
    }

    /// Decodes an optional, a nested value or any other type without a conversion of its own. Kept out
    /// of ``decodeValue(_:column:)``: the optional cast needs `Optional<T>`'s metadata, whose look-up
    /// the compiler would otherwise make on every call, for dates and strings too.
    @inline(never)
    private func decodeOtherValue<T: Decodable>(_ type: T.Type, column: Int32) throws -> T {
        if let optional = T.self as? any DecodableOptional.Type {
            guard let value = try optional.decodeColumn(from: self, column: column) as? T else {
                throw mismatch(T.self, column: column, expected: "\(T.self)")
            }
            return value
        }
        let typeID = ObjectIdentifier(T.self)
        if !jsonTypes.contains(typeID) {
            do {
                return try T(from: ColumnDecoder(row: self, column: column, isProbe: true))
            } catch is NestedContainerSignal {
                jsonTypes.insert(typeID)
            } catch {
                throw explained(error, decoding: T.self, column: column)
            }
        }
        return try decodeJSON(T.self, column: column)
    }

    /// Decodes a nested value from the JSON text (or BLOB) in `column`.
    func decodeJSON<T: Decodable>(_ type: T.Type, column: Int32) throws -> T {
        let bytes: Data
        switch sqlite3_column_type(handle, column) {
        case SQLITE_TEXT, SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            if let pointer = sqlite3_column_blob(handle, column) {
                bytes = Data(bytes: pointer, count: count)
            } else {
                bytes = try Statement.emptyOrNoMemory(Data(), handle, column: column, byteCount: Int32(count))
            }
        case SQLITE_NULL:
            bytes = Data("null".utf8)
        default:
            throw mismatch(T.self, column: column, expected: "JSON text")
        }
        do {
            return try json.decode(T.self, from: bytes)
        } catch let error as DecodingError {
            let inner = error.context
            let path =
                inner.codingPath.isEmpty ? "" : " (at \(inner.codingPath.map(\.stringValue).joined(separator: ".")))"
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [IndexKey(columnName(column))] + inner.codingPath,
                    debugDescription:
                        "column \"\(columnName(column))\" holds \(describe(column)), which does not decode as "
                        + "\(T.self)\(path): \(inner.debugDescription)",
                    underlyingError: error))
        }
    }
}

/// `Optional` of a `Decodable` type, whose own `init(from:)` would decode a `Date` as a Double: the row
/// decoder reads the wrapped type through its own conversions instead.
protocol DecodableOptional {
    /// nil when `column` is NULL, else the wrapped value read from it.
    static func decodeColumn(from decoder: RowDecoder, column: Int32) throws -> Self
    /// nil when the first column is NULL, else the wrapped value read from the whole row.
    static func decodeTopLevel(from decoder: RowDecoder) throws -> Self
}

extension Optional: DecodableOptional where Wrapped: Decodable {
    static func decodeColumn(from decoder: RowDecoder, column: Int32) throws -> Wrapped? {
        if decoder.isNull(column) { return nil }
        return try decoder.decodeValue(Wrapped.self, column: column)
    }

    static func decodeTopLevel(from decoder: RowDecoder) throws -> Wrapped? {
        if decoder.columnCount > 0 && decoder.isNull(0) { return nil }
        return try decoder.decodeRow(Wrapped.self, kind: RowDecoder.topLevelKind(of: Wrapped.self))
    }
}

extension DecodingError {
    /// The context of any case of the error.
    fileprivate var context: Context {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            return context
        @unknown default:
            return Context(codingPath: [], debugDescription: "\(self)")
        }
    }
}
