import Foundation

/// Encodes an `Encodable` value into the columns and values of one row.
///
/// Each property of a struct becomes a column named by its coding key (after
/// ``CodingOptions/keyStrategy``), its value converted by the storage table: scalars as themselves,
/// `Date`, `UUID`, `URL` and `Decimal` per the options, raw-value enums as their raw value, `nil` as
/// NULL, and nested structs, arrays, dictionaries and sets as JSON text.
///
/// ```swift
/// let pairs = try RowEncoder().encode(Student(id: nil, name: "Ana", year: 2024))
/// // [("id", NULL), ("name", 'Ana'), ("year", 2024)]
/// ```
///
/// Values SQLite cannot hold exactly (a `UInt64` above `Int64.max`, a NaN) throw
/// `EncodingError.invalidValue` naming the column. A row needs keyed properties: a value that encodes
/// as a single value (a `String`, a raw-value enum, a wrapper using `singleValueContainer()`) or as an
/// unkeyed container throws `EncodingError.invalidValue` naming its type; use ``encodeValue(_:)`` for
/// one value.
public struct RowEncoder: Sendable {
    /// The conversions used.
    public var options: CodingOptions

    /// Creates an encoder with the given conversions.
    public init(options: CodingOptions = CodingOptions()) {
        self.options = options
    }

    /// The (column, value) pairs of `value`, in the order its keys were encoded.
    public func encode<T: Encodable>(_ value: T) throws -> [(column: String, value: SQLiteValue)] {
        let core = RowEncoderCore(options: options)
        try core.encodeRow(value)
        return core.row.pairs
    }

    /// The stored form of a single value, as a property of that type would be stored.
    ///
    /// ```swift
    /// try RowEncoder().encodeValue(Date(timeIntervalSince1970: 0))  // .text("1970-01-01 00:00:00.000")
    /// ```
    public func encodeValue<T: Encodable>(_ value: T) throws -> SQLiteValue {
        try ValueEncoder(options: options).encode(value, codingPath: [])
    }
}

/// The reusable machinery behind ``RowEncoder``: one per statement or bulk operation, encoding value
/// after value into the same ``EncodedRow``.
final class RowEncoderCore: Encoder {
    let row: EncodedRow
    let values: ValueEncoder
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { values.options.codingUserInfo }
    /// An error found where the `Encoder` protocol gives no way to throw; thrown when encoding ends.
    var failure: Error?
    /// Decodes a record from ``row`` as an INSERT stored it, made on first use.
    lazy var insertedRowDecoder = InsertedRowDecoder(row: row, options: values.options)
    /// The core's counters (see ``RowGenerations``): ``RowGenerations/row`` is odd while a value is
    /// encoded and moves on when it starts and ends; ``RowGenerations/kept`` moves on when the reused
    /// keyed container was kept past its value.
    private let generations = RowGenerations.Counters.take()
    /// The keyed container of the first key type asked for, reused value after value while no
    /// `encode(to:)` keeps it, with its tag table; in memory of its own, as ``RowDecoder`` keeps its
    /// slot: as a stored `var` of this class, changed through `mutating` calls, it paid an exclusivity
    /// check (`swift_beginAccess`) on every value.
    private let keptContainer: FixedBox<ContainerSlot<EncodingContainers>>
    /// The type encoded last, whether it is ``ColumnEncodable``, and whether it is stored as one value
    /// (see ``ValueEncoder/isScalar(_:)``): found once per type, not once per row.
    private var encodedType: ObjectIdentifier?
    private var columnEncodable: (any ColumnEncodable.Type)?
    private var encodesScalar = false
    /// How many rows of that type were checked to encode the same both ways.
    private var verifiedRows = 0
    /// Which slots the first checked row had.
    private var checkedSlots: [Bool] = []
    /// The container a value asked for instead of a keyed one (`singleValueContainer()` or
    /// `unkeyedContainer()`), which a row cannot be made of; thrown when encoding ends.
    private var nonKeyedRequest: String?
    /// How many rows of a ``ColumnEncodable`` type are encoded both ways and compared.
    static let rowsToVerify = 8

    init(options: CodingOptions) {
        let values = ValueEncoder(options: options)
        self.row = EncodedRow(options: options, values: values)
        self.values = values
        self.keptContainer = .allocate(ContainerSlot())
    }

    deinit {
        generations.giveBack()
        keptContainer.deallocate()
    }

    /// Whether a value is being encoded through its `encode(to:)`.
    @inline(__always)
    private var isEncoding: Bool { generations.isInRow }

