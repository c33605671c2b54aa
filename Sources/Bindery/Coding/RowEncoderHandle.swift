/// The `Encoder` that a value's `encode(to:)` is given: its ``RowEncoderCore``, for as long as that value
/// is encoded.
///
/// An `encode(to:)` may keep its encoder. Used after its value, the handle does not use the core: it
/// checks the core's row counter (see ``RowGenerations``) and hands out containers that throw.
struct RowEncoderHandle: Encoder {
    private let core: RowEncoderCore
    /// The core's row counter, and the value it holds while the value is encoded.
    private let generation: RowGenerations.Stamp

    /// A handle on `core` for the value it encodes now, valid while `generation` is current.
    init(core: RowEncoderCore, generation: RowGenerations.Stamp) {
        self.core = core
        self.generation = generation
    }

    /// Whether the value the handle was made for is still being encoded.
    @inline(__always)
    private var isValid: Bool { generation.isCurrent }

    var codingPath: [any CodingKey] { [] }

    var userInfo: [CodingUserInfoKey: Any] {
        isValid ? core.userInfo : [:]
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        guard isValid else { return Self.expiredContainer(keyedBy: type) }
        return core.container(keyedBy: type)
    }

    /// The container of a handle kept past its value, from a core that encodes nothing: it throws.
    /// Out of line, so that the valid handle's call saves no registers for it (callgrind: about 12
    /// instructions a record).
    @inline(never)
    private static func expiredContainer<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        idleCore().container(keyedBy: type)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        guard isValid else { return Self.idleCore().unkeyedContainer() }
        return core.unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        guard isValid else { return Self.idleCore().singleValueContainer() }
        return core.singleValueContainer()
    }

    /// A core that encodes nothing, for a handle kept past its value: the keyed containers it hands
    /// out throw, and what it records is never thrown.
    @inline(never)
    private static func idleCore() -> RowEncoderCore {
        RowEncoderCore(options: CodingOptions())
    }
}
