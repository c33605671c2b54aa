/// The `Encoder` that a value's `encode(to:)` is given: its ``RowEncoderCore``, for as long as that value
/// is encoded.
///
/// An `encode(to:)` may keep its encoder. Used after its value, the handle does not use the core: its
/// stamp of the core's row counter is no longer current (see ``RowGenerations/Held``), and it hands
/// out containers that throw.
struct RowEncoderHandle: Encoder {
    /// The core, not counted (a retain and a release per record), while the value is encoded.
    private let held: RowGenerations.Held<RowEncoderCore>

    /// A handle on `core` for the value it encodes now, valid while `generation` is current.
    init(core: RowEncoderCore, generation: RowGenerations.Stamp) {
        self.held = RowGenerations.Held(core, stamp: generation)
    }

    var codingPath: [any CodingKey] { [] }

    var userInfo: [CodingUserInfoKey: Any] {
        held.object?.userInfo ?? [:]
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        held.with({ $0.container(keyedBy: type) }, expired: { Self.expiredContainer(keyedBy: type) })
    }

    /// The container of a handle kept past its value, from a core that encodes nothing: it throws.
    /// Out of line, so that the valid handle's call saves no registers for it (callgrind: about 12
    /// instructions a record).
    @inline(never)
    private static func expiredContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        idleCore().container(keyedBy: type)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        (held.object ?? Self.idleCore()).unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        (held.object ?? Self.idleCore()).singleValueContainer()
    }

    /// A core that encodes nothing, for a handle kept past its value: the keyed containers it hands
    /// out throw, and what it records is never thrown.
    @inline(never)
    private static func idleCore() -> RowEncoderCore {
        RowEncoderCore(options: CodingOptions())
    }
}