    /// Encodes `value` into ``row``, replacing the previous row's values.
    /// The value is borrowed, not copied: a copy of a record would retain each of its strings.
    func encodeRow<T: Encodable>(_ value: borrowing T) throws {
        if encodedType != ObjectIdentifier(T.self) {
            encodedType = ObjectIdentifier(T.self)
            columnEncodable = T.self as? any ColumnEncodable.Type
            encodesScalar = ValueEncoder.isScalar(T.self)
            verifiedRows = 0
        }
        if let columnEncodable {
            if verifiedRows < Self.rowsToVerify {
                try encodeVerified(value, columnEncodable)
            } else {
                try encodeColumns(value, columnEncodable)
                // Values are compared on the first rows only, but which columns a row has is checked on
                // every row: one with other columns than the first (a key left out only when a value is
                // nil, say) is compared with its Codable form again.
                if !row.presentSlotsEqual(checkedSlots) {
                    try encodeVerified(value, columnEncodable)
                }
            }
            return
        }
        try encodeCodable(value)
    }

    /// Whether the records of the type encoded last may follow a plan (see ``ColumnPlan``): it is
    /// ``ColumnEncodable`` and its first records were checked against its Codable form.
    var followsPlans: Bool {
        columnEncodable != nil && verifiedRows >= Self.rowsToVerify
    }

    /// Encodes `records[start..<end]`, of the type encoded last, into consecutive rows of the row's
    /// target, the first at parameter offset `offset` and each `perRow` parameters after the one
    /// before, each following the row's plan (see ``ColumnPlan``), which the caller knows the row has
    /// for its target; returns how many did, in order. Those did not encode into the row's slots. The
    /// first that did not (its `encodeColumns(to:)` wrote other keys, another kind of value, or threw)
    /// left nothing that counts: the caller encodes it again with ``encodeRow(_:)``, which binds it,
    /// checks it or throws as for any record. Each record is read where it lies in `records`.
    func encodeFollowingPlan<T: Encodable>(
        _ records: UnsafeBufferPointer<T>, from start: Int, to end: Int, offset: Int32, perRow: Int32
    ) -> Int {
        guard encodedType == ObjectIdentifier(T.self), let columnEncodable, verifiedRows >= Self.rowsToVerify
        else { return 0 }
        var rowOffset = offset
        var index = start
        row.startFollowingPlan()
        while index < end {
            row.followNextRecord(atRowOffset: rowOffset)
            var writer = ColumnWriter(row: row)
            let wrote: Void?
            do {
                wrote = try ExactCast.Place.with(elementAt: index, of: records) {
                    try columnEncodable.encodeColumns(of: $0, to: &writer)
                }
            } catch {
                wrote = nil
            }
            row.endWriter()
            guard wrote != nil, row.followedRecord() else { break }
            rowOffset &+= perRow
            index += 1
        }
        row.endFollowingPlan(followed: index == end)
        return index - start
    }

    /// Encodes `value` as ``encodeRow(_:)`` does, learning a plan from it when ``followsPlans`` (the
    /// caller checked); returns whether it gave a plan, which the caller makes the row's
    /// (``EncodedRow/commitPlan()``) when the row was bound whole. A record of other columns than the
    /// first checked is checked again, and gives no plan.
    func encodeRowLearningPlan<T: Encodable>(_ value: borrowing T) throws -> Bool {
        guard encodedType == ObjectIdentifier(T.self), let columnEncodable, verifiedRows >= Self.rowsToVerify else {
            try encodeRow(value)
            return false
        }
        row.startLearningPlan()
        let learned: Bool
        do {
            try encodeColumns(value, columnEncodable)
            learned = row.endLearningPlan()
        } catch {
            _ = row.endLearningPlan()
            throw error
        }
        if !row.presentSlotsEqual(checkedSlots) {
            try encodeVerified(value, columnEncodable)
            return false
        }
        return learned
    }

    /// Encodes `value` through its `encode(to:)`, where it lies (a copy of a record
    /// would retain each of its strings).
    @inline(__always)
    private func encodeCodable<T: Encodable>(_ value: borrowing T) throws {
        row.startRow()
        // Reset only when set: assigning nil releases the old value, a call each even when it is nil.
        if failure != nil {
            failure = nil
        }
        if nonKeyedRequest != nil {
            nonKeyedRequest = nil
        }
        guard !encodesScalar else {
            throw Self.notARow(T.self, asked: "is stored as a single value")
        }
        generations.advanceRow()
        defer { endValue() }
        try value.encode(to: RowEncoderHandle(core: self, generation: generations.rowStamp))
        if let nonKeyedRequest {
            throw Self.notARow(T.self, asked: "encodes itself through \(nonKeyedRequest)")
        }
        if let failure {
            throw failure
        }
    }

    /// Ends the value: its containers refuse to write from now on. The reused keyed container is
    /// dropped if `encode(to:)` kept it.
    @inline(__always)
    private func endValue() {
        generations.advanceRow()
        if keptContainer.value.wasKept() {
            dropKeptContainer()
        }
    }

    /// Forgets the reused keyed container, which `encode(to:)` kept: the copy it holds refuses to
    /// write, and the next value gets a new one.
    @inline(never)
    private func dropKeptContainer() {
        generations.advanceKept()
        keptContainer.value.drop()
    }

