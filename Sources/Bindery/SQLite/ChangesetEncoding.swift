/// SQLite's changeset format at the level of single values, shared by the recorder that writes
/// changesets (``ChangeRecorder``) and the sync layer's codec: a value is a type byte, then 8
/// big-endian bytes (an integer, a real), a varint length and the bytes (text, a blob), or nothing
/// (NULL, and 0 for a value a change leaves undefined).
enum ChangesetEncoding {
    /// The type bytes.
    static let undefined: UInt8 = 0
    static let integer: UInt8 = 1
    static let real: UInt8 = 2
    static let text: UInt8 = 3
    static let blob: UInt8 = 4
    static let null: UInt8 = 5

    /// Appends the 8 bytes of `value`, most significant first.
    static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// The 8 bytes at `position` of `bytes`, most significant first (the caller checked they are there).
    static func bigEndian(in bytes: [UInt8], at position: Int) -> UInt64 {
        var value: UInt64 = 0
        for offset in 0..<8 {
            value = value << 8 | UInt64(bytes[position + offset])
        }
        return value
    }

    /// Appends `value` as a SQLite varint: 7 bits a byte, most significant first, the high bit set
    /// on every byte but the last; a ninth byte carries 8 bits.
    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        if value < 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value))
            return
        }
        if value >> 56 != 0 {
            var groups: [UInt8] = [UInt8(truncatingIfNeeded: value)]
            var rest = value >> 8
            for _ in 0..<8 {
                groups.append(UInt8(truncatingIfNeeded: rest & 0x7f) | 0x80)
                rest >>= 7
            }
            bytes.append(contentsOf: groups.reversed())
            return
        }
        var groups: [UInt8] = []
        var rest = value
        repeat {
            groups.append(UInt8(truncatingIfNeeded: rest & 0x7f) | (groups.isEmpty ? 0 : 0x80))
            rest >>= 7
        } while rest != 0
        bytes.append(contentsOf: groups.reversed())
    }

    /// The varint at `position` of `bytes` (see ``appendVarint(_:to:)``), with `position` moved past
    /// it; nil when the bytes end first.
    static func varint(in bytes: [UInt8], at position: inout Int) -> UInt64? {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard position < bytes.count else { return nil }
            let next = bytes[position]
            position += 1
            if index == 8 {
                return value << 8 | UInt64(next)
            }
            value = value << 7 | UInt64(next & 0x7f)
            if next & 0x80 == 0 {
                return value
            }
        }
        return value
    }

    /// Where the value that starts at `position` of `bytes` ends; nil when it is malformed (an unknown
    /// type, or bytes that end first).
    static func endOfValue(in bytes: [UInt8], at position: Int) -> Int? {
        guard position < bytes.count else { return nil }
        var end = position + 1
        switch bytes[position] {
        case undefined, null:
            break
        case integer, real:
            end += 8
        case text, blob:
            guard let length = varint(in: bytes, at: &end), length <= UInt64(bytes.count - end) else { return nil }
            end += Int(length)
        default:
            return nil
        }
        return end <= bytes.count ? end : nil
    }
}
