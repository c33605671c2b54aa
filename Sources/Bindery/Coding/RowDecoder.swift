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

    /// The keys in the order they were asked for on the first row, and their columns, in a box the
    /// decoder owns (freed in its `deinit`): read for every field, they must not pay for the exclusivity
    /// checks of a class's stored `var`s.
    struct KeyOrder {
        var position = 0
        /// The keyed container of the first key type asked for, reused row after row while no decoded
        /// value keeps it, with its tag table.
        var container = ContainerSlot<DecodingContainers>()
        var keys: [String] = []
        var columns: [Int32] = []
        /// Whether two of ``keys`` are equal as `String`s but differ in their bytes (Unicode
        /// normalization), so that a predicted key must be confirmed byte for byte too.
        var hasEquivalentKeys = false
    }
    let order: FixedBox<KeyOrder>
    /// The decoder's counters (see ``RowGenerations``): ``RowGenerations/row`` is odd while a row is
    /// decoded and moves on when it starts and ends; ``RowGenerations/kept`` moves on when the reused
    /// keyed container was kept past its row.
    let generations: RowGenerations.Counters
    /// The current row's values, in memory shared with the keyed containers (see ColumnValues/Shared).
    let values: ColumnValues.Shared
    var lookup: [String: (column: Int32, position: Int)] = [:]
    var columnTable: RowColumns?
    /// The keys that matched several columns, in the order met (see ``ambiguousColumn``).
    var ambiguousKeys: [(key: String, name: String, positions: [Int])] = []
    var jsonTypes: Set<ObjectIdentifier> = []
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
    var explicitSpans: [String: ExplicitSpan]?
    /// How the decoded type reads a whole row, found on the first row.
    var topLevelKind: TopLevelKind?
    /// How many rows of a ``ColumnDecodable`` type were checked to decode the same both ways.
    var verifiedRows = 0
    /// Whether this decoder, a nested value's, had its scope's width checked against the columns its
    /// value read (see `checkScopeWidth(of:key:type:)`), after its first row.
    var scopeWidthChecked = false
    /// The column that says whether this decoder's nested value is in the row (see
    /// ``RowScope/presence``); nil: it is when any of its columns is not NULL.
    var presenceColumn: Int32?
    lazy var json: JSONDecoder = {
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
    /// Its nested values follow `scoping` when given, the automatic rule otherwise.
    convenience init(
        scopeOf parent: RowDecoder, name: String, type: Any.Type, scope: Range<Int32>, prefixLength: Int,
        scoping: RowScoping? = nil
    ) {
        self.init(
            handle: parent.handle, options: parent.options, columnCount: parent.columnCount,
            reprepareCount: parent.reprepareCount, type: type, scoping: scoping ?? parent.scoping?.automatic,
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
        self.order = .allocate(KeyOrder())
        self.values = ColumnValues.Shared.make(handle: handle, count: columnCount)
        self.generations = RowGenerations.Counters.take()
    }

    deinit {
        generations.giveBack()
        order.deallocate()
        values.free()
    }

    /// The decoder attached to `statement` for `T`, or a new one attached in its place; `scoping` says
    /// how nested values find their part of a joined row (nil: any decoder for `T` will do).
    ///
    /// The decoder already attached is checked inline, in the caller; a new one is made out of line.
    @inline(__always)
    static func attached<T>(
        to statement: Statement, options: CodingOptions, for type: T.Type, scoping: RowScoping? = nil
    ) -> RowDecoder {
        // Recognised as exactly `RowDecoder` by comparing classes: `as?` would call the runtime's cast
        // (callgrind, issue 38: `find(_:id:)`, 16 instructions a call).
        if let decoder = statement.lentAttachment(as: RowDecoder.self)?.object,
            decoder.typeID == ObjectIdentifier(T.self),
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
        generations.advanceRow()
        defer { endRow() }
        let kind = topLevelKind ?? RowDecoder.topLevelKind(of: T.self)
        topLevelKind = kind
        return try decodeRow(T.self, kind: kind)
    }

    /// Ends the row: its values are forgotten before the statement steps or resets, and its containers
    /// refuse to read from now on. The reused keyed container is dropped if a decoded value kept it.
    @inline(__always)
    private func endRow() {
        generations.advanceRow()
        values.endRow()
        if order.value.container.wasKept() {
            dropKeptContainer()
        }
    }

    /// Forgets the reused keyed container, which a decoded value kept: the copy it holds refuses to
    /// read, and the next row gets a new one.
    @inline(never)
    private func dropKeptContainer() {
        generations.advanceKept()
        order.value.container.drop()
    }

    /// Whether a row is being decoded.
    @inline(__always)
    var isInRow: Bool { generations.isInRow }

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

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard isInRow else { throw Self.expired("the row decoder") }
        // The container holds no state of its own (it reads the decoder's), so the one made for the
        // first row serves every row while no decoded value keeps it: no allocation and no generic
        // metadata look-up per row.
        if let box = order.value.container.reuse(keyedBy: Key.self) {
            return box.value()
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
        let reused = order.value.container.isEmpty
        let tags = KeyTagTable.isTaggable(Key.self) && reused ? KeyTagTable() : nil
        // The reused container is valid until a decoded value keeps it; any other one, until its row ends.
        let counter = generations.stamp(reused: reused)
        let container = KeyedDecodingContainer(
            RowKeyedDecodingContainer<Key>(decoder: self, tags: tags, generation: counter))
        if reused {
            order.value.container.keep(container, tags: tags)
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

}
