import Foundation

/// Reads a changeset's bytes one table header and one row change at a time (the format is
/// described on ``Changeset``); every length and count is checked against the bytes left, so that
/// damaged bytes throw ``SyncError/malformedChangeset(reason:)`` instead of reading out of bounds.
struct ChangesetReader {
    /// A table header: the table's name and which columns form its primary key.
    struct TableHeader: Equatable {
        var name: String
        /// For each column, its position in the primary key, or 0 (see ``Changeset/Table/keyFlags``).
        var keyFlags: [UInt8]

        /// For each column, whether it belongs to the primary key.
        var primaryKey: [Bool] { keyFlags.map { $0 != 0 } }
    }

    private let bytes: [UInt8]
    private var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte was read.
    var isAtEnd: Bool { position >= bytes.count }

    /// The offset of the next byte to read.
    var offset: Int { position }

    /// The operation of the next change of the current table, or nil when a table header (or the
    /// end) comes next.
    var nextOperation: UInt8? {
        guard !isAtEnd, bytes[position] != UInt8(ascii: "T"), bytes[position] != UInt8(ascii: "P") else {
            return nil
        }
        return bytes[position]
    }

    /// The next table header, or nil at the end of the bytes. Call it only after the changes of the
    /// previous table were read (``nextChange(columnCount:)`` returned nil).
    mutating func nextTable() throws(SyncError) -> TableHeader? {
        guard !isAtEnd else { return nil }
        let marker = try byte()
        guard marker == UInt8(ascii: "T") else {
            throw malformed(marker == UInt8(ascii: "P") ? "a patchset, not a changeset" : "expected a table header")
        }
        let columnCount = try varint()
        guard columnCount > 0, columnCount <= 32767, columnCount <= UInt64(bytes.count - position) else {
            throw malformed("a table of \(columnCount) columns")
        }
        var keyFlags: [UInt8] = []
        keyFlags.reserveCapacity(Int(columnCount))
        for _ in 0..<Int(columnCount) {
            keyFlags.append(try byte())
        }
        guard let end = bytes[position...].firstIndex(of: 0) else {
            throw malformed("a table name without its end")
        }
        guard let name = String(bytes: bytes[position..<end], encoding: .utf8), !name.isEmpty else {
            throw malformed("a table name that is not UTF-8")
        }
        position = end + 1
        guard keyFlags.contains(where: { $0 != 0 }) else {
            throw malformed("table \(name) has no primary-key column")
        }
        return TableHeader(name: name, keyFlags: keyFlags)
    }

    /// The next row change of the current table, or nil when a table header (or the end) comes next.
    mutating func nextChange(columnCount: Int) throws(SyncError) -> Changeset.Change? {
        guard let (operation, indirect) = try nextChangeHeader() else { return nil }
        let old = operation == .insert ? [] : try record(columnCount: columnCount)
        let new = operation == .delete ? [] : try record(columnCount: columnCount)
        return Changeset.Change(operation: operation, indirect: indirect, old: old, new: new)
    }

    /// The operation and indirect flag of the next row change of the current table, or nil when a
    /// table header (or the end) comes next.
    private mutating func nextChangeHeader() throws(SyncError) -> (Changeset.Operation, Bool)? {
        guard !isAtEnd, bytes[position] != UInt8(ascii: "T"), bytes[position] != UInt8(ascii: "P") else {
            return nil
        }
        let code = try byte()
        guard let operation = Changeset.Operation(rawValue: code) else {
            throw malformed("unknown operation \(code)")
        }
        return (operation, try byte() != 0)
    }

    /// A row change as the byte ranges of its records, their values not read.
    struct ChangeBytes {
        var operation: Changeset.Operation
        var indirect: Bool
        /// The old record's bytes (empty for an insert).
        var old: Range<Int>
        /// The new record's bytes (empty for a delete).
        var new: Range<Int>
    }

