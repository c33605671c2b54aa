import Foundation

/// Decodes a record from the row an INSERT just stored, without reading it back: from the values the
/// encoder bound (``EncodedRow``), NULL for the columns left out and the new rowid for the rowid's
/// column, as ``StoredSlot`` says for each slot.
///
/// It answers only where its answer is certainly the one ``RowDecoder`` would give for the same stored
/// row: the integer types, `Bool`, `Double`, `Float`, `String`, `Data`, `SQLiteValue`, and `Date` from
/// TEXT, each from a value of the kind the decoder reads it from directly. For anything else (a key that
/// is not one of the row's coding keys, another type, a value that would need a conversion or make an
/// error, `allKeys`, nested or single-value containers) it gives up: ``decode(_:rowid:)`` returns nil
/// and the caller reads the row back from the table, where ``RowDecoder`` gives the answer, error
/// included. Giving up is remembered even when `init(from:)` catches the error it throws, so a value
/// decoded past it is never used.
final class InsertedRowDecoder: Decoder {
    /// Where each slot's stored value comes from.
    enum StoredSlot: Equatable {
        /// The value bound for the slot.
        case bound
        /// NULL: the column was left out and has no value of its own.
        case null
        /// The new rowid: the column is the rowid's, left out.
        case rowid
        /// Not known without reading the row: the slot's column is not in the table.
        case unknown
    }

    /// Thrown to stop an `init(from:)` when the decoder gives up.
    struct GaveUp: Error {}

    let row: EncodedRow
    let options: CodingOptions
    var codingPath: [any CodingKey] { [] }
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether dates are not decoded by a custom closure, so that TEXT is parsed directly.
    private let usesTextDates: Bool

    /// The row being decoded, in a box the decoder owns (freed in its `deinit`) and lends to its keyed
    /// containers: read for every field, it must not pay for the exclusivity checks of a class's stored
    /// `var`s.
    struct Current {
        /// Where each slot's stored value comes from: the slot map of the ``InsertPlan`` that owns it,
        /// lent for the row being decoded (the caller holds the plan until ``decode(_:slots:rowid:)``
        /// returns) and nil outside it.
        var slots: FixedBuffer<StoredSlot>?
        var rowid: Int64 = 0
        /// Whether the decoder gave up on the row.
        var gaveUp = false
        /// The keyed container of the first key type asked for, reused record after record while no
        /// decoded value keeps it (as ``RowDecoder`` reuses its own), with its tag table.
        var container = ContainerSlot<DecodingContainers>()
    }
    let current: FixedBox<Current>
    /// The decoder's counters (see ``RowGenerations``): ``RowGenerations/row`` is odd while a row is
    /// decoded; a container made for one row refuses to read once it has moved on.
    let generations: RowGenerations.Counters
    /// The type decoded last, and whether it is ``ColumnDecodable`` (which ``RowDecoder`` decodes through
    /// ``ColumnDecodable/init(columns:)``, and this decoder does not): found once per type.
    private var decodedType: ObjectIdentifier?
    private var decodesColumns = false

    init(row: EncodedRow, options: CodingOptions) {
        self.row = row
        self.options = options
        self.userInfo = options.codingUserInfo
        if case .custom = options.dateStrategy {
            self.usesTextDates = false
        } else {
            self.usesTextDates = true
        }
        self.current = .allocate(Current())
        self.generations = RowGenerations.Counters.take()
    }

    deinit {
        generations.giveBack()
        current.deallocate()
    }

    /// Decodes a `T` from the row as stored: ``row``'s values where `slots` (one per slot of ``row``,
    /// owned by the caller's plan, which it holds until this returns) says ``StoredSlot/bound``, and so
    /// on, with `rowid` for ``StoredSlot/rowid``. Throws ``GaveUp`` when the decoder gave up, and what
    /// `init(from:)` throws otherwise.
    func decode<T: Decodable>(_ type: T.Type, slots: FixedBuffer<StoredSlot>, rowid: Int64) throws -> T {
        if decodedType != ObjectIdentifier(T.self) {
            decodedType = ObjectIdentifier(T.self)
            decodesColumns = T.self is any ColumnDecodable.Type
        }
        guard !decodesColumns else { throw GaveUp() }
        current.value.slots = slots
        current.value.rowid = rowid
        current.value.gaveUp = false
        generations.advanceRow()
        defer { endRow() }
        do {
            let value = try T(from: self)
            guard !current.value.gaveUp else { throw GaveUp() }
            return value
        } catch {
            if current.value.gaveUp {
                throw GaveUp()
            }
            throw error
        }
    }

