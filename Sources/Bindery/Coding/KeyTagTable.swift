/// Column (or slot) indexes by coding-key tag, for key types whose value is one byte with nothing to
/// release: a synthesized `CodingKeys` enum, whose byte is its case number. Looking a key up is then
/// one load, with no `stringValue` call and no string comparison.
///
/// The byte determines the key's whole value, so equal bytes are equal keys and have the same
/// `stringValue`; the first look-up of each tag goes through the string path and is remembered.
final class KeyTagTable {
    /// Marks a tag not looked up yet.
    static let unknown: Int32 = -2
    /// The indexes, 256 of them; valid as long as the table lives.
    let entries: UnsafeMutablePointer<Int32>

    init() {
        entries = .allocate(capacity: 256)
        entries.initialize(repeating: KeyTagTable.unknown, count: 256)
    }

    deinit {
        entries.deallocate()
    }

    /// Whether keys of `type` can be looked up by tag: keys of at most one byte.
    ///
    /// Such a key is plain data, whose byte is its whole value, without asking the runtime: a value
    /// that needs more than copying its bytes holds a reference (a class instance, an existential, a
    /// string or array buffer, a weak or unowned reference), which takes a pointer's size, and a
    /// copyable Swift type has no copy of its own to run. (A C++ type with a copy constructor of its
    /// own, imported and made a `CodingKey`, is the one exception the size does not rule out.)
    static func isTaggable<Key: CodingKey>(_ type: Key.Type) -> Bool {
        MemoryLayout<Key>.size <= 1
    }

    /// The tag of a key of a taggable type.
    @inline(__always)
    static func tag<Key: CodingKey>(of key: Key) -> Int {
        // A one-byte key is reinterpreted as its byte; a key of no size has one value, tag 0.
        MemoryLayout<Key>.size == 1 ? Int(unsafeBitCast(key, to: UInt8.self)) : 0
    }

    /// The index remembered for `tag`, or ``unknown``.
    @inline(__always)
    subscript(tag: Int) -> Int32 {
        get { entries[tag] }
        set { entries[tag] = newValue }
    }
}
