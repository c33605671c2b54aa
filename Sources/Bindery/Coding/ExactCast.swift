/// The one place where a value of a generic type is reinterpreted as a concrete type: code generic over
/// `T` that found `T` to be `Date` (say) hands a `Date` back as a `T`, or reads a `T` as a `Date`; and
/// a one-byte value is read as its byte (``byte(of:)``).
///
/// Safety: ``cast(_:to:)`` compares the two types' metadata before it reinterprets anything, so it
/// only ever reinterprets a value as its own type, which is no conversion at all; for any other pair
/// of types it returns nil. It never traps. (`as?` would give the same answer through the runtime's
/// dynamic cast, a call of some hundred instructions for every value: that is the reason for this
/// type.) Callers compare the types first themselves (`if T.self == Date.self`), to choose which
/// conversion to run; the compiler folds the second, identical comparison away.
enum ExactCast {
    /// `value` as a `Target`, when `Target` is exactly `Value`'s type; nil for any other type.
    @inline(__always)
    static func cast<Value, Target>(_ value: Value, to target: Target.Type) -> Target? {
        guard Value.self == Target.self else { return nil }
        return unsafeBitCast(value, to: Target.self)
    }

    /// `value` as a `Target`, when `Target` is exactly `Value`'s type; for any other type, a
    /// `DecodingError.typeMismatch` saying so.
    @inline(__always)
    static func decoded<Value, Target>(_ value: Value, as target: Target.Type) throws -> Target {
        guard let cast = cast(value, to: Target.self) else { throw mismatch(Value.self, Target.self) }
        return cast
    }

    /// The byte of `value` when its type is one byte in size (a synthesized `CodingKeys` enum, whose
    /// byte is its case number: see ``KeyTagTable``); nil for a value of any other size.
    ///
    /// Safety: the size is compared before anything is reinterpreted, so `unsafeBitCast` only ever
    /// reads one byte as one byte; every bit pattern is a valid `UInt8`, which holds nothing to
    /// release, so the copy owns nothing of `value`'s. Whether equal bytes mean equal values is the
    /// caller's question (``KeyTagTable/isTaggable(_:)`` answers it for coding keys).
    @inline(__always)
    static func byte<Value>(of value: Value) -> UInt8? {
        guard MemoryLayout<Value>.size == 1 else { return nil }
        return unsafeBitCast(value, to: UInt8.self)
    }

    /// The error of ``decoded(_:as:)``, out of line.
    @inline(never)
    static func mismatch(_ value: Any.Type, _ target: Any.Type) -> DecodingError {
        .typeMismatch(
            target, .init(codingPath: [], debugDescription: "a \(value) was decoded where a \(target) was expected"))
    }
}
