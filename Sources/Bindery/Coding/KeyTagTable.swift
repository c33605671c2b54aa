/// Column (or slot) indexes by coding-key tag, for key types whose value is one byte with nothing to
/// release: a synthesized `CodingKeys` enum, whose byte is its case number. Looking a key up is then
/// one load, with no `stringValue` call and no string comparison.
///
/// The byte determines the key's whole value, so equal bytes are equal keys and have the same
/// `stringValue`; the first look-up of each tag goes through the string path and is remembered.
///
/// A container holds the table's ``Entries``, not the table: a counted reference would be copied
/// with the container on every call. The entries are a ``ByteTable`` the table owns (made in its
/// `init`, freed in its `deinit`), lent to the container: the table is kept with the container it
/// was made for, by the decoder (or encoder) that reuses that container, and a container reads its
/// entries only after its ``RowGenerations/Stamp`` says the decoder still holds it: a container kept
/// past the drop is refused before it reaches the entries. Every index is a tag, a byte: always
/// within the 256 entries, by its type.
final class KeyTagTable {
    /// Marks a tag not looked up yet.
    static let unknown: Int32 = -2
    /// The indexes, 256 of them; valid as long as the table lives.
    let entries: Entries

    /// A key's tag: its byte, so always one of the table's 256 indexes.
    struct Tag: Equatable {
        fileprivate let byte: UInt8

        /// The tag as a number, 0 to 255.
        var index: Int { Int(byte) }
    }

    /// The table's indexes by tag, as its container holds them (see the type's safety note).
    ///
    /// Indexed by ``Tag``, found once per key by the caller (``KeyTagTable/tag(of:)``), not by key:
    /// a subscript generic over the key type, in the containers' unspecialized code, cost 10 more
    /// instructions per field (callgrind: fetchAll of 100,000 records of 10 INTEGER columns
    /// 459,013,485 instructions by key, 449,013,432 by tag, the same as the pointer it replaces).
    struct Entries {
        /// The 256 indexes, owned by the table.
        fileprivate let buffer: ByteTable<Int32>

        /// The index remembered for `tag`, or ``KeyTagTable/unknown``.
        @inline(__always)
        subscript(tag: Tag) -> Int32 {
            get { buffer[tag.byte] }
            nonmutating set { buffer[tag.byte] = newValue }
        }
    }

    init() {
        entries = Entries(buffer: .allocate(repeating: KeyTagTable.unknown))
    }

    deinit {
        entries.buffer.deallocate()
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

    /// The tag of a key of a taggable type: its byte.
    @inline(__always)
    static func tag<Key: CodingKey>(of key: Key) -> Tag {
        // A one-byte key is its byte; a key of no size has one value, tag 0.
        Tag(byte: ExactCast.byte(of: key) ?? 0)
    }
}
