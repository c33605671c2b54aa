/// The one place where a value of a generic type is reinterpreted as a concrete type: code generic over
/// `T` that found `T` to be `Date` (say) hands a `Date` back as a `T`, or reads a `T` as a `Date`.
///
/// Safety: ``cast(_:to:)`` compares the two types' metadata before it reinterprets anything, so it
/// only ever reinterprets a value as its own type, which is no conversion at all; for any other pair
/// of types it returns nil. It never traps. (`as?` would give the same answer through the runtime's
/// dynamic cast, a call of some hundred instructions for every value: that is the reason for this
/// type.) Callers compare the types first themselves (`if T.self == Date.self`), to choose which
/// conversion to run; the compiler folds the second, identical comparison away. ``borrow(_:as:_:)``
/// and ``modify(_:as:_:)`` make the same comparison before they view a value, where it lies, as its
/// own type, for the duration of one call (the scoped pointer never leaves it).
///
/// It is also where a type itself is read: ``metadataKind(of:)`` reads the first word of a type's
/// metadata, which a metatype points to and which the runtime keeps for the life of the process.
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

    /// Runs `body` on `value`, where it lies, as a `Target`, when `Target` is exactly `Value`'s type;
    /// nil, without running `body`, for any other type. Neither a copy nor a cast of the value: how a
    /// protocol's static method reached through a metatype (`any ColumnEncodable.Type`) reads a value
    /// that generic code holds as a `Value` (a copy would retain each of its strings).
    @inline(__always)
    static func borrow<Value, Target, R>(
        _ value: borrowing Value, as target: Target.Type, _ body: (borrowing Target) throws -> R
    ) rethrows -> R? {
        guard Value.self == Target.self else { return nil }
        return try withUnsafePointer(to: value) { pointer in
            try pointer.withMemoryRebound(to: Target.self, capacity: 1) { try body($0.pointee) }
        }
    }

    /// Runs `body` on `value`, where it lies, as an `inout Target`, when `Target` is exactly `Value`'s
    /// type; nil, without running `body`, for any other type (see ``borrow(_:as:_:)``).
    @inline(__always)
    static func modify<Value, Target, R>(
        _ value: inout Value, as target: Target.Type, _ body: (inout Target) throws -> R
    ) rethrows -> R? {
        guard Value.self == Target.self else { return nil }
        return try withUnsafeMutablePointer(to: &value) { pointer in
            try pointer.withMemoryRebound(to: Target.self, capacity: 1) { try body(&$0.pointee) }
        }
    }

    /// The first word of `type`'s runtime metadata: its kind, part of Swift's stable ABI (see
    /// ``TypeKind``). A metatype is a pointer to that metadata, which lives as long as the process.
    static func metadataKind(of type: Any.Type) -> Int {
        unsafeBitCast(type, to: UnsafeRawPointer.self).load(as: Int.self)
    }

    /// The error of ``decoded(_:as:)``, out of line.
    @inline(never)
    static func mismatch(_ value: Any.Type, _ target: Any.Type) -> DecodingError {
        .typeMismatch(
            target, .init(codingPath: [], debugDescription: "a \(value) was decoded where a \(target) was expected"))
    }
}