    /// The error for a value that is not made of keyed properties, which would otherwise become a
    /// column named "" (or columns "0", "1", …). Only the type is named: the value is user data.
    @inline(never)
    private static func notARow<T>(_ type: T.Type, asked: String) -> EncodingError {
        EncodingError.invalidValue(
            type,
            .init(
                codingPath: [],
                debugDescription:
                    "\(T.self) \(asked), not as a row: a record needs keyed properties (a struct or class whose "
                    + "encode(to:) uses container(keyedBy:), as a synthesized Codable conformance does); to store "
                    + "one value, make it a property of a record or bind it in SQL"))
    }

    /// Encodes `value` through its `encodeColumns(to:)`.
    @inline(__always)
    private func encodeColumns<T: Encodable>(_ value: borrowing T, _ type: any ColumnEncodable.Type) throws {
        row.startRow()
        var writer = ColumnWriter(row: row)
        // A writer kept past this call refuses to write (see ColumnWriter).
        defer { row.endWriter() }
        try ExactCast.Place.with(borrowing: value) { try type.encodeColumns(of: $0, to: &writer) }
    }

    /// Encodes `value` both ways and checks that its `encodeColumns(to:)` writes what its `encode(to:)`
    /// writes; the row then holds the `encodeColumns(to:)` values.
    private func encodeVerified<T: Encodable>(_ value: borrowing T, _ type: any ColumnEncodable.Type) throws {
        try encodeCodable(value)
        let expected = row.pairs
        try encodeColumns(value, type)
        let written = row.pairs
        if let mismatch = ColumnMismatch(expected: expected, written: written) {
            // The type, not the value, goes in the error: the value is user data.
            throw EncodingError.invalidValue(
                T.self,
                .init(
                    codingPath: [IndexKey(mismatch.column)],
                    debugDescription:
                        "encodeColumns(to:) of \(T.self) does not write what encode(to:) writes: \(mismatch.description)"
                ))
        }
        if verifiedRows == 0 {
            checkedSlots = row.present
        }
        verifiedRows += 1
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // The container holds no state of its own, so the one made for the first value serves every
        // value while no `encode(to:)` keeps it: no allocation and no generic metadata look-up per row.
        if isEncoding, let box = keptContainer.value.reuse(keyedBy: Key.self) {
            return box.value()
        }
        return makeContainer(keyedBy: Key.self)
    }

    /// A new keyed container, kept for the next values when it is the first one. Out of line: the code
    /// that makes a container needs its type's metadata, which would otherwise be looked up on every call.
    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        guard isEncoding else {
            // Asked of an encoder kept past its value: the container refuses to write.
            return KeyedEncodingContainer(
                RowKeyedEncodingContainer<Key>(
                    core: self, tags: nil, generation: generations.rowStamp, expired: true))
        }
        // Only the container that is kept gets a tag table, which is kept with it: the container holds
        // nothing but a pointer into the table, so a table made for a container that is not kept would
        // be freed while the container still writes to it.
        let reused = keptContainer.value.isEmpty
        let tags = KeyTagTable.isTaggable(Key.self) && reused ? KeyTagTable() : nil
        // The reused container is valid until an `encode(to:)` keeps it; any other one, until its value
        // ends.
        let counter = generations.stamp(reused: reused)
        let container = KeyedEncodingContainer(
            RowKeyedEncodingContainer<Key>(core: self, tags: tags, generation: counter))
        if reused {
            keptContainer.value.keep(container, tags: tags)
        }
        return container
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        refuse("unkeyedContainer()")
        return DiscardingEncodingContainer(core: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        refuse("singleValueContainer()")
        return DiscardingEncodingContainer(core: self)
    }

    /// Records that the value asked for a container a row cannot be made of; the error is thrown when
    /// `encode(to:)` returns, since the `Encoder` protocol cannot throw here.
    private func refuse(_ container: String) {
        if nonKeyedRequest == nil {
            nonKeyedRequest = container
        }
    }

    /// Records the first error found where it cannot be thrown.
    func fail(_ error: Error) {
        if failure == nil {
            failure = error
        }
    }

    /// The error for a nested container asked of a row, which has no nesting.
    func unsupported(_ what: String, codingPath: [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue(
            what,
            .init(
                codingPath: codingPath,
                debugDescription:
                    "\(what) is not supported by RowEncoder\(ValueEncoder.naming(codingPath)): a row is flat; encode "
                    + "the nested value as a property of its own Encodable type, which is stored as JSON"))
    }
}

extension ValueEncoder {
    /// Whether `type` is stored as one value however it encodes itself (`Date` encodes a Double,
    /// `Data` an array of bytes), so that a row of it is one column.
    static func isScalar<T>(_ type: T.Type) -> Bool {
        type == Date.self || type == UUID.self || type == URL.self || type == Decimal.self || type == Data.self
            || type == String.self
    }
}
