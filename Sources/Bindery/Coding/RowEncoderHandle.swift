/// The `Encoder` that a value's `encode(to:)` is given: its ``RowEncoderCore``, lent without counting a
/// reference, for as long as that value is encoded.
///
/// An `encode(to:)` may keep its encoder. Used after its value, the handle touches neither the core
/// nor its memory: it checks the core's row counter (see ``RowGenerations``), which never goes away,
/// and hands out containers that throw. Holding no counted reference, the handle costs nothing to put
/// in the `any Encoder` that `encode(to:)` takes.
struct RowEncoderHandle: Encoder {
    private let core: Unmanaged<RowEncoderCore>
    /// The core's row counter, and the value it holds while the value is encoded.
    private let generation: UnsafeMutablePointer<UInt64>
    private let expected: UInt64

    /// A handle on `core` for the value it encodes now, valid while `generation` holds its present value.
    init(core: RowEncoderCore, generation: UnsafeMutablePointer<UInt64>) {
        self.core = Unmanaged.passUnretained(core)
        self.generation = generation
        self.expected = generation.pointee
    }

    /// Whether the value the handle was made for is still being encoded.
    @inline(__always)
    private var isValid: Bool { generation.pointee == expected }

    var codingPath: [any CodingKey] { [] }

    var userInfo: [CodingUserInfoKey: Any] {
        isValid ? core._withUnsafeGuaranteedRef { $0.userInfo } : [:]
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        guard isValid else { return Self.expiredContainer(keyedBy: type) }
        return core._withUnsafeGuaranteedRef { $0.container(keyedBy: type) }
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
        return core._withUnsafeGuaranteedRef { $0.unkeyedContainer() }
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        guard isValid else { return Self.idleCore().singleValueContainer() }
        return core._withUnsafeGuaranteedRef { $0.singleValueContainer() }
    }

    /// A core that encodes nothing, for a handle kept past its value: the keyed containers it hands
    /// out throw, and what it records is never thrown.
    @inline(never)
    private static func idleCore() -> RowEncoderCore {
        RowEncoderCore(options: CodingOptions())
    }
}
