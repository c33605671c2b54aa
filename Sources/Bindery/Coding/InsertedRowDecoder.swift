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
    /// The slots of the row being decoded, and its rowid.
    private(set) var slots: [StoredSlot] = []
    private(set) var rowid: Int64 = 0
    /// Moves on when a row starts and when it ends: a container made for one row refuses to read once
    /// it has moved on.
    private(set) var generation: UInt64 = 0
    /// Whether the decoder gave up on the current row.
    private(set) var gaveUp = false
    /// Slots by coding-key tag for `tagType`, when its keys are plain enum cases (see ``KeyTagTable``).
    private var tags: KeyTagTable?
    private var tagType: ObjectIdentifier?
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
    }

    /// Decodes a `T` from the row as stored: ``row``'s values where `slots` says ``StoredSlot/bound``,
    /// and so on, with `rowid` for ``StoredSlot/rowid``. Returns nil when the decoder gave up; throws
    /// what `init(from:)` throws otherwise.
    func decode<T: Decodable>(_ type: T.Type, slots: [StoredSlot], rowid: Int64) throws -> T? {
        if decodedType != ObjectIdentifier(T.self) {
            decodedType = ObjectIdentifier(T.self)
            decodesColumns = T.self is any ColumnDecodable.Type
        }
        guard !decodesColumns else { return nil }
        self.slots = slots
        self.rowid = rowid
        gaveUp = false
        generation &+= 1
        defer { generation &+= 1 }
        do {
            let value = try T(from: self)
            return gaveUp ? nil : value
        } catch {
            if gaveUp {
                return nil
            }
            throw error
        }
    }

    /// Gives up on the current row; returns the error that stops `init(from:)`.
    func giveUp() -> GaveUp {
        gaveUp = true
        return GaveUp()
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        var table: KeyTagTable?
        if KeyTagTable.isTaggable(Key.self) {
            if tagType == nil {
                tagType = ObjectIdentifier(Key.self)
                tags = KeyTagTable()
            }
            table = tagType == ObjectIdentifier(Key.self) ? tags : nil
        }
        return KeyedDecodingContainer(InsertedRowKeyedContainer<Key>(decoder: self, tags: table))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw giveUp()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw giveUp()
    }

    /// The stored value of `slot`, or nil when it is not known.
    @inline(__always)
    func value(at slot: Int) -> SQLiteValue? {
        switch slots[slot] {
        case .bound: return row.value(at: slot)
        case .null: return .null
        case .rowid: return .integer(rowid)
        case .unknown: return nil
        }
    }

    /// A `Date` from a value, as ``RowDecoder`` reads one from TEXT; nil for anything else.
    func date(from value: SQLiteValue) -> Date? {
        guard usesTextDates, case .text(var text) = value else { return nil }
        return text.withUTF8 { SQLiteDate.date(fromUTF8: $0) }
    }

    /// A value of a type ``RowDecoder`` converts itself, from a value of the kind it reads that type
    /// from directly; nil for any other type or value.
    func convert<T>(_ value: SQLiteValue, to type: T.Type) -> T? {
        switch value {
        case .integer(let integer):
            if T.self == Int.self { return Int(exactly: integer) as? T }
            if T.self == Int64.self { return integer as? T }
            if T.self == Double.self { return Double(integer) as? T }
            if T.self == Bool.self, integer == 0 || integer == 1 { return (integer == 1) as? T }
        case .real(let double):
            if T.self == Double.self { return double as? T }
        case .text(let text):
            if T.self == String.self { return text as? T }
            if T.self == Date.self { return date(from: value) as? T }
        case .blob(let data):
            if T.self == Data.self { return data as? T }
        case .null:
            break
        }
        if T.self == SQLiteValue.self { return value as? T }
        return nil
    }
}