    /// The next row change of the current table as the bytes of its records, or nil when a table
    /// header (or the end) comes next. Its values are skipped, not read: a text's bytes are kept as
    /// they are, valid UTF-8 or not (``nextChange(columnCount:)`` reads them into `String`s, which
    /// repairs invalid UTF-8).
    mutating func nextChangeBytes(columnCount: Int) throws(SyncError) -> ChangeBytes? {
        guard let (operation, indirect) = try nextChangeHeader() else { return nil }
        let old = operation == .insert ? position..<position : try skipRecord(columnCount: columnCount)
        let new = operation == .delete ? position..<position : try skipRecord(columnCount: columnCount)
        return ChangeBytes(operation: operation, indirect: indirect, old: old, new: new)
    }

    /// Skips a record of `columnCount` values and returns its bytes.
    private mutating func skipRecord(columnCount: Int) throws(SyncError) -> Range<Int> {
        let start = position
        for _ in 0..<columnCount {
            try skipValue()
        }
        return start..<position
    }

    /// Skips the next row change without building its values; returns false when a table header
    /// (or the end) comes next.
    mutating func skipChange(columnCount: Int) throws(SyncError) -> Bool {
        guard !isAtEnd, bytes[position] != UInt8(ascii: "T"), bytes[position] != UInt8(ascii: "P") else {
            return false
        }
        let code = try byte()
        guard let operation = Changeset.Operation(rawValue: code) else {
            throw malformed("unknown operation \(code)")
        }
        _ = try byte()
        let records = operation == .update ? 2 : 1
        for _ in 0..<(records * columnCount) {
            try skipValue()
        }
        return true
    }

    /// Whether `bytes` hold an update (else every change holds a whole row already).
    static func containsUpdate(_ bytes: [UInt8]) throws(SyncError) -> Bool {
        var reader = ChangesetReader(bytes: bytes)
        while let header = try reader.nextTable() {
            while !reader.isAtEnd, reader.bytes[reader.position] != UInt8(ascii: "T") {
                if reader.bytes[reader.position] == Changeset.Operation.update.rawValue {
                    return true
                }
                guard try reader.skipChange(columnCount: header.keyFlags.count) else { break }
            }
        }
        return false
    }

    private mutating func record(columnCount: Int) throws(SyncError) -> [SQLiteValue?] {
        var values: [SQLiteValue?] = []
        values.reserveCapacity(columnCount)
        for _ in 0..<columnCount {
            values.append(try value())
        }
        return values
    }

    private mutating func value() throws(SyncError) -> SQLiteValue? {
        switch try byte() {
        case 0: return nil
        case 1: return .integer(Int64(bitPattern: try bigEndian()))
        case 2: return .real(Double(bitPattern: try bigEndian()))
        case 3:
            let slice = try lengthPrefixed()
            return .text(String(decoding: slice, as: UTF8.self))
        case 4: return .blob(Data(try lengthPrefixed()))
        case 5: return .null
        case let type: throw malformed("unknown value type \(type)")
        }
    }

    private mutating func skipValue() throws(SyncError) {
        switch try byte() {
        case 0, 5: return
        case 1, 2: _ = try bigEndian()
        case 3, 4: _ = try lengthPrefixed()
        case let type: throw malformed("unknown value type \(type)")
        }
    }

    private mutating func byte() throws(SyncError) -> UInt8 {
        guard position < bytes.count else {
            throw malformed("it ends in the middle of a change")
        }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func bigEndian() throws(SyncError) -> UInt64 {
        guard bytes.count - position >= 8 else {
            throw malformed("it ends in the middle of a value")
        }
        defer { position += 8 }
        return ChangesetEncoding.bigEndian(in: bytes, at: position)
    }

    private mutating func lengthPrefixed() throws(SyncError) -> ArraySlice<UInt8> {
        let length = try varint()
        guard length <= UInt64(bytes.count - position) else {
            throw malformed("a value longer than the bytes left")
        }
        defer { position += Int(length) }
        return bytes[position..<(position + Int(length))]
    }

    /// A SQLite varint (see ``ChangesetEncoding/appendVarint(_:to:)``).
    private mutating func varint() throws(SyncError) -> UInt64 {
        guard let value = ChangesetEncoding.varint(in: bytes, at: &position) else {
            throw malformed("it ends in the middle of a length")
        }
        return value
    }

    private func malformed(_ reason: String) -> SyncError {
        .malformedChangeset(reason: "\(reason) (at byte \(position))")
    }
}