    /// Gives up on the current row; returns the error that stops `init(from:)`.
    func giveUp() -> GaveUp {
        current.value.gaveUp = true
        return GaveUp()
    }

    /// Ends the row: its containers refuse to read from now on, and the reused keyed container is
    /// dropped if a decoded value kept it.
    @inline(__always)
    private func endRow() {
        generations.advanceRow()
        current.value.slots = nil
        if current.value.container.wasKept() {
            generations.advanceKept()
            current.value.container.drop()
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard generations.isInRow else {
            throw RowDecoder.expired("the inserted-row decoder")
        }
        if let box = current.value.container.reuse(keyedBy: Key.self) {
            return box.value()
        }
        return makeContainer(keyedBy: Key.self)
    }

    /// A new keyed container, kept for the next records when it is the first one (see
    /// ``RowDecoder``'s own, which this follows).
    @inline(never)
    private func makeContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        let reused = current.value.container.isEmpty
        let tags = KeyTagTable.isTaggable(Key.self) && reused ? KeyTagTable() : nil
        let counter = generations.stamp(reused: reused)
        let container = KeyedDecodingContainer(
            InsertedRowKeyedContainer<Key>(decoder: self, tags: tags, generation: counter))
        if reused {
            current.value.container.keep(container, tags: tags)
        }
        return container
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard generations.isInRow else {
            throw RowDecoder.expired("the inserted-row decoder")
        }
        throw giveUp()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard generations.isInRow else {
            throw RowDecoder.expired("the inserted-row decoder")
        }
        throw giveUp()
    }

    /// A `Date` from TEXT, as ``RowDecoder`` reads one; nil for anything else.
    func date(from value: SQLiteValue) -> Date? {
        guard usesTextDates, case .text(var text) = value else { return nil }
        return text.withUTF8 { SQLiteDate.date(fromUTF8: $0) }
    }

    /// A `Bool` from the INTEGER 0 or 1, as ``RowDecoder`` reads one; nil for anything else.
    @inline(__always)
    static func bool(from value: SQLiteValue) -> Bool? {
        guard case .integer(let integer) = value, integer == 0 || integer == 1 else { return nil }
        return integer == 1
    }

    /// A `Double` from a REAL or an INTEGER, as ``RowDecoder`` reads one; nil for anything else.
    @inline(__always)
    static func double(from value: SQLiteValue) -> Double? {
        switch value {
        case .real(let double): return double
        case .integer(let integer): return Double(integer)
        default: return nil
        }
    }

    /// A value of a type ``RowDecoder`` converts itself, from a value of the kind it reads that type
    /// from directly; nil for any other type or value.
    func convert<T>(_ value: SQLiteValue, to type: T.Type) -> T? {
        // Each value below is handed back as a T once T was found to be its type (see ExactCast).
        if T.self == Int.self, case .integer(let integer) = value { return ExactCast.cast(Int(integer), to: T.self) }
        if T.self == Int64.self, case .integer(let integer) = value { return ExactCast.cast(integer, to: T.self) }
        if T.self == Double.self, let double = Self.double(from: value) { return ExactCast.cast(double, to: T.self) }
        if T.self == Bool.self, let bool = Self.bool(from: value) { return ExactCast.cast(bool, to: T.self) }
        if T.self == String.self, case .text(let text) = value { return ExactCast.cast(text, to: T.self) }
        if T.self == Date.self, let date = date(from: value) { return ExactCast.cast(date, to: T.self) }
        if T.self == Data.self, case .blob(let data) = value { return ExactCast.cast(data, to: T.self) }
        if T.self == SQLiteValue.self { return ExactCast.cast(value, to: T.self) }
        return nil
    }
}
